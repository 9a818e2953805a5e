// The client's version moves with its contracts: the newest entry of packages/client/CHANGELOG.md is the package's
// version and names the fingerprint of the workflows' JSON Schemas (schemas/, which test/api checks are current).
// A contract changed without a new entry fails here, naming the fingerprint to write.
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

const root = path.join(__dirname, '..', '..');

/** sha256 over each schema file's name and text, in name order; the first 12 hex digits. */
function contractsFingerprint(): string {
  const dir = path.join(root, 'schemas');
  const hash = createHash('sha256');
  for (const name of readdirSync(dir).sort()) hash.update(`${name}\n${readFileSync(path.join(dir, name), 'utf8')}\n`);
  return hash.digest('hex').slice(0, 12);
}

it("names the package's version and its contracts' fingerprint in the changelog's newest entry", () => {
  const { version } = JSON.parse(readFileSync(path.join(root, 'packages/client/package.json'), 'utf8')) as {
    version: string;
  };
  const changelog = readFileSync(path.join(root, 'packages/client/CHANGELOG.md'), 'utf8');
  const newest = /^## (\S+) \(contracts ([0-9a-f]{12})\)$/m.exec(changelog);
  expect({ version: newest?.[1], contracts: newest?.[2] }).toEqual({ version, contracts: contractsFingerprint() });
  // Every entry lists what changed.
  for (const entry of changelog.split(/^## /m).slice(1)) expect(entry).toMatch(/^- /m);
});
