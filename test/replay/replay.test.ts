// Replays recorded histories of every workflow against the current workflow code: a change that
// would break running workflows (non-determinism) fails here. Histories are only ever added: a
// versioned change (docs/versioning.md) records its new behaviour under a new name with
// `RECORD_HISTORIES=1 npx jest <test>`, which never overwrites an existing recording. A PINNED type's
// change that ships as a new build instead labels the recordings it breaks in pinned-builds.json with
// the last build they replay on: their runs finish on that build's workers, so they are skipped here.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { historyFromJSON } from '@temporalio/common/lib/proto-utils';
import { Worker } from '@temporalio/worker';
import { WORKFLOW_TYPES } from '@platform-ops/client';
import { quietRuntime } from '../helpers/temporal';
import { versioningBehaviours } from '../helpers/versioning';
import { testEnv } from '../setup/shared';

const dir = path.join(__dirname, 'histories');
const files = readdirSync(dir).filter((f) => f.endsWith('.json'));
/** Recording → the last build it replays on (a PINNED type's, kept for the runs still pinned there). */
const pinnedTo = JSON.parse(readFileSync(path.join(__dirname, 'pinned-builds.json'), 'utf8')) as Record<string, string>;
const behaviours = versioningBehaviours();
const typeOf = (file: string) => WORKFLOW_TYPES.find((t) => file.startsWith(`${t}-`));

describe('replay of recorded histories', () => {
  beforeAll(() => quietRuntime());

  it('has a recorded history of every workflow type', () => {
    for (const type of WORKFLOW_TYPES) expect(files.some((f) => f.startsWith(`${type}-`))).toBe(true);
  });

  it('labels only recordings that exist, of PINNED types, with a build id', () => {
    for (const [file, build] of Object.entries(pinnedTo)) {
      expect(files).toContain(file);
      expect(behaviours[typeOf(file) ?? '']).toBe('PINNED');
      expect(build).toMatch(/^[\w.-]{1,64}$/);
    }
  });

  // Skipped, and said so in the run's list (Jest refuses an empty table, hence the guard).
  const kept = files.filter((f) => pinnedTo[f]).map((f) => [f, pinnedTo[f]]);
  if (kept.length > 0) {
    it.skip.each(kept)('%s is kept for build %s (PINNED): not replayed against later builds', () => undefined);
  }

  it.each(files.filter((f) => !pinnedTo[f]))('%s replays without non-determinism', async (file) => {
    // Recorded with the id it ran under (older recordings have none, and replay under a made-up one).
    const { workflowId, ...json } = JSON.parse(readFileSync(path.join(dir, file), 'utf8')) as {
      workflowId?: string;
    };
    await Worker.runReplayHistory(
      { workflowBundle: { codePath: testEnv('workflowBundle') }, replayName: file },
      historyFromJSON(json),
      workflowId,
    );
  });
});
