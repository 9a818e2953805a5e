// The typed platform client, one method per operation of the spec. Each method checks its request
// with the request's schema (nothing is sent unless it passes), then says where the checked request
// goes and what it carries. The transport parses the answer leniently (unknown fields kept, documented
// ones typed, everything bounded). It hides no retries: retrying is the workflows' job.
import type { z } from 'zod';
import { loadPlatformConfig, type PlatformConfig } from './config';
import { PlatformError } from './errors';
import { TEXT, Transport, type Answer, type CallOptions, type Payload, type TransportOptions } from './transport';
import { AsyncSubmitRequest } from '../platform/models';
import { asyncSubmitPath, type PlatformPaths } from '../platform/paths';
import * as S from '../platform/schemas';
import { parseOrThrow } from '../platform/validation';

export type { CallEvent, CallOptions, TransportOptions } from './transport';

/**
 * The request as its schema reads it, or a PlatformError 'invalid_request' naming every field. Every
 * method that calls it is async, so a refusal is a rejection, like any other failure.
 */
function check<Req extends z.ZodType>(operation: string, schema: Req, input: unknown): z.output<Req> {
  return parseOrThrow(schema, input, (issues) => PlatformError.invalidRequest(operation, issues));
}

const enc = encodeURIComponent;

export class PlatformClient {
  private readonly transport: Transport;
  private readonly paths: PlatformPaths;

  constructor(
    readonly config: PlatformConfig,
    options: TransportOptions = {},
  ) {
    this.transport = new Transport(config, options);
    this.paths = config.paths;
  }

  /** A client configured from PLATFORM_BASE_URL, PLATFORM_API_KEY and the path overrides. */
  static fromEnv(env: NodeJS.ProcessEnv = process.env, options: TransportOptions = {}): PlatformClient {
    return new PlatformClient(loadPlatformConfig(env), options);
  }

  // ── GPU: templates, products, instances ─────────────────────────────────
  async listTemplates(req: S.ListTemplatesRequest = {}, opts?: CallOptions): Promise<S.ListTemplatesResponse> {
    const query = check('listTemplates', S.ListTemplatesRequest, req);
    return this.get('listTemplates', this.paths.listTemplates, { query }, S.ListTemplatesResponse, opts);
  }

  /** Every template matching the filters, across all pages. */
  iterateTemplates(req: Omit<S.ListTemplatesRequest, 'cursor'> = {}, opts?: CallOptions): AsyncGenerator<S.Template> {
    return walkPages((cursor) => this.listTemplates({ ...req, cursor }, opts), byNextCursor);
  }

  async listProducts(req: S.ListProductsRequest = {}, opts?: CallOptions): Promise<S.ListProductsResponse> {
    const filters = check('listProducts', S.ListProductsRequest, req);
    const query = Object.fromEntries(
      Object.entries(S.PRODUCT_FILTER_PARAMS).map(([key, name]) => [name, filters[key as keyof typeof filters]]),
    );
    return this.get('listProducts', this.paths.listProducts, { query }, S.ListProductsResponse, opts);
  }

  /** Every product matching the filters; follows `next_cursor` when the platform pages the list. */
  iterateProducts(req: Omit<S.ListProductsRequest, 'cursor'> = {}, opts?: CallOptions): AsyncGenerator<S.Product> {
    return walkPages((cursor) => this.listProducts({ ...req, cursor }, opts), byNextCursor);
  }

  async renewInstance(req: S.RenewInstanceRequest, opts?: CallOptions): Promise<S.EmptyResponse> {
    const { instanceId, months } = check('renewInstance', S.RenewInstanceRequest, req);
    const path = this.paths.renewInstance.replace('{instance_id}', enc(instanceId));
    return this.put('renewInstance', path, { json: { months } }, S.RenewInstanceResponse, opts);
  }

  async restartInstance(req: S.RestartInstanceRequest, opts?: CallOptions): Promise<S.EmptyResponse> {
    const json = check('restartInstance', S.RestartInstanceRequest, req);
    return this.post('restartInstance', this.paths.restartInstance, { json }, S.RestartInstanceResponse, opts);
  }

  async getInstance(req: S.GetInstanceRequest, opts?: CallOptions): Promise<S.Instance> {
    const query = check('getInstance', S.GetInstanceRequest, req);
    return this.get('getInstance', this.paths.getInstance, { query }, S.Instance, opts);
  }

  /**
   * Pays for a subscription's months, yet takes the usual timeout: a retry finds an earlier attempt's
   * instance by name (src/activities/instance-lifecycle.ts), so a call given up on is not paid twice.
   */
  async createInstance(req: S.CreateInstanceRequest, opts?: CallOptions): Promise<S.CreateInstanceResponse> {
    const json = check('createInstance', S.CreateInstanceRequest, req);
    return this.post('createInstance', this.paths.createInstance, { json }, S.CreateInstanceResponse, opts);
  }

