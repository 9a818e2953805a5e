// The typed platform client, one method per operation of the spec, as openai-node reads: each method
// checks its request with the request's schema (nothing is sent unless it passes) and holds its route.
// Its base, the transport, parses the answer leniently (unknown fields kept, documented ones typed,
// everything bounded). It hides no retries: retrying is the workflows' job.
import type { z } from 'zod';
import { loadPlatformConfig } from './config';
import { PlatformError } from './errors';
import { TEXT, Transport, type CallOptions, type TransportOptions } from './transport';
import { AsyncSubmitRequest } from '../platform/models';
import { asyncSubmitPath } from '../platform/paths';
import * as S from '../platform/schemas';
import { parseOrThrow } from '../platform/validation';

export type { CallEvent, CallOptions, TransportOptions } from './transport';

/** The request as its schema reads it, or a PlatformError 'invalid_request' (a rejection: callers are async). */
function check<Req extends z.ZodType>(operation: string, schema: Req, input: unknown): z.output<Req> {
  return parseOrThrow(schema, input, (issues) => PlatformError.invalidRequest(operation, issues));
}

const enc = encodeURIComponent;

export class PlatformClient extends Transport {
  private readonly paths = this.config.paths;

  /** A client configured from PLATFORM_BASE_URL, PLATFORM_API_KEY and the path overrides. */
  static fromEnv(env: NodeJS.ProcessEnv = process.env, options: TransportOptions = {}): PlatformClient {
    return new PlatformClient(loadPlatformConfig(env), options);
  }

  // ── GPU: templates, products, instances ─────────────────────────────────
  async listTemplates(req: S.ListTemplatesRequest = {}, opts?: CallOptions): Promise<S.ListTemplatesResponse> {
    const query = check('listTemplates', S.ListTemplatesRequest, req);
    return this.call('GET', 'listTemplates', this.paths.listTemplates, { query }, S.ListTemplatesResponse, opts);
  }

  /** Every template matching the filters, across all pages. */
  iterateTemplates(req: Omit<S.ListTemplatesRequest, 'cursor'> = {}, opts?: CallOptions): AsyncGenerator<S.Template> {
    return walkPages((cursor) => this.listTemplates({ ...req, cursor }, opts), 'next_cursor');
  }

  async listProducts(req: S.ListProductsRequest = {}, opts?: CallOptions): Promise<S.ListProductsResponse> {
    const filters = check('listProducts', S.ListProductsRequest, req);
    const query = Object.fromEntries(
      Object.entries(S.PRODUCT_FILTER_PARAMS).map(([key, name]) => [name, filters[key as keyof typeof filters]]),
    );
    return this.call('GET', 'listProducts', this.paths.listProducts, { query }, S.ListProductsResponse, opts);
  }

  /** Every product matching the filters; follows `next_cursor` when the platform pages the list. */
  iterateProducts(req: Omit<S.ListProductsRequest, 'cursor'> = {}, opts?: CallOptions): AsyncGenerator<S.Product> {
    return walkPages((cursor) => this.listProducts({ ...req, cursor }, opts), 'next_cursor');
  }

  async renewInstance(req: S.RenewInstanceRequest, opts?: CallOptions): Promise<S.EmptyResponse> {
    const { instanceId, months } = check('renewInstance', S.RenewInstanceRequest, req);
    const path = this.paths.renewInstance.replace('{instance_id}', enc(instanceId));
    return this.call('PUT', 'renewInstance', path, { json: { months } }, S.EmptyResponse, opts);
  }

  async restartInstance(req: S.InstanceActionRequest, opts?: CallOptions): Promise<S.EmptyResponse> {
    const json = check('restartInstance', S.InstanceActionRequest, req);
    return this.call('POST', 'restartInstance', this.paths.restartInstance, { json }, S.EmptyResponse, opts);
  }

  async getInstance(req: S.InstanceActionRequest, opts?: CallOptions): Promise<S.Instance> {
    const query = check('getInstance', S.InstanceActionRequest, req);
    return this.call('GET', 'getInstance', this.paths.getInstance, { query }, S.Instance, opts);
  }

  /**
   * Pays for a subscription's months, yet takes the usual timeout: a retry finds an earlier attempt's
   * instance by name (src/activities/instances/activities.ts), so a call given up on is not paid twice.
   */
  async createInstance(req: S.CreateInstanceRequest, opts?: CallOptions): Promise<S.CreateInstanceResponse> {
    const json = check('createInstance', S.CreateInstanceRequest, req);
    return this.call('POST', 'createInstance', this.paths.createInstance, { json }, S.CreateInstanceResponse, opts);
  }

  async listInstances(req: S.ListInstancesRequest = {}, opts?: CallOptions): Promise<S.ListInstancesResponse> {
    const query = check('listInstances', S.ListInstancesRequest, req);
    return this.call('GET', 'listInstances', this.paths.listInstances, { query }, S.ListInstancesResponse, opts);
  }

