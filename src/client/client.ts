// The typed platform client: one function per operation of the spec. Each validates its request
// with the shared schemas before anything is sent, and parses the answer leniently (unknown fields
// kept, documented ones typed). It hides no retries: retrying is the workflows' job.
import type { z } from 'zod';
import { loadPlatformConfig, type PlatformConfig } from './config';
import { PlatformError } from './errors';
import { walkPages } from './pagination';
import { asyncSubmitPath } from '../platform/paths';
import * as S from '../platform/schemas';
import { Transport, type CallOptions, type RequestSpec, type TransportOptions } from './transport';
import { describeZodError } from '../platform/validation';

export type { CallOptions, CallEvent } from './transport';

const enc = encodeURIComponent;

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

  private get paths() {
    return this.config.paths;
  }

  /** Call options of a paid call that cannot be looked up afterwards: its longer timeout, unless given. */
  private paid(opts?: CallOptions): CallOptions {
    return { ...opts, timeoutMs: opts?.timeoutMs ?? this.config.paidCallTimeoutMs };
  }

  /** Validates a request; on failure throws PlatformError(kind 'invalid_request') naming every field. */
  private check<Sch extends z.ZodType>(schema: Sch, value: unknown, operation: string): z.output<Sch> {
    const parsed = schema.safeParse(value);
    if (!parsed.success) throw PlatformError.invalidRequest(operation, describeZodError(parsed.error));
    return parsed.data;
  }

  private call<Sch extends z.ZodType>(spec: RequestSpec, schema: Sch, opts?: CallOptions): Promise<z.output<Sch>> {
    return this.transport.json(spec, schema, opts);
  }

  // ── GPU: templates and products ─────────────────────────────────────────
  async listTemplates(req: S.ListTemplatesRequest = {}, opts?: CallOptions): Promise<S.ListTemplatesResponse> {
    const q = this.check(S.ListTemplatesRequest, req, 'listTemplates');
    return this.call(
      { operation: 'listTemplates', method: 'GET', path: this.paths.listTemplates, searchParams: q },
      S.ListTemplatesResponse,
      opts,
    );
  }

  /** Every template matching the filters, across all pages. */
  iterateTemplates(req: Omit<S.ListTemplatesRequest, 'cursor'> = {}, opts?: CallOptions): AsyncGenerator<S.Template> {
    return walkPages(async (cursor) => {
      const page = await this.listTemplates({ ...req, cursor }, opts);
      return { items: page.data, next: page.has_more && page.next_cursor ? page.next_cursor : undefined };
    });
  }

  async listProducts(req: S.ListProductsRequest = {}, opts?: CallOptions): Promise<S.ListProductsResponse> {
    const q = this.check(S.ListProductsRequest, req, 'listProducts');
    const searchParams: Record<string, string | number | undefined> = {};
    for (const [key, name] of Object.entries(S.PRODUCT_FILTER_PARAMS)) {
      searchParams[name] = q[key as keyof typeof q];
    }
    return this.call(
      { operation: 'listProducts', method: 'GET', path: this.paths.listProducts, searchParams },
      S.ListProductsResponse,
      opts,
    );
  }

  /** Every product matching the filters; follows `next_cursor` when the platform pages the list. */
  iterateProducts(req: Omit<S.ListProductsRequest, 'cursor'> = {}, opts?: CallOptions): AsyncGenerator<S.Product> {
    return walkPages(async (cursor) => {
      const page = await this.listProducts({ ...req, cursor }, opts);
      return { items: page.data, next: page.has_more && page.next_cursor ? page.next_cursor : undefined };
    });
  }

  // ── GPU: instances ──────────────────────────────────────────────────────
  async renewInstance(req: S.RenewInstanceRequest, opts?: CallOptions): Promise<S.EmptyResponse> {
    const { instanceId, months } = this.check(S.RenewInstanceRequest, req, 'renewInstance');
    const path = this.paths.renewInstance.replace('{instance_id}', enc(instanceId));
    return this.call(
      { operation: 'renewInstance', method: 'PUT', path, json: { months } },
      S.RenewInstanceResponse,
      opts,
    );
  }

  async restartInstance(req: S.RestartInstanceRequest, opts?: CallOptions): Promise<S.EmptyResponse> {
    const body = this.check(S.RestartInstanceRequest, req, 'restartInstance');
    return this.call(
      { operation: 'restartInstance', method: 'POST', path: this.paths.restartInstance, json: body },
      S.RestartInstanceResponse,
      opts,
    );
  }

  async getInstance(req: S.GetInstanceRequest, opts?: CallOptions): Promise<S.Instance> {
    const q = this.check(S.GetInstanceRequest, req, 'getInstance');
    return this.call(
      { operation: 'getInstance', method: 'GET', path: this.paths.getInstance, searchParams: q },
      S.Instance,
      opts,
    );
  }

  // ── Async media generation ──────────────────────────────────────────────
  async submitImageToVideo(req: S.ImageToVideoRequest, opts?: CallOptions): Promise<S.SubmitTaskResponse> {
    const body = this.check(S.ImageToVideoRequest, req, 'submitImageToVideo');
    return this.call(
      {
        operation: 'submitImageToVideo',
        method: 'POST',
        path: asyncSubmitPath(this.paths.imageToVideoModel),
        json: body,
      },
      S.SubmitTaskResponse,
      this.paid(opts),
    );
  }

  async submitTextToVideo(req: S.TextToVideoRequest, opts?: CallOptions): Promise<S.SubmitTaskResponse> {
    const body = this.check(S.TextToVideoRequest, req, 'submitTextToVideo');
    return this.call(
      {
        operation: 'submitTextToVideo',
        method: 'POST',
        path: asyncSubmitPath(this.paths.textToVideoModel),
        json: body,
      },
      S.SubmitTaskResponse,
      this.paid(opts),
    );
  }

  async getTaskResult(taskId: string, opts?: CallOptions): Promise<S.TaskResult> {
    const q = this.check(S.TaskResultRequest, { task_id: taskId }, 'getTaskResult');
    return this.call(
      {
        operation: 'getTaskResult',
        method: 'GET',
        path: this.paths.taskResult,
        searchParams: q,
        jsonContentType: true,
      },
      S.TaskResult,
      opts,
    );
  }

  // ── Decision evaluation ─────────────────────────────────────────────────
  async evaluateDecision(req: S.DecisionEvaluationRequest, opts?: CallOptions): Promise<S.DecisionEvaluationResponse> {
    const body = this.check(S.DecisionEvaluationRequest, req, 'evaluateDecision');
    return this.call(
      { operation: 'evaluateDecision', method: 'POST', path: this.paths.decisionEvaluation, json: body },
      S.DecisionEvaluationResponse,
      this.paid(opts),
    );
  }

  // ── Batches and their files ─────────────────────────────────────────────
  /** Uploads a JSONL input file (multipart, purpose=batch), after checking every line. */
  async uploadBatchInputFile(req: S.UploadBatchFileRequest, opts?: CallOptions): Promise<S.FileObject> {
    const { content, filename, endpoint } = this.check(S.UploadBatchFileRequest, req, 'uploadBatchInputFile');
    const problems = S.batchInputProblems(content, endpoint);
    if (problems.length > 0) throw PlatformError.invalidRequest('uploadBatchInputFile', problems);
    const form = new FormData();
    form.append('purpose', 'batch');
    form.append('file', new Blob([content], { type: 'application/jsonl' }), filename);
    return this.call(
      { operation: 'uploadBatchInputFile', method: 'POST', path: this.paths.files, body: form },
      S.FileObject,
      opts,
    );
  }

  async getFile(fileId: string, opts?: CallOptions): Promise<S.FileObject> {
    const { fileId: id } = this.check(S.FileIdRequest, { fileId }, 'getFile');
    return this.call(
      { operation: 'getFile', method: 'GET', path: `${this.paths.files}/${enc(id)}` },
      S.FileObject,
      opts,
    );
  }

  /** The raw content of a file (JSONL for batch input, output and error files). */
  async getFileContent(fileId: string, opts?: CallOptions): Promise<string> {
    const { fileId: id } = this.check(S.FileIdRequest, { fileId }, 'getFileContent');
    return this.transport.text(
      { operation: 'getFileContent', method: 'GET', path: `${this.paths.files}/${enc(id)}/content` },
      opts,
    );
  }

  async createBatch(req: S.CreateBatchRequest, opts?: CallOptions): Promise<S.Batch> {
    const body = this.check(S.CreateBatchRequest, req, 'createBatch');
    return this.call(
      {
        operation: 'createBatch',
        method: 'POST',
        path: this.paths.batches,
        json: { completion_window: S.BATCH_COMPLETION_WINDOW, ...body },
      },
      S.Batch,
      opts,
    );
  }

  async getBatch(batchId: string, opts?: CallOptions): Promise<S.Batch> {
    const { batchId: id } = this.check(S.BatchIdRequest, { batchId }, 'getBatch');
    return this.call({ operation: 'getBatch', method: 'GET', path: `${this.paths.batches}/${enc(id)}` }, S.Batch, opts);
  }

  async cancelBatch(batchId: string, opts?: CallOptions): Promise<S.Batch> {
    const { batchId: id } = this.check(S.BatchIdRequest, { batchId }, 'cancelBatch');
    return this.call(
      { operation: 'cancelBatch', method: 'POST', path: `${this.paths.batches}/${enc(id)}/cancel` },
      S.Batch,
      opts,
    );
  }

  async listBatches(req: S.ListBatchesRequest = {}, opts?: CallOptions): Promise<S.ListBatchesResponse> {
    const q = this.check(S.ListBatchesRequest, req, 'listBatches');
    return this.call(
      { operation: 'listBatches', method: 'GET', path: this.paths.batches, searchParams: q },
      S.ListBatchesResponse,
      opts,
    );
  }

  /** Every batch, newest first, across all pages. */
  iterateBatches(req: Omit<S.ListBatchesRequest, 'after'> = {}, opts?: CallOptions): AsyncGenerator<S.Batch> {
    return walkPages(async (after) => {
      const page = await this.listBatches({ ...req, after }, opts);
      return { items: page.data, next: page.has_more && page.last_id ? page.last_id : undefined };
    });
  }

  // ── Account ─────────────────────────────────────────────────────────────
  async checkMemberBudget(req: S.CheckMemberBudgetRequest, opts?: CallOptions): Promise<S.CheckMemberBudgetResponse> {
    const body = this.check(S.CheckMemberBudgetRequest, req, 'checkMemberBudget');
    return this.call(
      { operation: 'checkMemberBudget', method: 'POST', path: this.paths.checkMemberBudget, json: body },
      S.CheckMemberBudgetResponse,
      opts,
    );
  }

  async listBills(req: S.BillListRequest, opts?: CallOptions): Promise<S.BillListResponse> {
    const { productName, ...q } = this.check(S.BillListRequest, req, 'listBills');
    return this.call(
      {
        operation: 'listBills',
        method: 'GET',
        path: this.paths.billList,
        searchParams: { ...q, [this.config.billProductNameParam]: productName },
        jsonContentType: true,
      },
      S.BillListResponse,
      opts,
    );
  }

  async listQuotas(req: S.QuotaListRequest = {}, opts?: CallOptions): Promise<S.QuotaListResponse> {
    const q = this.check(S.QuotaListRequest, req, 'listQuotas');
    return this.call(
      { operation: 'listQuotas', method: 'GET', path: this.paths.quotaList, searchParams: q, jsonContentType: true },
      S.QuotaListResponse,
      opts,
    );
  }
}
