// The typed platform client: one method per operation of the spec, each three lines over one request
// helper. The helper checks the request with its schema before anything is sent, and parses the
// answer leniently (unknown fields kept, documented ones typed, everything bounded). It hides no
// retries: retrying is the workflows' job. The operations themselves are data, in ./endpoints.ts.
import type { z } from 'zod';
import { loadPlatformConfig, type PlatformConfig } from './config';
import { ENDPOINTS, TEXT, type Answer, type Endpoint, type Operation } from './endpoints';
import { PlatformError } from './errors';
import { byLastId, byNextCursor, walkPages } from './pagination';
import type { AsyncSubmitRequest } from '../platform/models';
import type * as S from '../platform/schemas';
import { Transport, type CallOptions, type RequestSpec, type TransportOptions } from './transport';
import { parseOrThrow, type ValidationIssue } from '../platform/validation';

export type { CallOptions, CallEvent } from './transport';

export class PlatformClient {
  private readonly transport: Transport;

  constructor(
    readonly config: PlatformConfig,
    options: TransportOptions = {},
  ) {
    this.transport = new Transport(config, options);
  }

  /** A client configured from PLATFORM_BASE_URL, PLATFORM_API_KEY and the path overrides. */
  static fromEnv(env: NodeJS.ProcessEnv = process.env, options: TransportOptions = {}): PlatformClient {
    return new PlatformClient(loadPlatformConfig(env), options);
  }

  /**
   * Sends one operation: checks `input` (a PlatformError 'invalid_request' naming every field, nothing
   * sent), routes it, and parses the answer with the operation's response schema. A paid call gets
   * the paid-call timeout unless the caller gives one. Async, so even a refusal is a rejection.
   */
  private async request<Op extends Operation>(
    operation: Op,
    input: unknown,
    opts: CallOptions = {},
  ): Promise<Answer<Op>> {
    const endpoint: Endpoint<z.ZodType, z.ZodType | typeof TEXT> = ENDPOINTS[operation];
    const refuse = (issues: ValidationIssue[]) => PlatformError.invalidRequest(operation, issues);
    const req = parseOrThrow(endpoint.request, input, refuse);
    const problems = endpoint.problems?.(req) ?? [];
    if (problems.length > 0) throw refuse(problems);
    const spec: RequestSpec = {
      operation,
      method: endpoint.method,
      ...endpoint.route(req, this.config),
      jsonContentType: endpoint.jsonContentType,
    };
    const call = endpoint.paid ? { ...opts, timeoutMs: opts.timeoutMs ?? this.config.paidCallTimeoutMs } : opts;
    const answer =
      endpoint.response === TEXT ? this.transport.text(spec, call) : this.transport.json(spec, endpoint.response, call);
    return answer as Promise<Answer<Op>>;
  }

  // ── GPU: templates, products, instances ─────────────────────────────────
  listTemplates(req: S.ListTemplatesRequest = {}, opts?: CallOptions): Promise<S.ListTemplatesResponse> {
    return this.request('listTemplates', req, opts);
  }

  /** Every template matching the filters, across all pages. */
  iterateTemplates(req: Omit<S.ListTemplatesRequest, 'cursor'> = {}, opts?: CallOptions): AsyncGenerator<S.Template> {
    return walkPages((cursor) => this.listTemplates({ ...req, cursor }, opts), byNextCursor);
  }

  listProducts(req: S.ListProductsRequest = {}, opts?: CallOptions): Promise<S.ListProductsResponse> {
    return this.request('listProducts', req, opts);
  }

  /** Every product matching the filters; follows `next_cursor` when the platform pages the list. */
  iterateProducts(req: Omit<S.ListProductsRequest, 'cursor'> = {}, opts?: CallOptions): AsyncGenerator<S.Product> {
    return walkPages((cursor) => this.listProducts({ ...req, cursor }, opts), byNextCursor);
  }

  renewInstance(req: S.RenewInstanceRequest, opts?: CallOptions): Promise<S.EmptyResponse> {
    return this.request('renewInstance', req, opts);
  }

  restartInstance(req: S.RestartInstanceRequest, opts?: CallOptions): Promise<S.EmptyResponse> {
    return this.request('restartInstance', req, opts);
  }

  getInstance(req: S.GetInstanceRequest, opts?: CallOptions): Promise<S.Instance> {
    return this.request('getInstance', req, opts);
  }

  createInstance(req: S.CreateInstanceRequest, opts?: CallOptions): Promise<S.CreateInstanceResponse> {
    return this.request('createInstance', req, opts);
  }

  listInstances(req: S.ListInstancesRequest = {}, opts?: CallOptions): Promise<S.ListInstancesResponse> {
    return this.request('listInstances', req, opts);
  }

