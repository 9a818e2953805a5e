// The spec's operations as data: for each, its method, the schema its request is checked with, where
// the checked request goes, and the schema that bounds its answer. PlatformClient sends them all
// through one request helper, so a new operation is an entry here and three lines there.
import type { z } from 'zod';
import type { PlatformConfig } from './config';
import type { RequestSpec } from './transport';
import { AsyncSubmitRequest } from '../platform/models';
import { asyncSubmitPath, type PlatformPaths } from '../platform/paths';
import * as S from '../platform/schemas';
import type { ValidationIssue } from '../platform/validation';

/** Where a checked request goes and what it carries. */
type Route = Pick<RequestSpec, 'path' | 'searchParams' | 'json' | 'body'>;

/** The answer is the raw body (a file's JSONL content), bounded in size by the transport. */
export const TEXT = 'text';

export interface Endpoint<Req extends z.ZodType = z.ZodType, Res extends z.ZodType | typeof TEXT = z.ZodType> {
  method: RequestSpec['method'];
  /** Checked before anything is sent: a PlatformError 'invalid_request' names every bad field. */
  request: Req;
  /** Rules the schema cannot state, checked after it. */
  problems?(req: z.output<Req>): ValidationIssue[];
  route(req: z.output<Req>, config: PlatformConfig): Route;
  /** Bounds and types the answer: anything else is a 'malformed_response'. */
  response: Res;
  /** Costs money and leaves nothing to look up afterwards: the longer paid-call timeout applies. */
  paid?: boolean;
  /** The spec lists Content-Type: application/json as required on some GET pages. */
  jsonContentType?: boolean;
}

type Extra<Req extends z.ZodType> = Pick<Endpoint<Req>, 'problems' | 'paid' | 'jsonContentType'>;

/** An operation sent with `method`; infers each entry's schemas, so `route` sees its own request's type. */
const send =
  (method: RequestSpec['method']) =>
  <Req extends z.ZodType, Res extends z.ZodType | typeof TEXT>(
    request: Req,
    route: Endpoint<Req, Res>['route'],
    response: Res,
    extra: Extra<Req> = {},
  ): Endpoint<Req, Res> => ({ method, request, route, response, ...extra });
const get = send('GET');
const post = send('POST');
const put = send('PUT');

type Query = NonNullable<RequestSpec['searchParams']>;
/** The checked request as the query string of the configured path `key`. */
const query =
  (key: keyof PlatformPaths) =>
  (searchParams: Query, { paths }: PlatformConfig): Route => ({ path: paths[key], searchParams });
/** The checked request as the JSON body to the configured path `key`. */
const body =
  (key: keyof PlatformPaths) =>
  (json: unknown, { paths }: PlatformConfig): Route => ({ path: paths[key], json });

const enc = encodeURIComponent;
const PAID = { paid: true };
const JSON_GET = { jsonContentType: true };

