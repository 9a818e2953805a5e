// Hostile input, one row per rule: each is refused at once as InvalidInput naming the field, before
// any activity is scheduled (nothing run) and before any platform call (nothing charged). Real
// worker, real dev server, an emulator of this file's own, so its counters are ours alone.
import type { ApplicationFailure } from '@temporalio/common';
import { FailureType, type ValidationIssue, WorkflowType, type WorkflowTypeName } from '@platform-ops/client';
import { startTestEmulator, type TestEmulator } from '../helpers/emulator';
import { failureOf } from '../helpers/failures';
import { eventTypes, uniqueId, withWorker } from '../helpers/temporal';

const DAY = 86_400;
const START = 1_767_225_600; // 2026-01-01, the bill list's first day
const REPORT = { cycleType: 'Day', startTime: START, endTime: START + DAY };
const RENEW = { instanceId: 'inst-demo-1', months: 1 };
const BATCH = {
  endpoint: '/v1/chat/completions',
  requests: [{ custom_id: 'a', body: { model: 'deepseek/deepseek-v3', messages: [{ role: 'user', content: 'hi' }] } }],
};
const VIDEO = { operation: 'text-to-video', request: { prompt: 'a fox', duration: 5 } };
const ASYNC = { operation: 'async', model: 'qwen-image', request: { prompt: 'a fox' } };
const DECISION = { state: 'a cat', questions: [{ kind: 'yes_no', question: 'Is it an animal?' }] };
const GATED = { memberId: 'member-demo', cost: 10, job: { workflowType: 'billingReport', input: REPORT } };

/** JSON with an own "__proto__" key, as any client in another language can send it. */
const withOwnKey = (key: string, value: unknown): Record<string, unknown> =>
  JSON.parse(`{${JSON.stringify(key)}: ${JSON.stringify(value)}}`) as Record<string, unknown>;
const nested = (depth: number): unknown => (depth === 0 ? 'deep' : { a: nested(depth - 1) });

interface Row {
  rule: string;
  type: WorkflowTypeName;
  input: unknown;
  /** The field the refusal must name. */
  field: string;
}

