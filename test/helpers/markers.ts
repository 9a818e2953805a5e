// Runs that carry customers' content with unique markers in it: a generation's prompt, a prompt the platform
// refuses, a decision's state and a batch's request line. The encryption tests run them, then search the store, the
// logs and the metrics for the markers, and for the generation's output URL.
import { randomUUID } from 'node:crypto';
import { WorkflowFailedError, type Client } from '@temporalio/client';
import { countOccurrences } from '../../bench/chaos/key-scan';
import { WorkflowType } from '@platform-ops/client';
import { uniqueId } from './temporal';

/** A string found nowhere else: a test can count it anywhere. */
export const marker = (what: string): string => `mk${randomUUID().replace(/-/g, '')}-${what}`;

const FAST_POLLING = { minIntervalMs: 100, maxIntervalMs: 400 };

export const generation = (prompt: string) => ({
  operation: 'text-to-video' as const,
  request: { prompt, duration: 5 },
  polling: FAST_POLLING,
  regeneration: { maxRegenerations: 0 },
});

export const startRun = (ctx: { client: Client; taskQueue: string }, type: string, input: unknown) =>
  ctx.client.workflow.start(type, { taskQueue: ctx.taskQueue, workflowId: uniqueId('encrypted'), args: [input] });

export interface MarkerRuns {
  markers: { prompt: string; refused: string; state: string; batchLine: string };
  /** The generation's output URLs, as its decoded result gives them. */
  outputUrls: string[];
}

/** The four runs to their ends, read back through `client` (which must decode them). */
export async function runMarkerWorkflows(ctx: { client: Client; taskQueue: string }): Promise<MarkerRuns> {
  const markers = {
    prompt: marker('prompt'),
    refused: marker('refused'),
    state: marker('state'),
    batchLine: marker('batch-line'),
  };
  const done = await startRun(ctx, WorkflowType.mediaGeneration, generation(`a fox ${markers.prompt}`));
  const refused = await startRun(
    ctx,
    WorkflowType.mediaGeneration,
    generation(`${markers.refused} [emulator:fail=ILLEGAL_PROMPT]`),
  );
  const decision = await startRun(ctx, WorkflowType.evaluateDecision, {
    state: `the state ${markers.state}`,
    questions: [{ kind: 'yes_no', question: 'Is it a greeting?' }],
  });
  const batch = await startRun(ctx, WorkflowType.batchJob, {
    endpoint: '/v1/chat/completions',
    requests: [
      {
        custom_id: 'a',
        body: { model: 'deepseek/deepseek-v3', messages: [{ role: 'user', content: markers.batchLine }] },
      },
    ],
    polling: { initialIntervalMs: 100, maxIntervalMs: 500 },
    metadata: { emulator_validating_ms: '100', emulator_per_request_ms: '100', emulator_finalizing_ms: '100' },
  });
  // What the caller reads back is decoded; the generation kept its output, whose URL is the customer's media.
  const generated = (await done.result()) as { taskId: string; outputs: Array<{ originalUrl: string }> };
  expect(generated).toMatchObject({ taskId: expect.any(String), outputs: [expect.anything()] });
  await expect(refused.result()).rejects.toBeInstanceOf(WorkflowFailedError);
  // A failure's message is in its encrypted attributes, not in the clear.
  const { events } = await refused.fetchHistory();
  const failed = events!.find((e) => e.workflowExecutionFailedEventAttributes)!;
  expect(failed.workflowExecutionFailedEventAttributes!.failure!.message).toBe('Encoded failure');
  expect(await decision.result()).toMatchObject({
    answers: [expect.objectContaining({ question: 'Is it a greeting?' })],
  });
  expect(await batch.result()).toMatchObject({ outcome: 'Completed' });
  return { markers, outputUrls: generated.outputs.map((o) => o.originalUrl) };
}

/** How many times `text` occurs in `haystack`, as text or as the hex PostgreSQL dumps a bytea column in. */
export function occurrencesIn(haystack: Buffer | string, text: string): number {
  const bytes = typeof haystack === 'string' ? Buffer.from(haystack) : haystack;
  const hex = Buffer.from(text).toString('hex');
  return countOccurrences(bytes, Buffer.from(text)) + countOccurrences(bytes, Buffer.from(hex));
}
