// Turns the input file's lines into the emulator's plan for each request: its token usage, its reply
// and whether it fails. Decided once at create, so counters, output files and the bill always agree.
import { type BatchEndpoint, BatchInputLine, jsonlLines, utf8Length } from '@platform-ops/client';
import { draw } from '../hash';

/** A request whose message content or prompt holds this text fails (status 400), whatever the rate. */
const REQUEST_FAIL_MARKER = '[emulator:fail]';

interface RequestFailure {
  statusCode: number;
  code: string;
  message: string;
}

export interface PlannedRequest {
  customId: string;
  model: string;
  inputTokens: number;
  outputTokens: number;
  reply: string;
  finishReason: 'stop' | 'length';
  /** Set when the request fails. */
  failure?: RequestFailure;
}

/** Rough tokenizer: about 4 bytes of UTF-8 per token, at least 1. */
const estimateTokens = (text: string): number => Math.max(1, Math.ceil(utf8Length(text) / 4));

/** The text a model would read: every message's text content, or the prompt. */
function promptText(body: Record<string, unknown>, endpoint: BatchEndpoint): string {
  if (endpoint === '/v1/completions') return textOf(body.prompt);
  const messages = Array.isArray(body.messages) ? (body.messages as unknown[]) : [];
  return messages
    .map((m) => (m !== null && typeof m === 'object' ? textOf((m as { content?: unknown }).content) : ''))
    .join('\n');
}

/** Content may be a string, a list of strings (prompt) or of parts `{type: "text", text}` (messages). */
function textOf(value: unknown): string {
  if (typeof value === 'string') return value;
  if (Array.isArray(value)) return value.map(textOf).join('\n');
  if (value !== null && typeof value === 'object') {
    const text = (value as { text?: unknown }).text;
    return typeof text === 'string' ? text : '';
  }
  return '';
}

/** The reply's token cap from max_completion_tokens / max_tokens, if a positive integer is given. */
function tokenCap(body: Record<string, unknown>): number | undefined {
  for (const key of ['max_completion_tokens', 'max_tokens']) {
    const v = body[key];
    if (typeof v === 'number' && Number.isInteger(v) && v > 0) return v;
  }
  return undefined;
}

/**
 * Plans every request of an input file that batchInputProblems accepted for `endpoint` (so each line
 * parses). Failures: the marker first, then a draw on custom_id against `requestFailureRate`.
 */
export function planRequests(jsonl: string, endpoint: BatchEndpoint, requestFailureRate: number): PlannedRequest[] {
  return jsonlLines(jsonl).map(({ text }) => {
    const line = BatchInputLine.parse(JSON.parse(text));
    const body = line.body;
    const prompt = promptText(body, endpoint);
    let reply = `Emulated response to ${line.custom_id}.`;
    let outputTokens = estimateTokens(reply);
    let finishReason: PlannedRequest['finishReason'] = 'stop';
    const cap = tokenCap(body);
    if (cap !== undefined && cap < outputTokens) {
      outputTokens = cap;
      reply = reply.slice(0, cap * 4);
      finishReason = 'length';
    }
    const planned: PlannedRequest = {
      customId: line.custom_id,
      model: body.model,
      inputTokens: estimateTokens(prompt),
      outputTokens,
      reply,
      finishReason,
    };
    if (prompt.includes(REQUEST_FAIL_MARKER)) {
      planned.failure = {
        statusCode: 400,
        code: 'emulator_forced_failure',
        message: `The request holds the marker ${REQUEST_FAIL_MARKER}, so the emulator failed it.`,
      };
    } else if (draw(`request:${line.custom_id}`) < requestFailureRate) {
      planned.failure = {
        statusCode: 500,
        code: 'server_error',
        message: 'The model failed to process this request (emulated, requestFailureRate).',
      };
    }
    return planned;
  });
}

/** failuresBefore[k] = failing requests among the first k; what the state derivation counts with. */
export function failurePrefix(requests: ReadonlyArray<PlannedRequest>): Uint32Array {
  const prefix = new Uint32Array(requests.length + 1);
  requests.forEach((r, i) => {
    prefix[i + 1] = prefix[i] + (r.failure ? 1 : 0);
  });
  return prefix;
}