  /** Every instance matching the filters, across all pages. */
  iterateInstances(
    req: Omit<S.ListInstancesRequest, 'cursor'> = {},
    opts?: CallOptions,
  ): AsyncGenerator<S.ListedInstance> {
    return walkPages((cursor) => this.listInstances({ ...req, cursor }, opts), 'next_cursor');
  }

  startInstance(req: S.InstanceActionRequest, opts?: CallOptions): Promise<S.EmptyResponse> {
    return this.instanceAction('startInstance', req, opts);
  }

  stopInstance(req: S.InstanceActionRequest, opts?: CallOptions): Promise<S.EmptyResponse> {
    return this.instanceAction('stopInstance', req, opts);
  }

  deleteInstance(req: S.InstanceActionRequest, opts?: CallOptions): Promise<S.EmptyResponse> {
    return this.instanceAction('deleteInstance', req, opts);
  }

  /** Start, stop and delete: a POST of the id alone, each to its own path. */
  private async instanceAction(
    operation: 'startInstance' | 'stopInstance' | 'deleteInstance',
    req: S.InstanceActionRequest,
    opts?: CallOptions,
  ): Promise<S.EmptyResponse> {
    const json = check(operation, S.InstanceActionRequest, req);
    return this.call('POST', operation, this.paths[operation], { json }, S.EmptyResponse, opts);
  }

  // ── Async media generation: the submits are paid calls ──────────────────
  async submitImageToVideo(req: S.ImageToVideoRequest, opts?: CallOptions): Promise<S.SubmitTaskResponse> {
    const json = check('submitImageToVideo', S.ImageToVideoRequest, req);
    const path = asyncSubmitPath(this.paths.imageToVideoModel);
    return this.call('POST', 'submitImageToVideo', path, { json }, S.SubmitTaskResponse, this.paid(opts));
  }

  async submitTextToVideo(req: S.TextToVideoRequest, opts?: CallOptions): Promise<S.SubmitTaskResponse> {
    const json = check('submitTextToVideo', S.TextToVideoRequest, req);
    const path = asyncSubmitPath(this.paths.textToVideoModel);
    return this.call('POST', 'submitTextToVideo', path, { json }, S.SubmitTaskResponse, this.paid(opts));
  }

  /** Any v3 async model: POST /v3/async/<path> (src/platform/models.ts), the path checked as one segment. */
  async submitAsyncTask(req: AsyncSubmitRequest, opts?: CallOptions): Promise<S.SubmitTaskResponse> {
    const { path, body: json } = check('submitAsyncTask', AsyncSubmitRequest, req);
    return this.call('POST', 'submitAsyncTask', asyncSubmitPath(path), { json }, S.SubmitTaskResponse, this.paid(opts));
  }

  async getTaskResult(taskId: string, opts?: CallOptions): Promise<S.TaskResult> {
    const query = check('getTaskResult', S.TaskResultRequest, { task_id: taskId });
    const path = this.paths.taskResult;
    return this.call('GET', 'getTaskResult', path, { query, jsonContentType: true }, S.TaskResult, opts);
  }

  // ── Decision evaluation: a paid call ────────────────────────────────────
  async decisionEvaluation(
    req: S.DecisionEvaluationRequest,
    opts?: CallOptions,
  ): Promise<S.DecisionEvaluationResponse> {
    const json = check('decisionEvaluation', S.DecisionEvaluationRequest, req);
    const path = this.paths.decisionEvaluation;
    return this.call('POST', 'decisionEvaluation', path, { json }, S.DecisionEvaluationResponse, this.paid(opts));
  }

  // ── Batches and their files ─────────────────────────────────────────────
  /** Uploads a JSONL input file (multipart, purpose=batch), after checking every line. */
  async uploadBatchInputFile(req: S.UploadBatchFileRequest, opts?: CallOptions): Promise<S.FileObject> {
    const { content, filename, endpoint } = check('uploadBatchInputFile', S.UploadBatchFileRequest, req);
    // The platform would only fail the batch later.
    const problems = S.batchInputProblems(content, endpoint);
    if (problems.length > 0) throw PlatformError.invalidRequest('uploadBatchInputFile', problems);
    const form = new FormData();
    form.append('purpose', 'batch');
    form.append('file', new Blob([content], { type: 'application/jsonl' }), filename);
    return this.call('POST', 'uploadBatchInputFile', this.paths.files, { form }, S.FileObject, opts);
  }

  async getFile(fileId: string, opts?: CallOptions): Promise<S.FileObject> {
    const req = check('getFile', S.FileIdRequest, { fileId });
    return this.call('GET', 'getFile', `${this.paths.files}/${enc(req.fileId)}`, {}, S.FileObject, opts);
  }

