// The typed platform client: each method checks its request with its schema (nothing is sent unless it passes).
import type { z } from 'zod';
import { ConfigError, loadPlatformConfig } from './config';
import { PlatformError } from './errors';
import { TEXT, Transport, type CallOptions, type Query, type TransportOptions } from './transport';
import { asyncSubmitPath, AsyncSubmitRequest, parseOrThrow, type PlatformPaths } from '@platform-ops/client';
import * as S from '@platform-ops/client';

export type { CallEvent, CallOptions, TransportOptions } from './transport';

function check<Req extends z.ZodType>(operation: string, schema: Req, input: unknown): z.output<Req> {
  return parseOrThrow(schema, input, (issues) => PlatformError.invalidRequest(operation, issues));
}

const enc = encodeURIComponent;

type Whole<Req extends z.ZodType, Res extends z.ZodType> = (
  ...args: Partial<z.input<Req>> extends z.input<Req>
    ? [req?: z.input<Req>, opts?: CallOptions]
    : [req: z.input<Req>, opts?: CallOptions]
) => Promise<z.output<Res>>;

export class PlatformClient extends Transport {
  private readonly paths = this.config.paths;

  static fromEnv(env: NodeJS.ProcessEnv = process.env, options: TransportOptions = {}): PlatformClient {
    return new PlatformClient(loadPlatformConfig(env), options);
  }

  readonly listTemplates = this.whole('GET', 'listTemplates', S.ListTemplatesRequest, S.ListTemplatesResponse);

  iterateTemplates(req: Omit<S.ListTemplatesRequest, 'cursor'> = {}, opts?: CallOptions) {
    return walkPages((cursor) => this.listTemplates({ ...req, cursor }, opts), 'next_cursor');
  }

  async listProducts(req: S.ListProductsRequest = {}, opts?: CallOptions) {
    const filters = check('listProducts', S.ListProductsRequest, req);
    const query = Object.fromEntries(
      Object.entries(S.PRODUCT_FILTER_PARAMS).map(([key, name]) => [name, filters[key as keyof typeof filters]]),
    );
    return this.call('GET', 'listProducts', this.paths.listProducts, { query }, S.ListProductsResponse, opts);
  }

  iterateProducts(req: Omit<S.ListProductsRequest, 'cursor'> = {}, opts?: CallOptions) {
    return walkPages((cursor) => this.listProducts({ ...req, cursor }, opts), 'next_cursor');
  }

  async renewInstance(req: S.RenewInstanceRequest, opts?: CallOptions) {
    const { instanceId, months } = check('renewInstance', S.RenewInstanceRequest, req);
    const path = this.paths.renewInstance.replace('{instance_id}', enc(instanceId));
    return this.call('PUT', 'renewInstance', path, { json: { months } }, S.EmptyResponse, opts);
  }

  readonly restartInstance = this.whole('POST', 'restartInstance', S.InstanceActionRequest, S.EmptyResponse);
  readonly getInstance = this.whole('GET', 'getInstance', S.InstanceActionRequest, S.Instance);
  // Paid, yet the usual timeout: a retry finds an earlier attempt's instance by name (docs/retries.md).
  readonly createInstance = this.whole('POST', 'createInstance', S.CreateInstanceRequest, S.CreateInstanceResponse);
  readonly listInstances = this.whole('GET', 'listInstances', S.ListInstancesRequest, S.ListInstancesResponse);
  readonly startInstance = this.whole('POST', 'startInstance', S.InstanceActionRequest, S.EmptyResponse);
  readonly stopInstance = this.whole('POST', 'stopInstance', S.InstanceActionRequest, S.EmptyResponse);
  readonly deleteInstance = this.whole('POST', 'deleteInstance', S.InstanceActionRequest, S.EmptyResponse);

  readonly endpointLimits = this.whole('GET', 'endpointLimits', S.EndpointLimitsRequest, S.EndpointLimits);
  // Paid, yet the usual timeout: a retry finds an earlier attempt's endpoint by name (docs/retries.md).
  readonly createEndpoint = this.whole('POST', 'createEndpoint', S.CreateEndpointRequest, S.CreateEndpointResponse);
  readonly listEndpoints = this.whole('GET', 'listEndpoints', S.ListEndpointsRequest, S.ListEndpointsResponse);
  readonly getEndpoint = this.whole('GET', 'getEndpoint', S.EndpointIdRequest, S.GetEndpointResponse);
  readonly updateEndpoint = this.whole('POST', 'updateEndpoint', S.UpdateEndpointRequest, S.EmptyResponse);
  readonly deleteEndpoint = this.whole('POST', 'deleteEndpoint', S.DeleteEndpointBody, S.EmptyResponse);