export const ENDPOINTS = {
  // ── GPU: templates, products, instances ─────────────────────────────────
  listTemplates: get(S.ListTemplatesRequest, query('listTemplates'), S.ListTemplatesResponse),
  listProducts: get(
    S.ListProductsRequest,
    (filters, { paths }) => ({
      path: paths.listProducts,
      searchParams: Object.fromEntries(
        Object.entries(S.PRODUCT_FILTER_PARAMS).map(([key, name]) => [name, filters[key as keyof typeof filters]]),
      ),
    }),
    S.ListProductsResponse,
  ),
  renewInstance: put(
    S.RenewInstanceRequest,
    ({ instanceId, months }, { paths }) => ({
      path: paths.renewInstance.replace('{instance_id}', enc(instanceId)),
      json: { months },
    }),
    S.RenewInstanceResponse,
  ),
  restartInstance: post(S.RestartInstanceRequest, body('restartInstance'), S.RestartInstanceResponse),
  getInstance: get(S.GetInstanceRequest, query('getInstance'), S.Instance),
  // Create pays for a subscription's months; a retry finds an earlier attempt's instance by name
  // (src/activities/instance-lifecycle.ts), so it is not a call that leaves nothing to look up.
  createInstance: post(S.CreateInstanceRequest, body('createInstance'), S.CreateInstanceResponse),
  listInstances: get(S.ListInstancesRequest, query('listInstances'), S.ListInstancesResponse),
  startInstance: post(S.InstanceActionRequest, body('startInstance'), S.EmptyResponse),
  stopInstance: post(S.InstanceActionRequest, body('stopInstance'), S.EmptyResponse),
  deleteInstance: post(S.InstanceActionRequest, body('deleteInstance'), S.EmptyResponse),

  // ── Async media generation ──────────────────────────────────────────────
  submitImageToVideo: post(
    S.ImageToVideoRequest,
    (json, { paths }) => ({ path: asyncSubmitPath(paths.imageToVideoModel), json }),
    S.SubmitTaskResponse,
    PAID,
  ),
  submitTextToVideo: post(
    S.TextToVideoRequest,
    (json, { paths }) => ({ path: asyncSubmitPath(paths.textToVideoModel), json }),
    S.SubmitTaskResponse,
    PAID,
  ),
  /** Any model of the registry (or passed through): the segment is checked as one path segment. */
  submitAsyncTask: post(
    AsyncSubmitRequest,
    ({ path, body: json }) => ({ path: asyncSubmitPath(path), json }),
    S.SubmitTaskResponse,
    PAID,
  ),
  getTaskResult: get(S.TaskResultRequest, query('taskResult'), S.TaskResult, JSON_GET),

  // ── Decision evaluation ─────────────────────────────────────────────────
  evaluateDecision: post(S.DecisionEvaluationRequest, body('decisionEvaluation'), S.DecisionEvaluationResponse, PAID),

  // ── Batches and their files ─────────────────────────────────────────────
  uploadBatchInputFile: post(
    S.UploadBatchFileRequest,
    ({ content, filename }, { paths }) => {
      const form = new FormData();
      form.append('purpose', 'batch');
      form.append('file', new Blob([content], { type: 'application/jsonl' }), filename);
      return { path: paths.files, body: form };
    },
    S.FileObject,
    // Every line is checked too: the platform would only fail the batch later.
    { problems: ({ content, endpoint }) => S.batchInputProblems(content, endpoint) },
  ),
  getFile: get(S.FileIdRequest, ({ fileId }, { paths }) => ({ path: `${paths.files}/${enc(fileId)}` }), S.FileObject),
  getFileContent: get(
    S.FileIdRequest,
    ({ fileId }, { paths }) => ({ path: `${paths.files}/${enc(fileId)}/content` }),
    TEXT,
  ),
  createBatch: post(
    S.CreateBatchRequest,
    (req, { paths }) => ({ path: paths.batches, json: { completion_window: S.BATCH_COMPLETION_WINDOW, ...req } }),
    S.Batch,
  ),
  getBatch: get(S.BatchIdRequest, ({ batchId }, { paths }) => ({ path: `${paths.batches}/${enc(batchId)}` }), S.Batch),
  cancelBatch: post(
    S.BatchIdRequest,
    ({ batchId }, { paths }) => ({ path: `${paths.batches}/${enc(batchId)}/cancel` }),
    S.Batch,
  ),
  listBatches: get(S.ListBatchesRequest, query('batches'), S.ListBatchesResponse),

  // ── Account ─────────────────────────────────────────────────────────────
  checkMemberBudget: post(S.CheckMemberBudgetRequest, body('checkMemberBudget'), S.CheckMemberBudgetResponse),
  listBills: get(
    S.BillListRequest,
    ({ productName, ...rest }, { paths, billProductNameParam }) => ({
      path: paths.billList,
      searchParams: { ...rest, [billProductNameParam]: productName },
    }),
    S.BillListResponse,
    JSON_GET,
  ),
  listQuotas: get(S.QuotaListRequest, query('quotaList'), S.QuotaListResponse, JSON_GET),
  listModels: get(S.EmptyRequest, query('listModels'), S.ListModelsResponse),
  getBalance: get(S.EmptyRequest, query('balanceDetail'), S.BalanceDetail, JSON_GET),
};

export type Operation = keyof typeof ENDPOINTS;

/** What an operation answers: its response schema's output, or the raw text. */
export type Answer<Op extends Operation> = (typeof ENDPOINTS)[Op]['response'] extends z.ZodType
  ? z.output<(typeof ENDPOINTS)[Op]['response']>
  : string;
