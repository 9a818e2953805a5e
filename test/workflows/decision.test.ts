// evaluateDecision end to end: one content, several questions, bounded parallel requests. The emulator is
// this file's own, so its request counters count this file's requests alone.
import { WorkflowFailedError } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { FailureType, WorkflowType } from '@platform-ops/client';
import type { evaluateDecision } from '../../src/operations/evaluateDecision/workflows';
import { startTestEmulator, type TestEmulator } from '../helpers/emulator';
import { eventTypes, recordHistory, uniqueId, withWorker } from '../helpers/temporal';

let emulator: TestEmulator;
beforeAll(async () => {
  emulator = await startTestEmulator();
});
afterAll(() => emulator.close());
const requests = async () => (await emulator.admin<{ requests: Record<string, number> }>('GET', '/counters')).requests;

describe('evaluateDecision', () => {
  it('asks every question once and gathers the answers per question, in order', () =>
    withWorker(
      'decision',
      async ({ client, taskQueue }) => {
        const before = await requests();
        const handle = await client.workflow.start<typeof evaluateDecision>(WorkflowType.evaluateDecision, {
          taskQueue,
          workflowId: uniqueId('decision'),
          args: [
            {
              state: ['A product photo', { image: 'https://img.example.com/shoe.png' }, 'and its caption.'],
              questions: [
                { kind: 'yes_no', question: 'Is it safe for work?' },
                { kind: 'choice', question: 'Which category?', options: ['shoes', 'bags', 'hats'] },
                { kind: 'yes_no', question: 'Is there a person?' },
              ],
              thinking: true,
              return_reasoning: true,
              maxConcurrency: 2,
            },
          ],
        });
        const result = await handle.result();
        expect(result.answers.map((a) => a.question)).toEqual([
          'Is it safe for work?',
          'Which category?',
          'Is there a person?',
        ]);
        expect(Object.keys(result.answers[1].probabilities).sort()).toEqual(['bags', 'hats', 'shoes']);
        for (const a of result.answers) {
          expect(Object.values(a.probabilities).reduce((x, y) => x + y, 0)).toBeCloseTo(1);
          expect(a.thinking).toBeTruthy();
          expect(a.numModelRequests).toBeGreaterThan(1);
        }
        expect(result.promptTokens).toBe(result.answers.reduce((s, a) => s + (a.promptTokens ?? 0), 0));
        const after = await requests();
        expect((after.decisionEvaluation ?? 0) - (before.decisionEvaluation ?? 0)).toBe(3);
        await recordHistory(handle, 'evaluateDecision-happy');
      },
      { platform: emulator.client() },
    ));

  it('checks every question before sending any, naming the question', () =>
    withWorker('decision-bad', async ({ client, taskQueue }) => {
      const handle = await client.workflow.start(WorkflowType.evaluateDecision, {
        taskQueue,
        workflowId: uniqueId('decision-bad'),
        args: [
          {
            state: 'some text',
            questions: [
              { kind: 'yes_no', question: 'ok?' },
              { kind: 'choice', question: 'which?' },
            ],
          },
        ],
      });
      const err = await handle.result().catch((e: unknown) => e);
      expect(err).toBeInstanceOf(WorkflowFailedError);
      const failure = (err as WorkflowFailedError).cause as ApplicationFailure;
      expect(failure.type).toBe(FailureType.InvalidInput);
      expect(failure.message).toContain('questions[1].options: is required when kind is "choice"');
      expect(await eventTypes(handle)).not.toContain('ACTIVITY_TASK_SCHEDULED');
      await recordHistory(handle, 'evaluateDecision-invalid');
    }));
});