const ROWS: Row[] = [
  // Ranges and sizes
  {
    rule: 'billingReport endTime of 2^53-1 (the known runaway)',
    type: WorkflowType.billingReport,
    input: { ...REPORT, endTime: Number.MAX_SAFE_INTEGER },
    field: 'endTime',
  },
  {
    rule: 'billingReport over more than 1096 days',
    type: WorkflowType.billingReport,
    input: { ...REPORT, endTime: START + 1_100 * DAY },
    field: 'endTime',
  },
  {
    rule: 'billingReport startTime after 2100',
    type: WorkflowType.billingReport,
    input: { ...REPORT, startTime: 5_000_000_000, endTime: 5_000_000_000 + DAY },
    field: 'startTime',
  },
  {
    rule: 'billingReport filter longer than 255',
    type: WorkflowType.billingReport,
    input: { ...REPORT, productName: 'p'.repeat(256) },
    field: 'productName',
  },
  {
    rule: 'renew months over 36',
    type: WorkflowType.renewInstance,
    input: { ...RENEW, months: 1_000 },
    field: 'months',
  },
  {
    rule: 'instance id longer than 255',
    type: WorkflowType.renewInstance,
    input: { ...RENEW, instanceId: 'i'.repeat(256) },
    field: 'instanceId',
  },
  {
    rule: 'renew expectedEndTime longer than 32',
    type: WorkflowType.renewInstance,
    input: { ...RENEW, expectedEndTime: '1'.repeat(33) },
    field: 'expectedEndTime',
  },
  {
    rule: 'autoRenew window over 28 days',
    type: WorkflowType.autoRenew,
    input: { memberId: 'member-demo', beforeSeconds: 29 * DAY },
    field: 'beforeSeconds',
  },
  {
    rule: 'autoRenew memberId with a colon (it is part of workflow ids)',
    type: WorkflowType.autoRenew,
    input: { memberId: 'a:b', beforeSeconds: DAY },
    field: 'memberId',
  },
  {
    rule: 'autoRenew costPerMonth beyond a safe integer',
    type: WorkflowType.autoRenew,
    input: { memberId: 'member-demo', beforeSeconds: DAY, costPerMonth: 2 ** 60 },
    field: 'costPerMonth',
  },
  {
    rule: 'createInstance name longer than 255',
    type: WorkflowType.createInstance,
    input: { request: { name: 'n'.repeat(256), productId: 'p', gpuNum: 1, billingMode: 'payAsYouGo' } },
    field: 'request.name',
  },
  {
    rule: 'createInstance more than 8 GPUs',
    type: WorkflowType.createInstance,
    input: { request: { name: 'n', productId: 'p', gpuNum: 64, billingMode: 'payAsYouGo' } },
    field: 'request.gpuNum',
  },
  {
    rule: 'createInstance subscription without months',
    type: WorkflowType.createInstance,
    input: { request: { name: 'n', productId: 'p', gpuNum: 1, billingMode: 'subscription' } },
    field: 'request.months',
  },
  {
    rule: 'stopInstance wait longer than a day',
    type: WorkflowType.stopInstance,
    input: { instanceId: 'inst-demo-1', timeoutSeconds: 2 * DAY },
    field: 'timeoutSeconds',
  },
  {
    rule: 'batch inputFileId longer than 255',
    type: WorkflowType.batchJob,
    input: { endpoint: BATCH.endpoint, inputFileId: 'f'.repeat(256) },
    field: 'inputFileId',
  },
  {
    rule: 'batch metadata with more than 15 entries',
    type: WorkflowType.batchJob,
    input: { ...BATCH, metadata: Object.fromEntries(Array.from({ length: 16 }, (_, i) => [`k${i}`, 'v'])) },
    field: 'metadata',
  },
  {
    rule: 'batch metadata value longer than 512',
    type: WorkflowType.batchJob,
    input: { ...BATCH, metadata: { note: 'n'.repeat(513) } },
    field: 'metadata.note',
  },
  {
    rule: 'media costEstimate beyond a safe integer',
    type: WorkflowType.mediaGeneration,
    input: { ...VIDEO, costEstimate: 1e300 },
    field: 'costEstimate',
  },
  {
    rule: 'media list of non-retryable reasons over 100',
    type: WorkflowType.mediaGeneration,
    input: { ...VIDEO, regeneration: { nonRetryableReasons: Array.from({ length: 101 }, (_, i) => `R${i}`) } },
    field: 'regeneration.nonRetryableReasons',
  },
  {
    rule: 'async model that is not one path segment',
    type: WorkflowType.mediaGeneration,
    input: { ...ASYNC, model: '../v3/async/task-result' },
    field: 'model',
  },
  {
    rule: 'async model not in the registry, nor passed through',
    type: WorkflowType.mediaGeneration,
    input: { ...ASYNC, model: 'not-registered' },
    field: 'model',
  },
  {
    rule: 'async body over 256 KiB',
    type: WorkflowType.mediaGeneration,
    input: { ...ASYNC, model: 'custom-x', request: { prompt: 'p'.repeat(300_000) } },
    field: 'request',
  },
  {
    rule: 'async body its registry schema refuses',
    type: WorkflowType.mediaGeneration,
    input: { ...ASYNC, request: { prompt: 'p'.repeat(2_501) } },
    field: 'request.prompt',
  },
  {
    rule: 'decision question longer than 10000',
    type: WorkflowType.evaluateDecision,
    input: { ...DECISION, questions: [{ kind: 'yes_no', question: 'q'.repeat(10_001) }] },
    field: 'questions[0].question',
  },
  {
    rule: 'input nested deeper than 32 levels',
    type: WorkflowType.mediaGeneration,
    input: { ...VIDEO, request: { ...VIDEO.request, extra: nested(40) } },
    field: 'request.extra.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a',
  },
  // URLs the worker would fetch
  {
    rule: 'inputFileUri of another scheme',
    type: WorkflowType.batchJob,
    input: { endpoint: BATCH.endpoint, inputFileUri: 'ftp://files.example.com/in.jsonl' },
    field: 'inputFileUri',
  },
  {
    rule: 'inputFileUri with a user and password',
    type: WorkflowType.batchJob,
    input: { endpoint: BATCH.endpoint, inputFileUri: 'https://user:secret@files.example.com/in.jsonl' },
    field: 'inputFileUri',
  },
  {
    rule: 'inputFileUri longer than 2048',
    type: WorkflowType.batchJob,
    input: { endpoint: BATCH.endpoint, inputFileUri: `https://files.example.com/${'x'.repeat(2048)}` },
    field: 'inputFileUri',
  },
  // Keys of the prototype machinery, in maps and in option lists
  {
    rule: '__proto__ key in batch metadata',
    type: WorkflowType.batchJob,
    input: { ...BATCH, metadata: withOwnKey('__proto__', 'x') },
    field: 'metadata.__proto__',
  },
  {
    rule: 'constructor key in batch metadata',
    type: WorkflowType.batchJob,
    input: { ...BATCH, metadata: { constructor: 'x' } },
    field: 'metadata.constructor',
  },
  {
    rule: '__proto__ key in a media request extra',
    type: WorkflowType.mediaGeneration,
    input: { ...VIDEO, request: { ...VIDEO.request, extra: withOwnKey('__proto__', { polluted: true }) } },
    field: 'request.extra.__proto__',
  },
  {
    rule: '__proto__ key in an async body',
    type: WorkflowType.mediaGeneration,
    input: { ...ASYNC, model: 'custom-x', request: withOwnKey('__proto__', { polluted: true }) },
    field: 'request.__proto__',
  },
  {
    rule: '__proto__ as a decision option',
    type: WorkflowType.evaluateDecision,
    input: { ...DECISION, questions: [{ kind: 'choice', question: 'Which?', options: ['cat', '__proto__'] }] },
    field: 'questions[0].options[1]',
  },
  {
    rule: 'constructor as a gate option',
    type: WorkflowType.budgetGatedJob,
    input: {
      ...GATED,
      gate: { question: 'ok?', kind: 'choice', options: ['constructor', 'no'], threshold: 0.5, state: 'x' },
    },
    field: 'gate.options[0]',
  },
  {
    rule: 'a budget-gated job whose billingReport has no end',
    type: WorkflowType.budgetGatedJob,
    input: { ...GATED, job: { workflowType: 'billingReport', input: { ...REPORT, endTime: Number.MAX_SAFE_INTEGER } } },
    field: 'job.input.endTime',
  },
  // A serverless endpoint's run: its name and timings (a config's rules are the deploy Update's, checked in
  // test/workflows/serverless-endpoint-money.test.ts)
  {
    rule: 'serverlessEndpoint name with a space',
    type: WorkflowType.serverlessEndpoint,
    input: { name: 'my endpoint' },
    field: 'name',
  },
  {
    rule: 'serverlessEndpoint serve timeout over a day',
    type: WorkflowType.serverlessEndpoint,
    input: { name: 'ep', serveTimeoutSeconds: 86_401 },
    field: 'serveTimeoutSeconds',
  },
];

