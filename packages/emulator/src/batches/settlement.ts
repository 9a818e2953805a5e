// A batch as the store keeps it, and the end of a batch: its output and error files and its one
// charge, applied exactly once. Separate from store.ts, which answers the files and batches APIs.
import { BATCH_COMPLETION_WINDOW, type BatchEndpoint } from '@platform-ops/client';
import type { BatchEnv, Caller, ChargeInput } from '../types';
import type { FileStore } from './files';
import { billableUsage, renderFiles } from './outputs';
import { batchAmount, batchProductId } from './pricing';
import type { PlannedRequest } from './requests';
import type { BatchPlan } from './settings';
import { deriveState, endOf, type EndStatus, type Timeline } from './state';

interface Settlement {
  status: EndStatus;
  /** Emulated Unix ms of the end. */
  at: number;
  outputFileId: string;
  errorFileId: string;
  errors: string;
  /** The charge made for this batch, if any (at most one, ever). */
  charge?: ChargeInput;
  /** Why env.charge threw, if it did: the batch still ends, the bill is just missing. */
  chargeError?: string;
}

export interface BatchRecord {
  id: string;
  caller: Caller;
  endpoint: BatchEndpoint;
  inputFileId: string;
  metadata: Record<string, string> | null;
  model: string;
  plan: BatchPlan;
  requests: PlannedRequest[];
  timeline: Timeline;
  settlement?: Settlement;
}

/** What settling a batch needs of the store. */
export interface SettleContext {
  env: BatchEnv;
  files: FileStore;
  /** Ids of the store's batches whose end is not settled yet; a settled batch leaves it. */
  unsettled: Set<string>;
  /** Emulated ms the output and error files are kept after the end. */
  outputFileRetentionMs: number;
}

/** Applies the end of a batch: its files, its one charge. Never runs twice for a batch. */
export function settleBatch(record: BatchRecord, ctx: SettleContext): void {
  if (record.settlement) return;
  const end = endOf(record.timeline);
  // The state at the end instant: what ran, and so what is delivered and billed.
  const { finished, failed } = deriveState(record.timeline, end.at);
  const total = record.requests.length;
  const settlement: Settlement = { status: end.status, at: end.at, outputFileId: '', errorFileId: '', errors: '' };
  record.settlement = settlement;
  ctx.unsettled.delete(record.id);

  if (end.status === 'FAILED') {
    settlement.errors = record.plan.failReason ?? 'validation failed';
    return;
  }
  const rendered = renderFiles(
    { batchId: record.id, endpoint: record.endpoint, createdSec: Math.floor(end.at / 1000) },
    record.requests,
    finished,
    end.status === 'EXPIRED' ? 'batch_expired' : 'batch_cancelled',
  );
  const expiresAt = end.at + ctx.outputFileRetentionMs;
  const addFile = (kind: 'output' | 'error', content: string, lines: number): string =>
    ctx.files.add({
      id: ctx.env.newId('file'),
      ownerUserId: record.caller.userId,
      filename: `${record.id}_${kind}.jsonl`,
      purpose: 'batch_output',
      content,
      createdAt: end.at,
      expiresAt,
      totalRequests: lines,
    }).id;
  if (rendered.outputLines > 0) settlement.outputFileId = addFile('output', rendered.output, rendered.outputLines);
  if (rendered.errorLines > 0) settlement.errorFileId = addFile('error', rendered.errors, rendered.errorLines);

  const unrun = total - finished;
  if (end.status === 'EXPIRED') {
    settlement.errors = `${unrun} of ${total} requests did not finish within the ${BATCH_COMPLETION_WINDOW} completion window`;
  } else if (failed > 0) {
    settlement.errors = `${failed} of ${total} requests failed; see the error file`;
  }
  chargeBatch(record, settlement, finished, ctx.env);
}

function chargeBatch(record: BatchRecord, settlement: Settlement, finished: number, env: BatchEnv): void {
  const usage = billableUsage(record.requests, finished);
  if (usage.requests === 0) return;
  const charge: ChargeInput = {
    caller: record.caller,
    productId: batchProductId(record.model),
    productName: record.model,
    category: 'llm',
    amount: batchAmount(record.model, usage.inputTokens, usage.outputTokens),
    usage: { billNum0: String(usage.inputTokens), billNum1: String(usage.outputTokens) },
  };
  settlement.charge = charge;
  try {
    env.charge(charge);
  } catch (err) {
    // The work is done and delivered; a refused charge must not undo that or break the read.
    settlement.chargeError = err instanceof Error ? err.message : String(err);
  }
}
