// Replays recorded histories of every workflow against the current workflow code: a change that
// would break running workflows (non-determinism) fails here. Histories are only ever added: a
// versioned change (docs/versioning.md) records its new behaviour under a new name with
// `RECORD_HISTORIES=1 npx jest <test>`, which never overwrites an existing recording.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { historyFromJSON } from '@temporalio/common/lib/proto-utils';
import { Worker } from '@temporalio/worker';
import { WORKFLOW_TYPES } from '../../src/workflows/operations';
import { quietRuntime } from '../helpers/temporal';
import { testEnv } from '../setup/shared';

const dir = path.join(__dirname, 'histories');
const files = readdirSync(dir).filter((f) => f.endsWith('.json'));

describe('replay of recorded histories', () => {
  beforeAll(() => quietRuntime());

  it('has a recorded history of every workflow type', () => {
    for (const type of WORKFLOW_TYPES) expect(files.some((f) => f.startsWith(`${type}-`))).toBe(true);
  });

  it.each(files)('%s replays without non-determinism', async (file) => {
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
