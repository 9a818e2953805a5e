// What the fault suite runs: one wave of every startable workflow type per fault, each workflow with
// inputs that name it (prompt, state, instance), so the emulator's paid-call counter can tell a
// duplicate of one workflow's call from another workflow's call. Timings are chosen, on the emulator's
// sped-up clock, so that a wave is still at work when its fault strikes.
import { STARTABLE_WORKFLOW_TYPES, type WorkflowTypeName } from '../../src/api/names';

export const CHAOS_MEMBER = 'member-chaos';
/** Emulated ms per real ms: a 2 min generation takes 12 s, a batch's 48 h window 4.8 h. */
export const CHAOS_CLOCK_SPEED = 10;
/** Emulated ms a generation processes, and a batch request takes. */
const GENERATION_MS = 120_000;
export const BATCH_PER_REQUEST_MS = 20_000;
/** Emulated ms an instance spends restarting. */
export const RESTARTING_MS = 60_000;
const DAY_S = 86_400;

export type ChaosType = Exclude<WorkflowTypeName, 'budgetLedger'>;
export const CHAOS_TYPES = STARTABLE_WORKFLOW_TYPES as readonly ChaosType[];

/** Instance ids of a wave: one to renew and one to restart per workflow. */
const renewInstanceId = (wave: string, i: number) => `chaos-renew-${wave}-${i}`;
const restartInstanceId = (wave: string, i: number) => `chaos-restart-${wave}-${i}`;

/**
 * The emulator's starting state: the chaos member (a budget far above what the suite spends, so the
 * ledger admits everything and a leak, not a refusal, is what its state shows), the suite's own API
 * key, two instances per wave and index, no quotas (the suite injects its own 429s), and outputs that
 * outlive every fault (an expired URL would be the suite's doing, not the service's).
 */
export function chaosFixtures(apiKey: string, waves: readonly string[], perType: number): Record<string, unknown> {
  const instance = (id: string) => ({
    id,
    status: 'running',
    productId: 'gpu-rtx4090-24g',
    productName: 'RTX 4090 24GB',
    billingMode: 'subscription',
    expiresInDays: 30,
  });
  const indexes = Array.from({ length: perType }, (_, i) => i);
  return {
    rateLimits: {},
    members: [
      { id: 'member-demo', name: 'Demo', remaining: null },
      { id: CHAOS_MEMBER, name: 'Chaos', remaining: 1_000_000_000_000 },
    ],
    apiKeys: [{ key: apiKey, id: 'key-chaos', name: 'Chaos', userId: 'user-chaos', memberId: CHAOS_MEMBER }],
    instances: waves.flatMap((w) =>
      indexes.flatMap((i) => [instance(renewInstanceId(w, i)), instance(restartInstanceId(w, i))]),
    ),
    instanceSettings: { restartingMs: RESTARTING_MS },
    tasks: {
      submitTextToVideo: { outputTtlSeconds: 30 * DAY_S, failureRate: 0 },
      submitImageToVideo: { outputTtlSeconds: 30 * DAY_S, failureRate: 0 },
    },
  };
}

const video = (label: string) => ({
  operation: 'text-to-video',
  request: { prompt: `chaos ${label} [emulator:duration=${GENERATION_MS}]`, duration: 5 },
});

const chat = (id: string, content: string) => ({
  custom_id: id,
  body: { model: 'deepseek/deepseek-v3', messages: [{ role: 'user', content }] },
});

/** The one argument of workflow `i` of `type` in `wave`, whose id is `workflowId`. */
export function chaosInput(type: ChaosType, wave: string, i: number, workflowId: string): unknown {
  switch (type) {
    case 'renewInstance':
      return { instanceId: renewInstanceId(wave, i), months: 1 };
    case 'restartInstance':
      return { instanceId: restartInstanceId(wave, i) };
    case 'evaluateDecision':
      return {
        state: `chaos ${workflowId}`,
        questions: [
          { kind: 'yes_no', question: 'Is it safe for work?' },
          { kind: 'choice', question: 'Which category?', options: ['shoes', 'bags', 'hats'] },
        ],
      };
    case 'mediaGeneration':
      return video(workflowId);
    case 'batchJob':
      return {
        endpoint: '/v1/chat/completions',
        requests: [chat('a', `${workflowId} one`), chat('b', `${workflowId} two`), chat('c', `${workflowId} three`)],
      };
    case 'billingReport':
      return {
        cycleType: 'Day',
        startTime: Date.parse('2026-01-01T00:00:00Z') / 1000,
        endTime: Date.parse('2026-03-01T00:00:00Z') / 1000 - 1,
      };
    case 'budgetGatedJob':
      return {
        memberId: CHAOS_MEMBER,
        onInsufficient: 'fail',
        job: { workflowType: 'mediaGeneration', input: video(workflowId) },
      };
  }
}