  /** Every endpoint, page by page (pages count from 1), until the platform's total is reached. */
  async *iterateEndpoints(opts?: CallOptions) {
    const pageSize = S.ENDPOINT_PAGE_MAX;
    for (let pageNum = 1, seen = 0; ; pageNum++) {
      const { endpoints, total } = await this.listEndpoints({ pageSize, pageNum }, opts);
      const page = endpoints ?? [];
      yield* page;
      seen += page.length;
      if (page.length < pageSize || (total !== undefined && seen >= total)) return;
    }
  }

  iterateInstances(req: Omit<S.ListInstancesRequest, 'cursor'> = {}, opts?: CallOptions) {
    return walkPages((cursor) => this.listInstances({ ...req, cursor }, opts), 'next_cursor');
  }

  readonly submitImageToVideo = this.whole('POST', 'submitImageToVideo', S.ImageToVideoRequest, S.SubmitTaskResponse, {
    path: (p) => asyncSubmitPath(p.imageToVideoModel),
    paid: true,
  });
  readonly submitTextToVideo = this.whole('POST', 'submitTextToVideo', S.TextToVideoRequest, S.SubmitTaskResponse, {
    path: (p) => asyncSubmitPath(p.textToVideoModel),
    paid: true,
  });

  async submitAsyncTask(req: AsyncSubmitRequest, opts?: CallOptions) {
    const { path, body: json } = check('submitAsyncTask', AsyncSubmitRequest, req);
    return this.call('POST', 'submitAsyncTask', asyncSubmitPath(path), { json }, S.SubmitTaskResponse, this.paid(opts));
  }

  async getTaskResult(taskId: string, opts?: CallOptions) {
    const query = check('getTaskResult', S.TaskResultRequest, { task_id: taskId });
    const path = this.paths.taskResult;
    return this.call('GET', 'getTaskResult', path, { query, jsonContentType: true }, S.TaskResult, opts);
  }

  readonly decisionEvaluation = this.whole(
    'POST',
    'decisionEvaluation',
    S.DecisionEvaluationRequest,
    S.DecisionEvaluationResponse,
    { paid: true },
  );

  async uploadBatchInputFile(req: S.UploadBatchFileRequest, opts?: CallOptions) {
    const { content, filename, endpoint } = check('uploadBatchInputFile', S.UploadBatchFileRequest, req);
    // The platform would only fail the batch later.
    const problems = S.batchInputProblems(content, endpoint);
    if (problems.length > 0) throw PlatformError.invalidRequest('uploadBatchInputFile', problems);
    const form = new FormData();
    form.append('purpose', 'batch');
    form.append('file', new Blob([content], { type: 'application/jsonl' }), filename);
    return this.call('POST', 'uploadBatchInputFile', this.paths.files, { form }, S.FileObject, opts);
  }

  async getFile(fileId: string, opts?: CallOptions) {
    const req = check('getFile', S.FileIdRequest, { fileId });
    return this.call('GET', 'getFile', `${this.paths.files}/${enc(req.fileId)}`, {}, S.FileObject, opts);
  }

  async getFileContent(fileId: string, opts?: CallOptions) {
    const req = check('getFileContent', S.FileIdRequest, { fileId });
    return this.call('GET', 'getFileContent', `${this.paths.files}/${enc(req.fileId)}/content`, {}, TEXT, opts);
  }

  async createBatch(req: S.CreateBatchRequest, opts?: CallOptions) {
    const batch = check('createBatch', S.CreateBatchRequest, req);
    const json = { completion_window: S.BATCH_COMPLETION_WINDOW, ...batch };
    return this.call('POST', 'createBatch', this.paths.batches, { json }, S.Batch, opts);
  }

  async getBatch(batchId: string, opts?: CallOptions) {
    const req = check('getBatch', S.BatchIdRequest, { batchId });
    return this.call('GET', 'getBatch', `${this.paths.batches}/${enc(req.batchId)}`, {}, S.Batch, opts);
  }

  async cancelBatch(batchId: string, opts?: CallOptions) {
    const req = check('cancelBatch', S.BatchIdRequest, { batchId });
    return this.call('POST', 'cancelBatch', `${this.paths.batches}/${enc(req.batchId)}/cancel`, {}, S.Batch, opts);
  }

