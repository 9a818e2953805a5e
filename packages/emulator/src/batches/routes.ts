// HTTP routes of the files and batches APIs (platform-notes, "Batch"), in their own encapsulated
// fastify scope: @fastify/multipart is registered there, so it parses only these routes' uploads and
// can never clash with a registration elsewhere in the server.
import multipart from '@fastify/multipart';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { BATCH_MAX_BYTES, CreateBatchRequest, type ValidationIssue } from '@platform-ops/client';
import { parseOr400, sendInvalid, sendPlatformError } from '../http';
import type { BatchRouteDeps } from './deps';
import { BatchApiError } from './errors';

/** Real milliseconds between sweeps that settle batches nobody polls (so they still get billed). */
const SETTLE_INTERVAL_MS = 250;

/** Headroom over 100 MB so a slightly larger file still gets the precise "at most 100 MB" answer. */
const UPLOAD_LIMIT_BYTES = BATCH_MAX_BYTES + 1024 * 1024;

const ListBatchesQuery = z.object({
  after: z.string().min(1).optional(),
  limit: z.coerce.number().int().min(1).max(100).optional(),
});
const ListFilesQuery = z.object({ purpose: z.string().min(1).optional() });

type IdRoute = { Params: { id: string } };

/** Sends `run()`'s result, or the platform error body for a BatchApiError. */
function answer(reply: FastifyReply, run: () => unknown): FastifyReply {
  try {
    return reply.send(run());
  } catch (err) {
    if (!(err instanceof BatchApiError)) throw err;
    if (err.issues) return sendInvalid(reply, err.issues);
    return sendPlatformError(reply, err.status, err.reason, err.message);
  }
}

/** Reads the multipart upload: the `file` part's text and the `purpose` field. */
async function readUpload(
  request: FastifyRequest,
): Promise<{ filename?: string; content?: string; purpose?: string; issues: ValidationIssue[] }> {
  const issues: ValidationIssue[] = [];
  let filename: string | undefined;
  let content: string | undefined;
  let purpose: string | undefined;
  for await (const part of request.parts()) {
    if (part.type === 'file') {
      const data = await part.toBuffer();
      if (part.fieldname !== 'file') {
        issues.push({ field: part.fieldname, rule: 'is not a known field (the JSONL goes in "file")' });
        continue;
      }
      filename = part.filename || 'batch-input.jsonl';
      try {
        content = new TextDecoder('utf-8', { fatal: true }).decode(data);
      } catch {
        issues.push({ field: 'file', rule: 'must be UTF-8 text (JSONL)' });
      }
    } else if (part.fieldname === 'purpose') {
      purpose = typeof part.value === 'string' ? part.value : String(part.value);
    }
  }
  return { filename, content, purpose, issues };
}

/** Answers a multipart parser error (too large, too many parts, not multipart) as a platform error. */
function sendMultipartError(reply: FastifyReply, err: unknown): FastifyReply {
  const code = (err as { code?: unknown }).code;
  if (code === 'FST_REQ_FILE_TOO_LARGE') {
    return sendPlatformError(reply, 413, 'FILE_TOO_LARGE', 'file must be at most 100 MB');
  }
  const message = err instanceof Error ? err.message : String(err);
  return sendInvalid(reply, [{ field: 'file', rule: `could not be read from the multipart body (${message})` }]);
}

export async function batchRoutesPlugin(scope: FastifyInstance, deps: BatchRouteDeps): Promise<void> {
  const { store, paths } = deps;
  await scope.register(multipart, {
    limits: { fileSize: UPLOAD_LIMIT_BYTES, files: 1, fields: 10, parts: 12 },
  });

  const timer = setInterval(() => {
    try {
      store.settleDue();
    } catch (err) {
      scope.log.error({ err }, 'settling due batches failed');
    }
  }, SETTLE_INTERVAL_MS);
  // The sweep must neither keep the process alive nor outlive the server.
  timer.unref();
  scope.addHook('onClose', (_instance, done) => {
    clearInterval(timer);
    done();
  });

  // ---- files ----

  scope.post(paths.files, async (request, reply) => {
    if (!request.isMultipart()) {
      return sendInvalid(reply, [{ field: '', rule: 'must be multipart/form-data with "file" and "purpose"' }]);
    }
    let upload: Awaited<ReturnType<typeof readUpload>>;
    try {
      upload = await readUpload(request);
    } catch (err) {
      return sendMultipartError(reply, err);
    }
    const issues = [...upload.issues];
    if (upload.content === undefined && !issues.some((i) => i.field === 'file')) {
      issues.push({ field: 'file', rule: 'is required' });
    }
    if (upload.purpose === undefined) issues.push({ field: 'purpose', rule: 'is required' });
    else if (upload.purpose !== 'batch') issues.push({ field: 'purpose', rule: 'must be one of "batch"' });
    if (issues.length > 0 || upload.content === undefined) return sendInvalid(reply, issues);
    const content = upload.content;
    return answer(reply, () =>
      store.uploadFile(request.caller, { filename: upload.filename ?? 'batch-input.jsonl', content }),
    );
  });

  scope.get(paths.files, (request, reply) => {
    const query = parseOr400(reply, ListFilesQuery, request.query);
    if (!query) return reply;
    return answer(reply, () => ({ object: 'list', data: store.listFiles(request.caller, query.purpose) }));
  });

  scope.get<IdRoute>(`${paths.files}/:id`, (request, reply) =>
    answer(reply, () => store.getFile(request.caller, request.params.id)),
  );

  scope.delete<IdRoute>(`${paths.files}/:id`, (request, reply) =>
    answer(reply, () => store.deleteFile(request.caller, request.params.id)),
  );

  scope.get<IdRoute>(`${paths.files}/:id/content`, (request, reply) => {
    reply.type('application/jsonl; charset=utf-8');
    return answer(reply, () => store.fileContent(request.caller, request.params.id));
  });

  // ---- batches ----

  scope.post(paths.batches, (request, reply) => {
    const body = parseOr400(reply, CreateBatchRequest, request.body);
    if (!body) return reply;
    return answer(reply, () => store.createBatch(request.caller, body));
  });

  scope.get(paths.batches, (request, reply) => {
    const query = parseOr400(reply, ListBatchesQuery, request.query);
    if (!query) return reply;
    return answer(reply, () => store.listBatches(request.caller, query));
  });

  scope.get<IdRoute>(`${paths.batches}/:id`, (request, reply) =>
    answer(reply, () => store.getBatch(request.caller, request.params.id)),
  );

  scope.post<IdRoute>(`${paths.batches}/:id/cancel`, (request, reply) =>
    answer(reply, () => store.cancelBatch(request.caller, request.params.id)),
  );
}
