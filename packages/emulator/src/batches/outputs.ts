// The lines of a finished batch's output and error files. Envelope from platform-notes:
// `{id, custom_id, response: {status_code, request_id, body}, error}`. Every request of the input gets
// exactly one line in one of the two files: successes in the output file; failures, and requests the
// batch never ran (expired or cancelled), in the error file. Ids are hashes of batch id and custom_id,
// so rendering twice gives the same text.
import type { BatchEndpoint } from '@platform-ops/client';
import { tag } from '../hash';
import type { PlannedRequest } from './requests';

/** Why a request never ran. */
type UnfinishedCode = 'batch_expired' | 'batch_cancelled';

const UNFINISHED_MESSAGE: Record<UnfinishedCode, string> = {
  batch_expired: 'This request could not be executed before the completion window expired.',
  batch_cancelled: 'This request was not executed because the batch was cancelled.',
};

interface RenderedFiles {
  /** JSONL, one line per successful request ('' if none). */
  output: string;
  /** JSONL, one line per failed or unrun request ('' if none). */
  errors: string;
  outputLines: number;
  errorLines: number;
}

interface RenderContext {
  batchId: string;
  endpoint: BatchEndpoint;
  /** Unix seconds, the `created` of completion objects. */
  createdSec: number;
}

/** The completion object a successful request answers with, echoing the model, with usage. */
function completionBody(ctx: RenderContext, r: PlannedRequest): Record<string, unknown> {
  const usage = {
    prompt_tokens: r.inputTokens,
    completion_tokens: r.outputTokens,
    total_tokens: r.inputTokens + r.outputTokens,
  };
  const idTag = tag(`completion:${ctx.batchId}:${r.customId}`);
  if (ctx.endpoint === '/v1/completions') {
    return {
      id: `cmpl-${idTag}`,
      object: 'text_completion',
      created: ctx.createdSec,
      model: r.model,
      choices: [{ index: 0, text: r.reply, finish_reason: r.finishReason, logprobs: null }],
      usage,
    };
  }
  return {
    id: `chatcmpl-${idTag}`,
    object: 'chat.completion',
    created: ctx.createdSec,
    model: r.model,
    choices: [
      { index: 0, message: { role: 'assistant', content: r.reply }, finish_reason: r.finishReason, logprobs: null },
    ],
    usage,
  };
}

function line(ctx: RenderContext, r: PlannedRequest, ran: boolean, unfinished: UnfinishedCode): string {
  const id = `batch_req_${tag(`line:${ctx.batchId}:${r.customId}`)}`;
  const requestId = `req_${tag(`request:${ctx.batchId}:${r.customId}`)}`;
  if (!ran) {
    const error = { code: unfinished, message: UNFINISHED_MESSAGE[unfinished] };
    return JSON.stringify({ id, custom_id: r.customId, response: null, error });
  }
  if (r.failure) {
    const { statusCode, code, message } = r.failure;
    const body = { error: { message, type: statusCode >= 500 ? 'server_error' : 'invalid_request_error', code } };
    return JSON.stringify({
      id,
      custom_id: r.customId,
      response: { status_code: statusCode, request_id: requestId, body },
      error: { code, message },
    });
  }
  return JSON.stringify({
    id,
    custom_id: r.customId,
    response: { status_code: 200, request_id: requestId, body: completionBody(ctx, r) },
    error: null,
  });
}

/**
 * Renders both files for a batch that ran its first `finished` requests; the rest are listed in the
 * error file with `unfinished` as their code.
 */
export function renderFiles(
  ctx: RenderContext,
  requests: ReadonlyArray<PlannedRequest>,
  finished: number,
  unfinished: UnfinishedCode,
): RenderedFiles {
  const output: string[] = [];
  const errors: string[] = [];
  requests.forEach((r, i) => {
    const ran = i < finished;
    (ran && !r.failure ? output : errors).push(line(ctx, r, ran, unfinished));
  });
  const jsonl = (lines: string[]) => (lines.length > 0 ? lines.join('\n') + '\n' : '');
  return { output: jsonl(output), errors: jsonl(errors), outputLines: output.length, errorLines: errors.length };
}

/** Token totals of the successful requests among the first `finished`: what the bill charges. */
export function billableUsage(
  requests: ReadonlyArray<PlannedRequest>,
  finished: number,
): { requests: number; inputTokens: number; outputTokens: number } {
  let count = 0;
  let inputTokens = 0;
  let outputTokens = 0;
  for (let i = 0; i < finished && i < requests.length; i++) {
    const r = requests[i];
    if (!r || r.failure) continue;
    count++;
    inputTokens += r.inputTokens;
    outputTokens += r.outputTokens;
  }
  return { requests: count, inputTokens, outputTokens };
}