  readonly listBatches = this.whole('GET', 'listBatches', S.ListBatchesRequest, S.ListBatchesResponse, {
    path: (p) => p.batches,
  });

  iterateBatches(req: Omit<S.ListBatchesRequest, 'after'> = {}, opts?: CallOptions) {
    return walkPages((after) => this.listBatches({ ...req, after }, opts), 'last_id');
  }

  readonly checkMemberBudget = this.whole(
    'POST',
    'checkMemberBudget',
    S.CheckMemberBudgetRequest,
    S.CheckMemberBudgetResponse,
  );

  async listBills(req: S.BillListRequest, opts?: CallOptions) {
    const { productName, ...rest } = check('listBills', S.BillListRequest, req);
    const query = { ...rest, [this.config.billProductNameParam]: productName };
    const path = this.paths.billList;
    return this.call('GET', 'listBills', path, { query, jsonContentType: true }, S.BillListResponse, opts);
  }

  readonly listQuotas = this.whole('GET', 'listQuotas', S.QuotaListRequest, S.QuotaListResponse, {
    path: (p) => p.quotaList,
    jsonContentType: true,
  });

  listModels(opts?: CallOptions) {
    return this.call('GET', 'listModels', this.paths.listModels, {}, S.ListModelsResponse, opts);
  }

  getBalance(opts?: CallOptions) {
    return this.call('GET', 'getBalance', this.paths.balanceDetail, { jsonContentType: true }, S.BalanceDetail, opts);
  }

  /** Sends the checked request whole (a GET's query, else the JSON body) to the path named as the operation. */
  private whole<Req extends z.ZodType, Res extends z.ZodType>(
    method: 'GET' | 'POST',
    operation: string,
    schema: Req,
    answer: Res,
    how: { path?: (paths: PlatformPaths) => string; paid?: boolean; jsonContentType?: boolean } = {},
  ): Whole<Req, Res> {
    const send = async (req: unknown = {}, opts?: CallOptions) => {
      const checked = check(operation, schema, req) as Query;
      const path = how.path?.(this.paths) ?? this.paths[operation as keyof PlatformPaths];
      const payload = method === 'GET' ? { query: checked, jsonContentType: how.jsonContentType } : { json: checked };
      return this.call(method, operation, path, payload, answer, how.paid ? this.paid(opts) : opts);
    };
    return send as Whole<Req, Res>;
  }

  private paid(opts: CallOptions = {}): CallOptions {
    return { ...opts, timeoutMs: opts.timeoutMs ?? this.config.paidCallTimeoutMs };
  }
}

interface Page<T> {
  data: T[];
  has_more?: boolean;
  next_cursor?: string;
  last_id?: string | null;
}

/** Stops if the platform hands back a cursor it already gave. */
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

const FIRST_CALL_TIMEOUT_MS = 10_000;

/** Before polling: a refused key stops the worker; an outage only warns, as the workflows retry through it. */
export async function checkFirstCall(platform: PlatformClient) {
  const { paths, baseUrl } = platform.config;
  const timeoutMs = Math.min(FIRST_CALL_TIMEOUT_MS, platform.config.timeoutMs);
  const warnings: string[] = [];
  const read = async <T>(what: string, path: string, call: () => Promise<T>): Promise<T | undefined> => {
    try {
      return await call();
    } catch (err) {
      if (err instanceof PlatformError && (err.status === 401 || err.status === 403)) {
        // Never the key, nor the platform's own message, which could echo it.
        throw new ConfigError(
          `The platform at ${baseUrl} refused the worker's API key on its first call (GET ${path}: HTTP ` +
            `${err.status}${err.reason ? ` ${err.reason}` : ''}). Set PLATFORM_API_KEY to a valid key for this ` +
            'platform; the worker did not start.',
        );
      }
      const why = err instanceof PlatformError ? `${err.kind} ${err.status ?? ''}`.trim() : 'error';
      warnings.push(`could not ${what} (GET ${path}: ${why}); starting anyway`);
      return undefined;
    }
  };
  const models = await read('list the models', paths.listModels, () => platform.listModels({ timeoutMs }));
  const balance = await read('read the balance', paths.balanceDetail, () => platform.getBalance({ timeoutMs }));
  return { models: models?.data.length, availableBalance: balance?.availableBalance?.toString(), warnings };
}
