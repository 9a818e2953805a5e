// Every activity a workflow schedules carries a one-line summary for the Web UI saying what the call
// is for, read back from the real history: ids and names only, never the request (its prompt).
import { decodeOptionalSinglePayload } from '@temporalio/common/lib/internal-non-workflow';
import { startWorkflow } from '@platform-ops/client';
import { activitySummary, MAX_ACTIVITY_SUMMARY_CHARS, WAITING } from '../../src/workflows/activity-summary';
import { startTestEmulator, type TestEmulator } from '../helpers/emulator';
import { emulatorPlatform, uniqueId, withWorker } from '../helpers/temporal';

let emu: TestEmulator;
beforeAll(async () => {
  emu = await startTestEmulator({ clockSpeed: 100 });
});
afterAll(() => emu.close());

describe('activity summaries', () => {
  it('name what each activity of a generation is for, and never its prompt', () =>
    withWorker(
      'activity-summaries',
      async ({ client, taskQueue }) => {
        const prompt = 'a secret-looking prompt [emulator:duration=1500]';
        const { handle } = await startWorkflow(
          client,
          'mediaGeneration',
          {
            operation: 'text-to-video',
            request: { prompt, duration: 5 },
            polling: { minIntervalMs: 100, maxIntervalMs: 400 },
            memberId: 'member-demo',
          },
          { taskQueue, workflowId: uniqueId('summaries') },
        );
        const result = await handle.result();
        const scheduled = ((await handle.fetchHistory()).events ?? []).filter(
          (e) => e.activityTaskScheduledEventAttributes,
        );
        // Summaries are payloads, encrypted as every other (src/codec): decoded as the client decodes.
        const summaries = await Promise.all(
          scheduled.map(async (e) =>
            e.userMetadata?.summary
              ? decodeOptionalSinglePayload<string>(client.options.loadedDataConverter, e.userMetadata.summary)
              : undefined,
          ),
        );
        expect(summaries.length).toBeGreaterThanOrEqual(2);
        expect(summaries).not.toContain(undefined);
        // A backend's start is interactive, and its submit takes the member's fair share of the quota.
        expect(summaries[0]).toBe('submit text-to-video for member-demo (generation 1, attempt 1; interactive)');
        const { priority } = scheduled[0].activityTaskScheduledEventAttributes!;
        expect({ priorityKey: priority?.priorityKey, fairnessKey: priority?.fairnessKey }).toEqual({
          priorityKey: 2,
          fairnessKey: 'member-demo',
        });
        expect(summaries).toContain(`keep 1 outputs of task ${result.taskId}`);
        // A waiting poll's "Attempt N / ∞" reads as waiting, not failing.
        expect(summaries).toContain(`task ${result.taskId}: ${WAITING}`);
        for (const s of summaries) expect(s).not.toContain('secret-looking');
      },
      { platform: emulatorPlatform(emu.url) },
    ));

  it('are one line and bounded', () => {
    expect(activitySummary('poll\n  task  t-1 ')).toBe('poll task t-1');
    const long = activitySummary('x'.repeat(1_000));
    expect(long).toHaveLength(MAX_ACTIVITY_SUMMARY_CHARS);
    expect(long.endsWith('…')).toBe(true);
  });
});
