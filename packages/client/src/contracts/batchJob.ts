// The contract of batchJob: one LLM batch inside its 48-hour window.
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

/** Inline requests travel in the input and history, far below Temporal's 2 MB limit; larger ones come as files. */
export const BATCH_INLINE_MAX_BYTES = 512 * 1024;

/** One of the workflow's keys is added (the workflow id), so callers get one fewer. */
const BatchMetadata = z
  .record(z.string().min(1).max(64), z.string().max(512))
  .refine((m) => Object.keys(m).length <= 15, { error: 'must have at most 15 entries' });

/** The scheme and shape only: which folder and hosts are allowed is the worker's setting. */
const InputFileUri = z
  .string()
  .max(2048)
  .regex(/^(file:\/\/|https?:\/\/)/, 'must be a file://, http:// or https:// URL')
  .refine((u) => !/^https?:\/\/[^/?#]*@/.test(u), { error: 'must not carry a user name or password' });

export const BatchPollingOptions = z
  .strictObject({
    /** The first gaps are short: validation and small batches end within seconds. */
    initialIntervalMs: z.number().int().min(50).max(3_600_000).default(2_000),
    /** Each gap is this much longer than the one before, up to maxIntervalMs. */
    backoffCoefficient: z.number().min(1).max(10).default(1.5),
    /** A batch waiting for hours is looked at every few minutes. */
    maxIntervalMs: z.number().int().min(50).max(3_600_000).default(300_000),
  })
  .refine(...notBelow('maxIntervalMs', 'initialIntervalMs'));
export type ParsedBatchPollingOptions = z.output<typeof BatchPollingOptions>;

const FollowOptions = {
  /** The completion window, 48 h on the platform; shorter only for tests and demos. */
  windowHours: z.number().gt(0).max(BATCH_WINDOW_HOURS).default(BATCH_WINDOW_HOURS),
  /** After the window, how long the platform gets to reach a final state before we cancel. */
  graceMinutes: z
    .number()
    .min(0)
    .max(24 * 60)
    .default(15),
  polling: BatchPollingOptions.default(BatchPollingOptions.parse({})),
  /** Download the output and error files to the artifact store (default). */
  keepOutputs: z.boolean().default(true),
  ...ATTRIBUTION,
};

/** The request form: upload and create a new batch (and pay for it). budgetGatedJob's jobs take only this. */
export const BatchJobRequestInput = z
  .strictObject({
    endpoint: BatchEndpointSchema,
    /** The batch's lines, `{custom_id, body}`; or `inputFileId`, or `inputFileUri`. */
    requests: z.array(BatchInputLine).min(1).optional(),
    /** An input file already uploaded with purpose "batch". */
    inputFileId: z.string().min(1).max(255).optional(),
    /** A JSONL file the worker uploads: file:// under its INPUT_FILE_DIR, or https on FETCH_ALLOWED_HOSTS. */
    inputFileUri: InputFileUri.optional(),
    /** Passed to the platform's batch metadata (OpenAI's bounds: 16 pairs, keys of 64, values of 512). */
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
    // Every rule of the platform's input file, named by request: "requests line 3.custom_id".
    for (const problem of batchInputProblems(jsonl, input.endpoint)) issue(`${problem.field}: ${problem.rule}`);
  });
export type BatchJobRequestInput = z.input<typeof BatchJobRequestInput>;

/** The attach form: follow a batch created elsewhere to its end; the window is timed from its created_at. */
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

/** A batch the platform fails makes the workflow fail (BatchFailed); these end it successfully. */
export const BATCH_OUTCOMES = ['Completed', 'Expired', 'Cancelled'] as const;
export type BatchOutcome = (typeof BATCH_OUTCOMES)[number];

export const RequestCounts = z.object({
  total: z.number().int(),
  completed: z.number().int(),
  failed: z.number().int(),
});
export type RequestCounts = z.infer<typeof RequestCounts>;

/** A file kept in the artifact store: a reference, never the content (payloads stay small). */
export const KeptBatchFile = z.object({
  fileId: z.string(),
  uri: z.string(),
  bytes: z.number().int(),
  sha256: z.string(),
  lines: z.number().int(),
});
export type KeptBatchFile = z.infer<typeof KeptBatchFile>;

/** Per-request outcome counts, and where the full per-request summary is kept. */
export const BatchRequestSummary = z.object({
  succeeded: z.number().int(),
  failed: z.number().int(),
  /** Never ran: the batch expired or was cancelled first. */
  notRun: z.number().int(),
  byErrorCode: z.record(z.string(), z.number().int()),
  /** A JSONL of `{custom_id, ok, status_code?, error_code?}` for every request, in the artifact store. */
  perRequestUri: z.string(),
  /** The first few failures, for a glance; the rest are in perRequestUri. */
  sampleFailures: z.array(
    z.object({ custom_id: z.string(), code: z.string().optional(), message: z.string().optional() }),
  ),
});
export type BatchRequestSummary = z.infer<typeof BatchRequestSummary>;

export const BatchJobResult = z
  .object({
    batchId: z.string(),
    /** True when the run followed a batch created elsewhere (input `attach`) instead of creating one. */
    attached: z.literal(true).optional(),
    inputFileId: z.string(),
    outcome: z.enum(BATCH_OUTCOMES),
    /** The platform's final status. */
    status: z.string(),
    /** Who ended it early: the window, an operator's Update, or nobody. */
    cancelledBy: z.enum(['window', 'update']).optional(),
    /** The reason given with the cancelBatch Update. */
    cancelReason: z.string().optional(),
    requestCounts: RequestCounts,
    output: KeptBatchFile.optional(),
    errors: KeptBatchFile.optional(),
    summary: BatchRequestSummary.optional(),
    createdAt: z.string(),
    windowEndsAt: z.string(),
    endedAt: z.string(),
    polls: z.number().int(),
    /** Over 1: an ambiguous create was resolved by looking the batch up; 0 for an attached batch. */
    createAttempts: z.number().int(),
    /** The create taken from an earlier run after a reset (docs/retries.md#a-reset-never-pays-twice). */
    resumed: z.array(Resumed).optional(),
  })
  .meta({ title: 'batchJob result' });
export type BatchJobResult = z.infer<typeof BatchJobResult>;

/** batchJob's business status: its own steps, the batch's status as reported, and its final one set as its own. */
type BatchJobStep = 'STARTING' | 'ATTACHING' | 'UPLOADING' | 'CREATING' | 'KEEPING_OUTPUTS';
export type BatchJobOwnStatus = BatchJobStep | Exclude<BatchStatus, 'VALIDATING' | 'PROGRESS'>;
export type BatchJobStatus = BatchJobOwnStatus | BatchStatus | PlatformReportedStatus;

export interface BatchProgress {
  status: BatchJobStatus;
  /** After a reset: the earlier run whose create this run's batch came from. */
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

/** What the `cancelBatch` Update answers: the batch's final state. */
export type CancelBatchResult = Pick<BatchObservation, 'batchId' | 'status' | 'requestCounts'>;

/** What the batch poll activity reports at checkpoints, and in its StillRunning failure between them. */
export const BatchObservation = z.object({
  batchId: z.string(),
  status: z.string(),
  requestCounts: RequestCounts,
  outputFileId: z.string().optional(),
  errorFileId: z.string().optional(),
  polls: z.number().int(),
  observedAt: z.number(),
  nextPollAt: z.number().optional(),
  /** The gap the next poll follows (it grows). */
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
  queries: {
    /** Status, request counts, polls, next poll time and the window's end. */
    batchProgress: query<BatchProgress>('batchProgress'),
  },
  updates: {
    /** Cancels the platform batch and answers its final state; refused once the batch has ended. */
    cancelBatch: update<CancelBatchResult, [{ reason?: string }]>('cancelBatch'),
  },
});
export const batchProgressQuery = batchJob.queries.batchProgress;
export const cancelBatchUpdate = batchJob.updates.cancelBatch;