  async listInstances(req: S.ListInstancesRequest = {}, opts?: CallOptions): Promise<S.ListInstancesResponse> {
    const query = check('listInstances', S.ListInstancesRequest, req);
    return this.get('listInstances', this.paths.listInstances, { query }, S.ListInstancesResponse, opts);
  }

  /** Every instance matching the filters, across all pages. */
  iterateInstances(
    req: Omit<S.ListInstancesRequest, 'cursor'> = {},
    opts?: CallOptions,
  ): AsyncGenerator<S.ListedInstance> {
    return walkPages((cursor) => this.listInstances({ ...req, cursor }, opts), byNextCursor);
  }

  async startInstance(req: S.InstanceActionRequest, opts?: CallOptions): Promise<S.EmptyResponse> {
    const json = check('startInstance', S.InstanceActionRequest, req);
    return this.post('startInstance', this.paths.startInstance, { json }, S.EmptyResponse, opts);
  }

  async stopInstance(req: S.InstanceActionRequest, opts?: CallOptions): Promise<S.EmptyResponse> {
    const json = check('stopInstance', S.InstanceActionRequest, req);
    return this.post('stopInstance', this.paths.stopInstance, { json }, S.EmptyResponse, opts);
  }

  async deleteInstance(req: S.InstanceActionRequest, opts?: CallOptions): Promise<S.EmptyResponse> {
    const json = check('deleteInstance', S.InstanceActionRequest, req);
    return this.post('deleteInstance', this.paths.deleteInstance, { json }, S.EmptyResponse, opts);
  }

  // ── Async media generation: the submits are paid calls ──────────────────
  async submitImageToVideo(req: S.ImageToVideoRequest, opts?: CallOptions): Promise<S.SubmitTaskResponse> {
    const json = check('submitImageToVideo', S.ImageToVideoRequest, req);
    const path = asyncSubmitPath(this.paths.imageToVideoModel);
    return this.post('submitImageToVideo', path, { json }, S.SubmitTaskResponse, this.paid(opts));
  }

  async submitTextToVideo(req: S.TextToVideoRequest, opts?: CallOptions): Promise<S.SubmitTaskResponse> {
    const json = check('submitTextToVideo', S.TextToVideoRequest, req);
    const path = asyncSubmitPath(this.paths.textToVideoModel);
    return this.post('submitTextToVideo', path, { json }, S.SubmitTaskResponse, this.paid(opts));
  }

  /** Any v3 async model: POST /v3/async/<path> (src/platform/models.ts), the path checked as one segment. */
  async submitAsyncTask(req: AsyncSubmitRequest, opts?: CallOptions): Promise<S.SubmitTaskResponse> {
    const { path, body } = check('submitAsyncTask', AsyncSubmitRequest, req);
    return this.post('submitAsyncTask', asyncSubmitPath(path), { json: body }, S.SubmitTaskResponse, this.paid(opts));
  }

  async getTaskResult(taskId: string, opts?: CallOptions): Promise<S.TaskResult> {
    const query = check('getTaskResult', S.TaskResultRequest, { task_id: taskId });
    return this.get('getTaskResult', this.paths.taskResult, { query, jsonContentType: true }, S.TaskResult, opts);
  }

  // ── Decision evaluation: a paid call ────────────────────────────────────
  async decisionEvaluation(
    req: S.DecisionEvaluationRequest,
    opts?: CallOptions,
  ): Promise<S.DecisionEvaluationResponse> {
    const json = check('decisionEvaluation', S.DecisionEvaluationRequest, req);
    const path = this.paths.decisionEvaluation;
    return this.post('decisionEvaluation', path, { json }, S.DecisionEvaluationResponse, this.paid(opts));
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
    return this.post('uploadBatchInputFile', this.paths.files, { form }, S.FileObject, opts);
  }

  async getFile(fileId: string, opts?: CallOptions): Promise<S.FileObject> {
    const req = check('getFile', S.FileIdRequest, { fileId });
    return this.get('getFile', `${this.paths.files}/${enc(req.fileId)}`, {}, S.FileObject, opts);
  }

  /** The raw content of a file (JSONL for batch input, output and error files). */
  async getFileContent(fileId: string, opts?: CallOptions): Promise<string> {
    const req = check('getFileContent', S.FileIdRequest, { fileId });
    return this.get('getFileContent', `${this.paths.files}/${enc(req.fileId)}/content`, {}, TEXT, opts);
  }

  async createBatch(req: S.CreateBatchRequest, opts?: CallOptions): Promise<S.Batch> {
    const batch = check('createBatch', S.CreateBatchRequest, req);
    const json = { completion_window: S.BATCH_COMPLETION_WINDOW, ...batch };
    return this.post('createBatch', this.paths.batches, { json }, S.Batch, opts);
  }

