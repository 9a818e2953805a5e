import { z } from 'zod';
import {
  BATCH_WINDOW_HOURS,
  BatchEndpointSchema,
  batchInputProblems,
  BatchInputLine,
  toJsonl,
  type BatchStatus,
} from '../platform/batches';
import { utf8Length } from '../platform/decision';
import {
  ATTRIBUTION,
  defineOperation,
  member,
  notBelow,
  PlatformObjectId,
  query,
  requestOrAttach,
  Resumed,
  update,
  workflow,
  type PlatformReportedStatus,
} from '../contract';

export const BATCH_INLINE_MAX_BYTES = 512 * 1024;

/** One of the workflow's keys is added (the workflow id), so callers get one fewer. */
const BatchMetadata = z
  .record(z.string().min(1).max(64), z.string().max(512))
  .refine((m) => Object.keys(m).length <= 15, { error: 'must have at most 15 entries' });

const InputFileUri = z
  .string()
  .max(2048)
  .regex(/^(file:\/\/|https?:\/\/)/, 'must be a file://, http:// or https:// URL')
  .refine((u) => !/^https?:\/\/[^/?#]*@/.test(u), { error: 'must not carry a user name or password' });

export const BatchPollingOptions = z
  .strictObject({
    initialIntervalMs: z.number().int().min(50).max(3_600_000).default(2_000),
    backoffCoefficient: z.number().min(1).max(10).default(1.5),
    maxIntervalMs: z.number().int().min(50).max(3_600_000).default(300_000),
  })
  .refine(...notBelow('maxIntervalMs', 'initialIntervalMs'));
export type ParsedBatchPollingOptions = z.output<typeof BatchPollingOptions>;

const FollowOptions = {
  windowHours: z.number().gt(0).max(BATCH_WINDOW_HOURS).default(BATCH_WINDOW_HOURS),
  graceMinutes: z
    .number()
    .min(0)
    .max(24 * 60)
    .default(15),
  polling: BatchPollingOptions.default(BatchPollingOptions.parse({})),
  keepOutputs: z.boolean().default(true),
  ...ATTRIBUTION,
};

export const BatchJobRequestInput = z
  .strictObject({
    endpoint: BatchEndpointSchema,
    requests: z.array(BatchInputLine).min(1).optional(),
    inputFileId: z.string().min(1).max(255).optional(),
    inputFileUri: InputFileUri.optional(),
    metadata: BatchMetadata.optional(),
    ...FollowOptions,
  })
  .superRefine((input, ctx) => {
    const issue = (message: string) => ctx.addIssue({ code: 'custom', path: ['requests'], message });
    const sources = [input.requests, input.inputFileId, input.inputFileUri].filter((s) => s !== undefined).length;
    if (sources !== 1) issue('give exactly one of requests, inputFileId or inputFileUri');
    if (!input.requests) return;
    const jsonl = toJsonl(input.requests);
    if (utf8Length(jsonl) > BATCH_INLINE_MAX_BYTES) {
      return issue(
        `must be at most ${BATCH_INLINE_MAX_BYTES / 1024} KB inline (a workflow input stays far below Temporal's 2 MB limit); upload larger batches first (inputFileId) or pass inputFileUri`,
      );
    }
    for (const problem of batchInputProblems(jsonl, input.endpoint)) issue(`${problem.field}: ${problem.rule}`);
  });
export type BatchJobRequestInput = z.input<typeof BatchJobRequestInput>;

export const BatchAttachInput = z.strictObject({
  attach: z.strictObject({ batchId: PlatformObjectId }),
  ...FollowOptions,
});
export type BatchAttachInput = z.input<typeof BatchAttachInput>;

export const BatchJobInput = requestOrAttach(BatchJobRequestInput, BatchAttachInput, {
  requestKeys: ['endpoint', 'requests', 'inputFileId', 'inputFileUri', 'metadata'],
  attaches: 'batch',
}).meta({
  title: 'batchJob input',
  description:
    'Runs one LLM batch (/v1/chat/completions or /v1/completions) within its 48-hour window: upload, create once, ' +
    'follow, cancel at the end of the window, and keep the output and error files. Or `attach: {batchId}` ' +
    'instead of a request: follow a batch created elsewhere the same way.',
});
export type BatchJobInput = BatchJobRequestInput | BatchAttachInput;
export type ParsedBatchJobRequestInput = z.output<typeof BatchJobRequestInput>;
export type ParsedBatchJobInput = z.output<typeof BatchJobInput>;

export const BATCH_OUTCOMES = ['Completed', 'Expired', 'Cancelled'] as const;
export type BatchOutcome = (typeof BATCH_OUTCOMES)[number];

export const RequestCounts = z.object({
  total: z.number().int(),
  completed: z.number().int(),
  failed: z.number().int(),
});
export type RequestCounts = z.infer<typeof RequestCounts>;

export const KeptBatchFile = z.object({
  fileId: z.string(),
  uri: z.string(),
  bytes: z.number().int(),
  sha256: z.string(),
  lines: z.number().int(),
});
export type KeptBatchFile = z.infer<typeof KeptBatchFile>;

export const BatchRequestSummary = z.object({
  succeeded: z.number().int(),
  failed: z.number().int(),
  notRun: z.number().int(),
  byErrorCode: z.record(z.string(), z.number().int()),
  perRequestUri: z.string(),
  sampleFailures: z.array(
    z.object({ custom_id: z.string(), code: z.string().optional(), message: z.string().optional() }),
  ),
});
export type BatchRequestSummary = z.infer<typeof BatchRequestSummary>;

export const BatchJobResult = z
  .object({
    batchId: z.string(),
    attached: z.literal(true).optional(),
    inputFileId: z.string(),
    outcome: z.enum(BATCH_OUTCOMES),
    status: z.string(),
    cancelledBy: z.enum(['window', 'update']).optional(),
    cancelReason: z.string().optional(),
    requestCounts: RequestCounts,
    output: KeptBatchFile.optional(),
    errors: KeptBatchFile.optional(),
    summary: BatchRequestSummary.optional(),
    createdAt: z.string(),
    windowEndsAt: z.string(),
    endedAt: z.string(),
    polls: z.number().int(),
    createAttempts: z.number().int(),
    resumed: z.array(Resumed).optional(),
  })
  .meta({ title: 'batchJob result' });
export type BatchJobResult = z.infer<typeof BatchJobResult>;

type BatchJobStep = 'STARTING' | 'ATTACHING' | 'UPLOADING' | 'CREATING' | 'KEEPING_OUTPUTS';
export type BatchJobOwnStatus = BatchJobStep | Exclude<BatchStatus, 'VALIDATING' | 'PROGRESS'>;
export type BatchJobStatus = BatchJobOwnStatus | BatchStatus | PlatformReportedStatus;

export interface BatchProgress {
  status: BatchJobStatus;
  resumedFrom?: string;
  batchId?: string;
  inputFileId?: string;
  requestCounts?: RequestCounts;
  polls: number;
  observedAt?: string;
  nextPollAt?: string;
  windowEndsAt?: string;
  cancelRequested?: boolean;
  outcome?: BatchOutcome;
}

export type CancelBatchResult = Pick<BatchObservation, 'batchId' | 'status' | 'requestCounts'>;

export const BatchObservation = z.object({
  batchId: z.string(),
  status: z.string(),
  requestCounts: RequestCounts,
  outputFileId: z.string().optional(),
  errorFileId: z.string().optional(),
  polls: z.number().int(),
  observedAt: z.number(),
  nextPollAt: z.number().optional(),
  intervalMs: z.number().optional(),
});
export type BatchObservation = z.infer<typeof BatchObservation>;

export const batchJob = defineOperation({
  workflows: {
    batchJob: workflow(BatchJobInput, BatchJobResult, (i) =>
      'attach' in i
        ? [`attach batch ${i.attach.batchId}`, member(i.memberId)]
        : [
            `batch to ${i.endpoint}`,
            i.requests ? `${i.requests.length} requests` : undefined,
            `${i.windowHours} h window`,
            member(i.memberId),
          ],
    ),
  },
  queries: { batchProgress: query<BatchProgress>('batchProgress') },
  updates: { cancelBatch: update<CancelBatchResult, [{ reason?: string }]>('cancelBatch') },
});
export const batchProgressQuery = batchJob.queries.batchProgress;
export const cancelBatchUpdate = batchJob.updates.cancelBatch;
