// What the fault suite runs: one wave of every startable workflow type per fault, each workflow with
// inputs that name it (prompt, state, instance), so the emulator's paid-call counter can tell a
// duplicate of one workflow's call from another workflow's call. Timings are chosen, on the emulator's
// sped-up clock, so that a wave is still at work when its fault strikes.
import { STARTABLE_WORKFLOW_TYPES, type WorkflowTypeName } from '@platform-ops/client';
import { NO_QUOTAS } from '../support/fixtures';

export const CHAOS_MEMBER = 'member-chaos';
/** Emulated ms per real ms: a 2 min generation takes 12 s, a batch's 48 h window 4.8 h. */
export const CHAOS_CLOCK_SPEED = 10;
/** Emulated ms a generation processes, and a batch request takes. */
const GENERATION_MS = 120_000;
export const BATCH_PER_REQUEST_MS = 20_000;
/** Emulated ms an instance spends restarting. */
const RESTARTING_MS = 60_000;
const DAY_S = 86_400;

// Both are started by others: the ledger by its jobs, an endpoint's run by the Updates of its `endpoint` commands.
export type ChaosType = Exclude<WorkflowTypeName, 'budgetLedger' | 'serverlessEndpoint'>;
export const CHAOS_TYPES = STARTABLE_WORKFLOW_TYPES as readonly ChaosType[];

/** The mix's side parts (serverless endpoints, Nexus-started runs): a quarter of each type's count per wave. */
export const sidePartPerWave = (perType: number): number => Math.max(1, Math.ceil(perType / 4));

/** Instance ids of a wave: one per workflow of each type that acts on an instance it is given. */
const instanceId = (action: string, wave: string, i: number) => `chaos-${action}-${wave}-${i}`;
/** Actions on an instance the fixtures hold, and the status it must be in for the action. */
const INSTANCE_ACTIONS = {
  renew: 'running',
  restart: 'running',
  start: 'exited',
  stop: 'running',
  delete: 'running',
} as const;

/**
 * autoRenew's wave: a member of its own per wave, owning a few instances that expire within the
 * window, so every autoRenew of the wave races the others for the same renewals (each must be paid
 * once: the duplicate check counts renewals per instance), under that wave's fault.
 */
export const autoRenewMember = (wave: string) => `member-chaos-auto-${wave}`;
const AUTO_RENEW_INSTANCES = 3;
const AUTO_RENEW_BEFORE_S = 3 * DAY_S;
/** What one instance-month costs in the suite (1/10000 USD): the worker's price table has no renewal price. */
const AUTO_RENEW_COST_PER_MONTH = 10_000;

/**
 * The emulator's starting state: the chaos member (a budget far above what the suite spends, so the
 * ledger admits everything and a leak, not a refusal, is what its state shows), the suite's own API
 * key, two instances per wave and index, no quotas (the suite injects its own 429s), and outputs that
 * outlive every fault (an expired URL would be the suite's doing, not the service's).
 */
export function chaosFixtures(apiKey: string, waves: readonly string[], perType: number): Record<string, unknown> {
  const instance = (id: string, status: string, extra: Record<string, unknown> = {}) => ({
    id,
    status,
    productId: 'gpu-rtx4090-24g',
    productName: 'RTX 4090 24GB',
    billingMode: 'subscription',
    expiresInDays: 30,
    ...extra,
  });
  const indexes = Array.from({ length: perType }, (_, i) => i);
  const budget = (id: string, name: string) => ({ id, name, remaining: 1_000_000_000_000 });
  return {
    ...NO_QUOTAS,
    members: [
      { id: 'member-demo', name: 'Demo', remaining: null },
      budget(CHAOS_MEMBER, 'Chaos'),
      ...waves.map((w) => budget(autoRenewMember(w), `Chaos auto-renew ${w}`)),
    ],
    apiKeys: [{ key: apiKey, id: 'key-chaos', name: 'Chaos', userId: 'user-chaos', memberId: CHAOS_MEMBER }],
    instances: waves.flatMap((w) => [
      ...indexes.flatMap((i) =>
        Object.entries(INSTANCE_ACTIONS).map(([action, status]) => instance(instanceId(action, w, i), status)),
      ),
      ...Array.from({ length: AUTO_RENEW_INSTANCES }, (_, k) =>
        instance(`chaos-auto-${w}-${k}`, 'running', { memberId: autoRenewMember(w), expiresInDays: 1 }),
      ),
    ]),
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

/**
 * The instance actions' deadline in the suite, longer than the suite itself. A deadline counts time since the start
 * (docs/retries.md#deadlines): the suite's faults follow one another for 20 minutes, and a 15-minute default would end
 * a run that lives through two of them by design. The suite measures loss, so no deadline may end a run in it, and a
 * DeadlineExceeded is counted against the service.
 */
const CHAOS_DEADLINE_S = 3_600;

/** The one argument of workflow `i` of `type` in `wave`, whose id is `workflowId`. */
export function chaosInput(type: ChaosType, wave: string, i: number, workflowId: string): unknown {
  switch (type) {
    case 'renewInstance':
      return { instanceId: instanceId('renew', wave, i), months: 1 };
    case 'restartInstance':
      return { instanceId: instanceId('restart', wave, i), timeoutSeconds: CHAOS_DEADLINE_S };
    case 'startInstance':
      return { instanceId: instanceId('start', wave, i), timeoutSeconds: CHAOS_DEADLINE_S };
    case 'stopInstance':
      return { instanceId: instanceId('stop', wave, i), timeoutSeconds: CHAOS_DEADLINE_S };
    case 'deleteInstance':
      return { instanceId: instanceId('delete', wave, i), timeoutSeconds: CHAOS_DEADLINE_S };
    case 'createInstance':
      // The name is what a retried create finds its instance by, and the emulator's paid-call subject.
      return {
        request: {
          name: `chaos-create-${wave}-${i}`,
          productId: 'gpu-rtx4090-24g',
          gpuNum: 1,
          billingMode: 'payAsYouGo',
          imageUrl: 'docker.io/library/ubuntu:24.04',
        },
      };
    case 'autoRenew':
      return {
        memberId: autoRenewMember(wave),
        beforeSeconds: AUTO_RENEW_BEFORE_S,
        costPerMonth: AUTO_RENEW_COST_PER_MONTH,
      };
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
    default: {
      // A new workflow type must get its input here, or every one of its runs fails InvalidInput.
      const unknownType: never = type;
      throw new Error(`no chaos input for ${String(unknownType)}`);
    }
  }
}
