// The batch emulator's state: files, batches and settings, per user. Batch states are derived on read
// (state.ts); the side effects of a batch's end (output and error files, the charge) are applied
// exactly once, by whichever comes first: a read of the batch or settleDue() (which the routes' timer
// calls, so a batch nobody polls is still billed).
import {
  BATCH_COMPLETION_WINDOW,
  type BatchEndpoint,
  batchInputProblems,
  jsonlLines,
  type ValidationIssue,
} from '@platform-ops/client';
import type { BatchEnv, Caller, ChargeInput } from '../types';
import { batchObject, type BatchObject } from './batch-object';
import { BatchApiError } from './errors';
import { fileObject, FileStore, type FileObjectBody } from './files';
import { draw } from '../hash';
import { failurePrefix, planRequests } from './requests';
import { settleBatch, type BatchRecord } from './settlement';
import {
  type BatchPlan,
  type BatchSettings,
  DEFAULT_BATCH_SETTINGS,
  mergeSettings,
  planFor,
  type BatchSettingsUpdate,
} from './settings';
import { deriveState, endOf, isCancellable, type BatchState } from './state';

export type { BatchSettings, BatchSettingsUpdate } from './settings';

export interface CreateBatchInput {
  input_file_id: string;
  endpoint: BatchEndpoint;
  completion_window?: typeof BATCH_COMPLETION_WINDOW;
  metadata?: Record<string, string>;
}

export interface BatchList {
  object: 'list';
  data: BatchObject[];
  first_id: string | null;
  last_id: string | null;
  has_more: boolean;
}

/** The admin/debug view of one batch: the public object plus the emulator's plan and bookkeeping. */
export interface BatchDebugView {
  batch: BatchObject;
  ownerUserId: string;
  model: string;
  plan: BatchPlan;
  /** Where the batch ends and when (emulated Unix ms), as planned now. */
  end: BatchState['end'];
  /** custom_ids of the requests planned to fail. */
  failingCustomIds: string[];
  settled: boolean;
  charge?: ChargeInput;
  chargeError?: string;
}

const DEFAULT_LIST_LIMIT = 20;

export class BatchStore {
  private readonly initialSettings: BatchSettings;
  private current: BatchSettings;
  private readonly files = new FileStore();
  /** Insertion order is creation order (list pages newest first from it). */
  private readonly batches = new Map<string, BatchRecord>();
  /** Batches whose end has not been settled yet. */
  private readonly unsettled = new Set<string>();

  constructor(
    private readonly env: BatchEnv,
    settings: Partial<BatchSettings> = {},
  ) {
    this.initialSettings = mergeSettings(DEFAULT_BATCH_SETTINGS, settings);
    this.current = { ...this.initialSettings };
  }

  get settings(): Readonly<BatchSettings> {
    return { ...this.current };
  }

  /**
   * Changes settings for batches created from now on (a running batch keeps the plan it was created
   * with). Throws a RangeError naming each bad field; returns the new settings.
   */
  updateSettings(partial: BatchSettingsUpdate): Readonly<BatchSettings> {
    this.current = mergeSettings(this.current, partial);
    return this.settings;
  }

  /** Forgets every file and batch and restores the settings given to the constructor. */
  reset(): void {
    this.files.clear();
    this.batches.clear();
    this.unsettled.clear();
    this.current = { ...this.initialSettings };
  }

  // ---- files ----

  /** Stores an uploaded input file after checking it (without an endpoint: that comes at create). */
  uploadFile(caller: Caller, upload: { filename: string; content: string }): FileObjectBody {
    const issues = batchInputProblems(upload.content);
    if (issues.length > 0) throw BatchApiError.invalid(issues);
    const now = this.env.now();
    const file = this.files.add({
      id: this.env.newId('file'),
      ownerUserId: caller.userId,
      filename: upload.filename,
      purpose: 'batch',
      content: upload.content,
      createdAt: now,
      expiresAt: now + this.current.inputFileRetentionMs,
      totalRequests: jsonlLines(upload.content).length,
    });
    return fileObject(file);
  }

  listFiles(caller: Caller, purpose?: string): FileObjectBody[] {
    this.settleDue();
    return this.files.list(caller.userId, this.env.now(), purpose).map(fileObject);
  }

  getFile(caller: Caller, id: string): FileObjectBody {
    return fileObject(this.liveFile(caller, id));
  }

  fileContent(caller: Caller, id: string): string {
    return this.liveFile(caller, id).content;
  }

  deleteFile(caller: Caller, id: string): { id: string; object: 'file'; deleted: true } {
    this.settleDue();
    if (!this.files.delete(id, caller.userId, this.env.now())) throw BatchApiError.fileNotFound(id);
    return { id, object: 'file', deleted: true };
  }

  private liveFile(caller: Caller, id: string) {
    // Output files appear when a batch ends: settle first so a file id just read from a batch resolves.
    this.settleDue();
    const file = this.files.get(id, caller.userId, this.env.now());
    if (!file) throw BatchApiError.fileNotFound(id);
    return file;
  }

  // ---- batches ----