  async getBatch(batchId: string, opts?: CallOptions): Promise<S.Batch> {
    const req = check('getBatch', S.BatchIdRequest, { batchId });
    return this.get('getBatch', `${this.paths.batches}/${enc(req.batchId)}`, {}, S.Batch, opts);
  }

  async cancelBatch(batchId: string, opts?: CallOptions): Promise<S.Batch> {
    const req = check('cancelBatch', S.BatchIdRequest, { batchId });
    return this.post('cancelBatch', `${this.paths.batches}/${enc(req.batchId)}/cancel`, {}, S.Batch, opts);
  }

  async listBatches(req: S.ListBatchesRequest = {}, opts?: CallOptions): Promise<S.ListBatchesResponse> {
    const query = check('listBatches', S.ListBatchesRequest, req);
    return this.get('listBatches', this.paths.batches, { query }, S.ListBatchesResponse, opts);
  }

  /** Every batch, newest first, across all pages. */
  iterateBatches(req: Omit<S.ListBatchesRequest, 'after'> = {}, opts?: CallOptions): AsyncGenerator<S.Batch> {
    return walkPages((after) => this.listBatches({ ...req, after }, opts), byLastId);
  }

  // ── Account ─────────────────────────────────────────────────────────────
  async checkMemberBudget(req: S.CheckMemberBudgetRequest, opts?: CallOptions): Promise<S.CheckMemberBudgetResponse> {
    const json = check('checkMemberBudget', S.CheckMemberBudgetRequest, req);
    return this.post('checkMemberBudget', this.paths.checkMemberBudget, { json }, S.CheckMemberBudgetResponse, opts);
  }

  async listBills(req: S.BillListRequest, opts?: CallOptions): Promise<S.BillListResponse> {
    const { productName, ...rest } = check('listBills', S.BillListRequest, req);
    const query = { ...rest, [this.config.billProductNameParam]: productName };
    return this.get('listBills', this.paths.billList, { query, jsonContentType: true }, S.BillListResponse, opts);
  }

  async listQuotas(req: S.QuotaListRequest = {}, opts?: CallOptions): Promise<S.QuotaListResponse> {
    const query = check('listQuotas', S.QuotaListRequest, req);
    return this.get('listQuotas', this.paths.quotaList, { query, jsonContentType: true }, S.QuotaListResponse, opts);
  }

  /** The spec's first call: a cheap authenticated read that says whether the key works. */
  listModels(opts?: CallOptions): Promise<S.ListModelsResponse> {
    return this.get('listModels', this.paths.listModels, {}, S.ListModelsResponse, opts);
  }

  getBalance(opts?: CallOptions): Promise<S.BalanceDetail> {
    return this.get('getBalance', this.paths.balanceDetail, { jsonContentType: true }, S.BalanceDetail, opts);
  }

  private get<A extends Answer>(operation: string, path: string, payload: Payload, answer: A, opts?: CallOptions) {
    return this.transport.send({ operation, method: 'GET', path, ...payload }, answer, opts);
  }

  private post<A extends Answer>(operation: string, path: string, payload: Payload, answer: A, opts?: CallOptions) {
    return this.transport.send({ operation, method: 'POST', path, ...payload }, answer, opts);
  }

  private put<A extends Answer>(operation: string, path: string, payload: Payload, answer: A, opts?: CallOptions) {
    return this.transport.send({ operation, method: 'PUT', path, ...payload }, answer, opts);
  }

  /**
   * A call that costs money and leaves nothing to look up afterwards gets the longer paid-call
   * timeout, unless the caller gives one.
   */
  private paid(opts: CallOptions = {}): CallOptions {
    return { ...opts, timeoutMs: opts.timeoutMs ?? this.config.paidCallTimeoutMs };
  }
}

// ── Pagination ────────────────────────────────────────────────────────────
interface Page<T> {
  items: T[];
  /** The cursor of the next page, or undefined when this was the last one. */
  next?: string;
}

/** Yields every item of every page; stops if the platform hands back a cursor it already gave. */
async function* walkPages<P, T>(
  fetchPage: (cursor: string | undefined) => Promise<P>,
  read: (page: P) => Page<T>,
): AsyncGenerator<T> {
  const seen = new Set<string>();
  let cursor: string | undefined;
  for (;;) {
    const page = read(await fetchPage(cursor));
    yield* page.items;
    if (!page.next || seen.has(page.next)) return;
    seen.add(page.next);
    cursor = page.next;
  }
}

/** A GPU list page: `next_cursor`, while `has_more`. */
const byNextCursor = <T>(page: { data: T[]; has_more?: boolean; next_cursor?: string }): Page<T> => ({
  items: page.data,
  next: page.has_more && page.next_cursor ? page.next_cursor : undefined,
});

/** A batch list page (OpenAI-style): after the `last_id`, while `has_more`. */
const byLastId = <T>(page: { data: T[]; has_more?: boolean; last_id?: string | null }): Page<T> => ({
  items: page.data,
  next: page.has_more && page.last_id ? page.last_id : undefined,
});
