// The typed client as another project sees it: `platform-ops/client` resolves through the package's
// `exports` (a package may import itself by name, so no install is needed), at run time in Node and
// at compile time in TypeScript, where its types are the workflows' own: a wrong field does not compile.
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { tscAsConsumer } from '../helpers/consumer-tsc';

const run = promisify(execFile);
const root = path.resolve(__dirname, '../..');

const CONSUMER = `
import type { Client } from '@temporalio/client';
import { mediaProgressQuery, startMediaGeneration } from 'platform-ops/client';

export async function generate(client: Client): Promise<string> {
  const { handle, started } = await startWorkflow(client, 'mediaGeneration',
    { operation: 'text-to-video', request: { prompt: 'waves at dusk', duration: 5 } },
    { idempotencyKey: 'order-42' },
  );
  const progress = await handle.query(mediaProgressQuery);
  const result = await handle.result();
  return \`\${started} \${progress.status} \${result.taskId} \${result.outputs[0]?.kept.uri ?? ''}\`;
}
`;

describe('platform-ops/client', () => {
  let dir: string;
  beforeAll(() => {
    mkdirSync(path.join(root, '.cache'), { recursive: true });
    dir = mkdtempSync(path.join(root, '.cache', 'consumer-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('loads in Node by its package name', async () => {
    const { stdout } = await run(
      process.execPath,
      [
        '-e',
        "const c = require('platform-ops/client'); console.log(Object.keys(c).filter((k) => /^start/.test(k)).join(','))",
      ],
      { cwd: dir },
    );
    expect(stdout.trim().split(',')).toEqual(
      expect.arrayContaining(['startWorkflow', 'startMediaGeneration', 'startBatchJob', 'startBudgetGatedJob']),
    );
  });

  const tsc = (file: string) => tscAsConsumer(file, { cwd: root });

  it('type-checks a consumer with node16 resolution, and refuses a wrong one', async () => {
    const good = path.join(dir, 'good.ts');
    writeFileSync(good, CONSUMER);
    expect(await tsc(good)).toBe('');

    const bad = path.join(dir, 'bad.ts');
    writeFileSync(bad, CONSUMER.replace("operation: 'text-to-video'", "operation: 'text-to-sound'"));
    expect(await tsc(bad)).toMatch(/bad\.ts\(\d+,\d+\): error TS2322/);
  }, 60_000);
});