  createBatch(caller: Caller, input: CreateBatchInput): BatchObject {
    const now = this.env.now();
    const file = this.files.get(input.input_file_id, caller.userId, now);
    if (!file) {
      throw new BatchApiError(404, 'FILE_NOT_FOUND', `input_file_id: file ${input.input_file_id} not found`);
    }
    if (file.purpose !== 'batch') {
      throw BatchApiError.invalid([
        { field: 'input_file_id', rule: `must be a file uploaded with purpose "batch" (is "${file.purpose}")` },
      ]);
    }
    // The upload could not check the bodies against the endpoint; now it is known.
    const issues: ValidationIssue[] = batchInputProblems(file.content, input.endpoint);
    issues.push(...planFor(this.current, input.metadata, 1).issues);
    if (issues.length > 0) throw BatchApiError.invalid(issues);
    // The whole-batch failure draw hangs on the id, so the id is only taken once the batch is accepted.
    const id = this.env.newId('batch');
    const { plan } = planFor(this.current, input.metadata, draw(`batch:${id}`));

    const requests = planRequests(file.content, input.endpoint, plan.requestFailureRate);
    const record: BatchRecord = {
      id,
      caller,
      endpoint: input.endpoint,
      inputFileId: file.id,
      metadata: input.metadata ?? null,
      model: requests[0]?.model ?? '',
      plan,
      requests,
      timeline: { createdAt: now, plan, total: requests.length, failuresBefore: failurePrefix(requests) },
    };
    this.batches.set(id, record);
    this.unsettled.add(id);
    return this.objectAt(record, now);
  }

  getBatch(caller: Caller, id: string): BatchObject {
    return this.objectAt(this.ownBatch(caller, id), this.env.now());
  }

  /**
   * Cancels a VALIDATING or PROGRESS batch: work stops now, CANCELLING for cancellingMs, then
   * CANCELLED. Idempotent for a batch already CANCELLING or CANCELLED (a retried cancel succeeds);
   * 400 BATCH_ALREADY_FINISHED for COMPLETED, FAILED and EXPIRED.
   */
  cancelBatch(caller: Caller, id: string): BatchObject {
    const record = this.ownBatch(caller, id);
    const now = this.env.now();
    const state = this.settleIfDue(record, now);
    if (state.status === 'CANCELLING' || state.status === 'CANCELLED') return this.objectAt(record, now);
    if (!isCancellable(state.status)) {
      throw new BatchApiError(
        400,
        'BATCH_ALREADY_FINISHED',
        `batch ${id} is already ${state.status}; only VALIDATING or PROGRESS batches can be cancelled`,
      );
    }
    record.timeline.cancelRequestedAt = now;
    return this.objectAt(record, now);
  }

  /** The caller's batches, newest first, `limit` at a time after the batch `after`. */
  listBatches(caller: Caller, query: { after?: string; limit?: number }): BatchList {
    const now = this.env.now();
    const mine = [...this.batches.values()].filter((b) => b.caller.userId === caller.userId).reverse();
    let start = 0;
    if (query.after !== undefined) {
      const at = mine.findIndex((b) => b.id === query.after);
      if (at < 0) throw BatchApiError.invalid([{ field: 'after', rule: `must be the id of one of your batches` }]);
      start = at + 1;
    }
    const page = mine.slice(start, start + (query.limit ?? DEFAULT_LIST_LIMIT));
    const data = page.map((b) => this.objectAt(b, now));
    return {
      object: 'list',
      data,
      first_id: data[0]?.id ?? null,
      last_id: data[data.length - 1]?.id ?? null,
      has_more: start + page.length < mine.length,
    };
  }

  /** Settles every batch whose end has come; returns how many it settled. */
  settleDue(): number {
    const now = this.env.now();
    let settled = 0;
    for (const id of this.unsettled) {
      const record = this.batches.get(id);
      if (!record) continue;
      if (endOf(record.timeline).at <= now) {
        this.settle(record);
        settled++;
      }
    }
    return settled;
  }

  /** Admin/debug: any batch by id, whoever owns it; undefined if unknown. */
  view(batchId: string): BatchDebugView | undefined {
    const record = this.batches.get(batchId);
    if (!record) return undefined;
    const now = this.env.now();
    const state = this.settleIfDue(record, now);
    return {
      batch: this.objectAt(record, now),
      ownerUserId: record.caller.userId,
      model: record.model,
      plan: record.plan,
      end: state.end,
      failingCustomIds: record.requests.filter((r) => r.failure).map((r) => r.customId),
      settled: record.settlement !== undefined,
      charge: record.settlement?.charge,
      chargeError: record.settlement?.chargeError,
    };
  }

  private ownBatch(caller: Caller, id: string): BatchRecord {
    const record = this.batches.get(id);
    // Someone else's batch is answered like an unknown one: ids must not leak across accounts.
    if (!record || record.caller.userId !== caller.userId) throw BatchApiError.batchNotFound(id);
    return record;
  }

  private objectAt(record: BatchRecord, now: number): BatchObject {
    const state = this.settleIfDue(record, now);
    const s = record.settlement;
    return batchObject(
      {
        id: record.id,
        endpoint: record.endpoint,
        inputFileId: record.inputFileId,
        createdAt: record.timeline.createdAt,
        createdBy: record.caller.userId,
        createdByKeyId: record.caller.apiKeyId,
        metadata: record.metadata,
        total: record.requests.length,
        outputFileId: s?.outputFileId ?? '',
        errorFileId: s?.errorFileId ?? '',
        errors: s?.errors ?? '',
      },
      state,
    );
  }

  private settleIfDue(record: BatchRecord, now: number): BatchState {
    const state = deriveState(record.timeline, now);
    if (!record.settlement && state.end.at <= now) this.settle(record);
    return state;
  }

  private settle(record: BatchRecord): void {
    settleBatch(record, {
      env: this.env,
      files: this.files,
      unsettled: this.unsettled,
      outputFileRetentionMs: this.current.outputFileRetentionMs,
    });
  }
}