  /** Every instance matching the filters, across all pages. */
  iterateInstances(
    req: Omit<S.ListInstancesRequest, 'cursor'> = {},
    opts?: CallOptions,
  ): AsyncGenerator<S.ListedInstance> {
    return walkPages((cursor) => this.listInstances({ ...req, cursor }, opts), byNextCursor);
  }

  startInstance(req: S.InstanceActionRequest, opts?: CallOptions): Promise<S.EmptyResponse> {
    return this.request('startInstance', req, opts);
  }

  stopInstance(req: S.InstanceActionRequest, opts?: CallOptions): Promise<S.EmptyResponse> {
    return this.request('stopInstance', req, opts);
  }

  deleteInstance(req: S.InstanceActionRequest, opts?: CallOptions): Promise<S.EmptyResponse> {
    return this.request('deleteInstance', req, opts);
  }

  // ── Async media generation ──────────────────────────────────────────────
  submitImageToVideo(req: S.ImageToVideoRequest, opts?: CallOptions): Promise<S.SubmitTaskResponse> {
    return this.request('submitImageToVideo', req, opts);
  }

  submitTextToVideo(req: S.TextToVideoRequest, opts?: CallOptions): Promise<S.SubmitTaskResponse> {
    return this.request('submitTextToVideo', req, opts);
  }

  /** Any v3 async model: POST /v3/async/<path> (src/platform/models.ts). */
  submitAsyncTask(req: AsyncSubmitRequest, opts?: CallOptions): Promise<S.SubmitTaskResponse> {
    return this.request('submitAsyncTask', req, opts);
  }

  getTaskResult(taskId: string, opts?: CallOptions): Promise<S.TaskResult> {
    return this.request('getTaskResult', { task_id: taskId }, opts);
  }

  // ── Decision evaluation ─────────────────────────────────────────────────
  evaluateDecision(req: S.DecisionEvaluationRequest, opts?: CallOptions): Promise<S.DecisionEvaluationResponse> {
    return this.request('evaluateDecision', req, opts);
  }

  // ── Batches and their files ─────────────────────────────────────────────
  /** Uploads a JSONL input file (multipart, purpose=batch), after checking every line. */
  uploadBatchInputFile(req: S.UploadBatchFileRequest, opts?: CallOptions): Promise<S.FileObject> {
    return this.request('uploadBatchInputFile', req, opts);
  }

  getFile(fileId: string, opts?: CallOptions): Promise<S.FileObject> {
    return this.request('getFile', { fileId }, opts);
  }

  /** The raw content of a file (JSONL for batch input, output and error files). */
  getFileContent(fileId: string, opts?: CallOptions): Promise<string> {
    return this.request('getFileContent', { fileId }, opts);
  }

  createBatch(req: S.CreateBatchRequest, opts?: CallOptions): Promise<S.Batch> {
    return this.request('createBatch', req, opts);
  }

  getBatch(batchId: string, opts?: CallOptions): Promise<S.Batch> {
    return this.request('getBatch', { batchId }, opts);
  }

  cancelBatch(batchId: string, opts?: CallOptions): Promise<S.Batch> {
    return this.request('cancelBatch', { batchId }, opts);
  }

  listBatches(req: S.ListBatchesRequest = {}, opts?: CallOptions): Promise<S.ListBatchesResponse> {
    return this.request('listBatches', req, opts);
  }

  /** Every batch, newest first, across all pages. */
  iterateBatches(req: Omit<S.ListBatchesRequest, 'after'> = {}, opts?: CallOptions): AsyncGenerator<S.Batch> {
    return walkPages((after) => this.listBatches({ ...req, after }, opts), byLastId);
  }

  // ── Account ─────────────────────────────────────────────────────────────
  checkMemberBudget(req: S.CheckMemberBudgetRequest, opts?: CallOptions): Promise<S.CheckMemberBudgetResponse> {
    return this.request('checkMemberBudget', req, opts);
  }

  listBills(req: S.BillListRequest, opts?: CallOptions): Promise<S.BillListResponse> {
    return this.request('listBills', req, opts);
  }

  listQuotas(req: S.QuotaListRequest = {}, opts?: CallOptions): Promise<S.QuotaListResponse> {
    return this.request('listQuotas', req, opts);
  }

  /** The spec's first call: a cheap authenticated read that says whether the key works. */
  listModels(opts?: CallOptions): Promise<S.ListModelsResponse> {
    return this.request('listModels', {}, opts);
  }

  getBalance(opts?: CallOptions): Promise<S.BalanceDetail> {
    return this.request('getBalance', {}, opts);
  }
}
