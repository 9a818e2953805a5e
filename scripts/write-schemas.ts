// `npm run schemas`: writes the workflows' JSON Schemas to schemas/ (committed, and checked by a test).
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { workflowJsonSchemas } from '../src/api/json-schemas';

const out = path.resolve(process.argv[2] ?? path.join(__dirname, '..', '..', 'schemas'));
mkdirSync(out, { recursive: true });
for (const [name, schema] of Object.entries(workflowJsonSchemas())) {
  writeFileSync(path.join(out, name), `${JSON.stringify(schema, null, 2)}\n`);
}
console.log(`Wrote the workflow JSON Schemas to ${out}`);