let emulator: TestEmulator;
beforeAll(async () => {
  emulator = await startTestEmulator();
});
afterAll(() => emulator.close());

/** Every request the emulator has seen, by route; admin calls are not counted. */
const platformCalls = async () =>
  (await emulator.admin<{ requests: Record<string, number> }>('GET', '/counters')).requests;

const issuesOf = (failure: ApplicationFailure): ValidationIssue[] =>
  (failure.details?.[0] as { issues?: ValidationIssue[] } | undefined)?.issues ?? [];

describe('hostile input is refused at once: InvalidInput naming the field, nothing run, nothing charged', () => {
  it.each(ROWS.map((r) => [r.rule, r] as const))('%s', (_rule, row) =>
    withWorker(
      'hostile',
      async ({ client, taskQueue }) => {
        const before = await platformCalls();
        const handle = await client.workflow.start(row.type, {
          taskQueue,
          workflowId: uniqueId(`hostile-${row.type}`),
          args: [row.input],
        });
        const failure = await failureOf(handle.result());
        expect(failure.type).toBe(FailureType.InvalidInput);
        expect(failure.nonRetryable).toBe(true);
        expect(issuesOf(failure).map((i) => i.field)).toContain(row.field);
        expect(failure.message).toContain(`${row.field}: `);
        const events = await eventTypes(handle);
        expect(events).not.toContain('ACTIVITY_TASK_SCHEDULED');
        expect(events).not.toContain('START_CHILD_WORKFLOW_EXECUTION_INITIATED');
        expect(events).not.toContain('SIGNAL_EXTERNAL_WORKFLOW_EXECUTION_INITIATED');
        expect(await platformCalls()).toEqual(before);
      },
      { platform: emulator.client() },
    ),
  );
});
