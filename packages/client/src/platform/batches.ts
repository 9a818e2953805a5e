import { z } from 'zod';
import { tryParse, type ValidationIssue } from '../validation';
import { utf8Length } from './decision';

export const BATCH_ENDPOINTS = ['/v1/chat/completions', '/v1/completions'] as const;
export type BatchEndpoint = (typeof BATCH_ENDPOINTS)[number];
export const BATCH_COMPLETION_WINDOW = '48h';
export const BATCH_WINDOW_HOURS = 48;
const BATCH_MAX_REQUESTS = 50_000;
export const BATCH_MAX_BYTES = 100 * 1024 * 1024;

export const BATCH_STATUSES = [
  'VALIDATING',
  'PROGRESS',
  'COMPLETED',
  'FAILED',
  'EXPIRED',
  'CANCELLING',
  'CANCELLED',
] as const;
export type BatchStatus = (typeof BATCH_STATUSES)[number];
const TERMINAL_BATCH_STATUSES: readonly string[] = ['COMPLETED', 'FAILED', 'EXPIRED', 'CANCELLED'];
export const isTerminalBatchStatus = (status: string): boolean => TERMINAL_BATCH_STATUSES.includes(status);

export const BatchEndpointSchema = z.enum(BATCH_ENDPOINTS);

export const BatchInputLine = z.strictObject({
  custom_id: z.string().min(1),
  method: z.literal('POST').optional(),
  url: BatchEndpointSchema.optional(),
  body: z.looseObject({ model: z.string().min(1) }),
});
export type BatchInputLine = z.infer<typeof BatchInputLine>;

function endpointMismatch(line: BatchInputLine, endpoint: BatchEndpoint): string | undefined {
  if (line.url !== undefined && line.url !== endpoint) return `url ${line.url} does not match the endpoint ${endpoint}`;
  if (endpoint === '/v1/chat/completions' && !Array.isArray(line.body.messages)) {
    return 'body.messages is required for /v1/chat/completions';
  }
  if (endpoint === '/v1/completions' && line.body.prompt === undefined) {
    return 'body.prompt is required for /v1/completions';
  }
  return undefined;
}

export function jsonlLines(jsonl: string): Array<{ lineNo: number; text: string }> {
  return jsonl
    .split('\n')
    .map((text, i) => ({ lineNo: i + 1, text: text.trim() }))
    .filter((l) => l.text !== '');
}

export function batchInputProblems(jsonl: string, endpoint?: BatchEndpoint, maxIssues = 20): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  const bytes = utf8Length(jsonl);
  if (bytes > BATCH_MAX_BYTES) {
    issues.push({ field: 'file', rule: `must be at most 100 MB (is ${(bytes / 2 ** 20).toFixed(1)} MB)` });
  }
  const lines = jsonlLines(jsonl);
  if (lines.length === 0) issues.push({ field: 'file', rule: 'must hold at least one request line' });
  if (lines.length > BATCH_MAX_REQUESTS) {
    issues.push({ field: 'file', rule: `must hold at most ${BATCH_MAX_REQUESTS} requests (has ${lines.length})` });
  }
  const seen = new Map<string, number>();
  let model: { name: string; lineNo: number } | undefined;
  for (const { lineNo, text } of lines) {
    if (issues.length >= maxIssues) break;
    const at = `line ${lineNo}`;
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      issues.push({ field: at, rule: 'must be a JSON object' });
      continue;
    }
    const parsed = tryParse(BatchInputLine, json);
    if (!parsed.ok) {
      for (const i of parsed.issues) issues.push({ ...i, field: i.field ? `${at}.${i.field}` : at });
      continue;
    }
    const line = parsed.value;
    const first = seen.get(line.custom_id);
    if (first !== undefined) {
      issues.push({ field: `${at}.custom_id`, rule: `must be unique ("${line.custom_id}" is also on line ${first})` });
    } else seen.set(line.custom_id, lineNo);
    if (!model) model = { name: line.body.model, lineNo };
    else if (model.name !== line.body.model) {
      issues.push({
        field: `${at}.body.model`,
        rule: `must be the batch's single model "${model.name}" (from line ${model.lineNo}), not "${line.body.model}"`,
      });
    }
    if (endpoint) {
      const mismatch = endpointMismatch(line, endpoint);
      if (mismatch) issues.push({ field: at, rule: mismatch });
    }
  }
  return issues.slice(0, maxIssues);
}

export function toJsonl(lines: ReadonlyArray<unknown>): string {
  return lines.map((l) => JSON.stringify(l)).join('\n') + '\n';
}

export const UploadBatchFileRequest = z.strictObject({
  content: z.string(),
  filename: z.string().min(1).max(255).default('batch-input.jsonl'),
  endpoint: BatchEndpointSchema.optional(),
});
export type UploadBatchFileRequest = z.input<typeof UploadBatchFileRequest>;

export const FileObject = z.looseObject({
  id: z.string(),
  bytes: z.number().optional(),
  metadata: z.looseObject({ total_requests: z.number().optional() }).nullish(),
});

export const FileIdRequest = z.strictObject({ fileId: z.string().min(1) });

export const CreateBatchRequest = z.strictObject({
  input_file_id: z.string().min(1),
  endpoint: BatchEndpointSchema,
  completion_window: z.literal(BATCH_COMPLETION_WINDOW).optional(),
  metadata: z.record(z.string(), z.string()).optional(),
});
export type CreateBatchRequest = z.input<typeof CreateBatchRequest>;

const Count = z.number().int().min(0);

export const Batch = z.looseObject({
  id: z.string(),
  endpoint: z.string(),
  input_file_id: z.string(),
  output_file_id: z.string().nullish(),
  error_file_id: z.string().nullish(),
  /** Upper case on the platform, but one documented example is lower case: normalised here. */
  status: z.string().transform((s) => s.toUpperCase()),
  created_at: z.union([z.string(), z.number()]),
  metadata: z.record(z.string(), z.unknown()).nullish(),
  request_counts: z.looseObject({ total: Count, completed: Count, failed: Count }),
});
export type Batch = z.infer<typeof Batch>;

export const BatchIdRequest = z.strictObject({ batchId: z.string().min(1) });

export const ListBatchesRequest = z.strictObject({
  after: z.string().min(1).optional(),
  limit: z.number().int().min(1).max(100).optional(),
});
export type ListBatchesRequest = z.input<typeof ListBatchesRequest>;

export const ListBatchesResponse = z.looseObject({
  object: z.string().optional(),
  data: z.array(Batch),
  first_id: z.string().nullish(),
  last_id: z.string().nullish(),
  has_more: z.boolean(),
});

export const BatchOutputLine = z.looseObject({
  id: z.string().optional(),
  custom_id: z.string(),
  response: z.looseObject({ status_code: z.number(), request_id: z.string().optional(), body: z.unknown() }).nullish(),
  error: z.looseObject({ code: z.string().optional(), message: z.string().optional() }).nullish(),
});
export type BatchOutputLine = z.infer<typeof BatchOutputLine>;
