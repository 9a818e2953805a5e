// `npm start` keeps its dev server's data under .data/: a new database gets one partition per task
// queue (exact pacing), a database written before keeps the server's default, since fewer read
// partitions would strand the tasks already queued in the others.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { partitionsForData } from '../../src/starter/commands/up';

const READ = 'matching.numTaskqueueReadPartitions';
let dir: string;
beforeEach(() => (dir = mkdtempSync(path.join(tmpdir(), 'dev-data-'))));
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('partitionsForData', () => {
  it('gives a new database one partition, and notes it beside the database', () => {
    const said: string[] = [];
    const dbFile = path.join(dir, 'nested', 'temporal.sqlite');
    expect(partitionsForData(dbFile, (l) => said.push(l))).toMatchObject({ [READ]: 1 });
    expect(readFileSync(`${dbFile}.partitions`, 'utf8').trim()).toBe('1');
    expect(said).toEqual([]);
    // The next start, on the data the first one wrote.
    writeFileSync(dbFile, '');
    expect(partitionsForData(dbFile, (l) => said.push(l))).toMatchObject({ [READ]: 1 });
  });

  it("keeps the server's default for a database written before, and says so", () => {
    const said: string[] = [];
    const dbFile = path.join(dir, 'temporal.sqlite');
    writeFileSync(dbFile, '');
    expect(partitionsForData(dbFile, (l) => said.push(l))).toEqual({
      [READ]: 4,
      'matching.numTaskqueueWritePartitions': 4,
    });
    expect(said.join('\n')).toMatch(/Keeping 4 partitions per task queue .*Remove \.data\//);
  });
});