  /** The raw content of a file (JSONL for batch input, output and error files). */
  async getFileContent(fileId: string, opts?: CallOptions): Promise<string> {
    const req = check('getFileContent', S.FileIdRequest, { fileId });
    return this.call('GET', 'getFileContent', `${this.paths.files}/${enc(req.fileId)}/content`, {}, TEXT, opts);
  }

  async createBatch(req: S.CreateBatchRequest, opts?: CallOptions): Promise<S.Batch> {
    const batch = check('createBatch', S.CreateBatchRequest, req);
    const json = { completion_window: S.BATCH_COMPLETION_WINDOW, ...batch };
    return this.call('POST', 'createBatch', this.paths.batches, { json }, S.Batch, opts);
  }

  async getBatch(batchId: string, opts?: CallOptions): Promise<S.Batch> {
    const req = check('getBatch', S.BatchIdRequest, { batchId });
    return this.call('GET', 'getBatch', `${this.paths.batches}/${enc(req.batchId)}`, {}, S.Batch, opts);
  }

  async cancelBatch(batchId: string, opts?: CallOptions): Promise<S.Batch> {
    const req = check('cancelBatch', S.BatchIdRequest, { batchId });
    return this.call('POST', 'cancelBatch', `${this.paths.batches}/${enc(req.batchId)}/cancel`, {}, S.Batch, opts);
  }

  async listBatches(req: S.ListBatchesRequest = {}, opts?: CallOptions): Promise<S.ListBatchesResponse> {
    const query = check('listBatches', S.ListBatchesRequest, req);
    return this.call('GET', 'listBatches', this.paths.batches, { query }, S.ListBatchesResponse, opts);
  }

  /** Every batch, newest first, across all pages. */
  iterateBatches(req: Omit<S.ListBatchesRequest, 'after'> = {}, opts?: CallOptions): AsyncGenerator<S.Batch> {
    return walkPages((after) => this.listBatches({ ...req, after }, opts), 'last_id');
  }

  // ── Account ─────────────────────────────────────────────────────────────
  async checkMemberBudget(req: S.CheckMemberBudgetRequest, opts?: CallOptions): Promise<S.CheckMemberBudgetResponse> {
    const json = check('checkMemberBudget', S.CheckMemberBudgetRequest, req);
    const path = this.paths.checkMemberBudget;
    return this.call('POST', 'checkMemberBudget', path, { json }, S.CheckMemberBudgetResponse, opts);
  }

  async listBills(req: S.BillListRequest, opts?: CallOptions): Promise<S.BillListResponse> {
    const { productName, ...rest } = check('listBills', S.BillListRequest, req);
    const query = { ...rest, [this.config.billProductNameParam]: productName };
    const path = this.paths.billList;
    return this.call('GET', 'listBills', path, { query, jsonContentType: true }, S.BillListResponse, opts);
  }

  async listQuotas(req: S.QuotaListRequest = {}, opts?: CallOptions): Promise<S.QuotaListResponse> {
    const query = check('listQuotas', S.QuotaListRequest, req);
    const path = this.paths.quotaList;
    return this.call('GET', 'listQuotas', path, { query, jsonContentType: true }, S.QuotaListResponse, opts);
  }

  /** The spec's first call: a cheap authenticated read that says whether the key works. */
  listModels(opts?: CallOptions): Promise<S.ListModelsResponse> {
    return this.call('GET', 'listModels', this.paths.listModels, {}, S.ListModelsResponse, opts);
  }

  getBalance(opts?: CallOptions): Promise<S.BalanceDetail> {
    return this.call('GET', 'getBalance', this.paths.balanceDetail, { jsonContentType: true }, S.BalanceDetail, opts);
  }

  /**
   * A call that costs money and leaves nothing to look up afterwards gets the longer paid-call
   * timeout, unless the caller gives one.
   */
  private paid(opts: CallOptions = {}): CallOptions {
    return { ...opts, timeoutMs: opts.timeoutMs ?? this.config.paidCallTimeoutMs };
  }
}

/** A list page: a GPU list's `next_cursor`, or (OpenAI-style) a batch list's `last_id`. */
interface Page<T> {
  data: T[];
  has_more?: boolean;
  next_cursor?: string;
  last_id?: string | null;
}

/** Yields every item of every page while `has_more`; stops if the platform hands back a cursor it already gave. */
async function* walkPages<T>(
  fetchPage: (cursor: string | undefined) => Promise<Page<T>>,
  cursorField: 'next_cursor' | 'last_id',
): AsyncGenerator<T> {
  const seen = new Set<string>();
  let cursor: string | undefined;
  for (;;) {
    const page = await fetchPage(cursor);
    yield* page.data;
    const next = page.has_more ? page[cursorField] : undefined;
    if (!next || seen.has(next)) return;
    seen.add(next);
    cursor = next;
  }
}
