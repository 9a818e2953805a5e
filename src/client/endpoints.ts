// The spec's operations as data: for each, its method, the schema its request is checked with, where
// the checked request goes, and the schema that bounds its answer. PlatformClient sends them all
// through one request helper, so a new operation is an entry here and three lines there.
import type { z } from 'zod';
import type { PlatformConfig } from './config';
import type { RequestSpec } from './transport';
import { asyncSubmitPath } from '../platform/paths';
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

/** Infers each entry's schemas, so `route` sees its own request's type. */
const endpoint = <Req extends z.ZodType, Res extends z.ZodType | typeof TEXT>(e: Endpoint<Req, Res>) => e;

const enc = encodeURIComponent;

export const ENDPOINTS = {
  // ── GPU: templates, products, instances ─────────────────────────────────
  listTemplates: endpoint({
    method: 'GET',
    request: S.ListTemplatesRequest,
    route: (searchParams, { paths }) => ({ path: paths.listTemplates, searchParams }),
    response: S.ListTemplatesResponse,
  }),
  listProducts: endpoint({
    method: 'GET',
    request: S.ListProductsRequest,
    route: (filters, { paths }) => ({
      path: paths.listProducts,
      searchParams: Object.fromEntries(
        Object.entries(S.PRODUCT_FILTER_PARAMS).map(([key, name]) => [name, filters[key as keyof typeof filters]]),
      ),
    }),
    response: S.ListProductsResponse,
  }),
  renewInstance: endpoint({
    method: 'PUT',
    request: S.RenewInstanceRequest,
    route: ({ instanceId, months }, { paths }) => ({
      path: paths.renewInstance.replace('{instance_id}', enc(instanceId)),
      json: { months },
    }),
    response: S.RenewInstanceResponse,
  }),
  restartInstance: endpoint({
    method: 'POST',
    request: S.RestartInstanceRequest,
    route: (json, { paths }) => ({ path: paths.restartInstance, json }),
    response: S.RestartInstanceResponse,
  }),
  getInstance: endpoint({
    method: 'GET',
    request: S.GetInstanceRequest,
    route: (searchParams, { paths }) => ({ path: paths.getInstance, searchParams }),
    response: S.Instance,
  }),

  // ── Async media generation ──────────────────────────────────────────────
  submitImageToVideo: endpoint({
    method: 'POST',
    request: S.ImageToVideoRequest,
    route: (json, { paths }) => ({ path: asyncSubmitPath(paths.imageToVideoModel), json }),
    response: S.SubmitTaskResponse,
    paid: true,
  }),
  submitTextToVideo: endpoint({
    method: 'POST',
    request: S.TextToVideoRequest,
    route: (json, { paths }) => ({ path: asyncSubmitPath(paths.textToVideoModel), json }),
    response: S.SubmitTaskResponse,
    paid: true,
  }),
  getTaskResult: endpoint({
    method: 'GET',
    request: S.TaskResultRequest,
    route: (searchParams, { paths }) => ({ path: paths.taskResult, searchParams }),
    response: S.TaskResult,
    jsonContentType: true,
  }),

  // ── Decision evaluation ─────────────────────────────────────────────────
  evaluateDecision: endpoint({
    method: 'POST',
    request: S.DecisionEvaluationRequest,
    route: (json, { paths }) => ({ path: paths.decisionEvaluation, json }),
    response: S.DecisionEvaluationResponse,
    paid: true,
  }),

  // ── Batches and their files ─────────────────────────────────────────────
  uploadBatchInputFile: endpoint({
    method: 'POST',
    request: S.UploadBatchFileRequest,
    // Every line is checked too: the platform would only fail the batch later.
    problems: ({ content, endpoint }) => S.batchInputProblems(content, endpoint),
    route: ({ content, filename }, { paths }) => {
      const body = new FormData();
      body.append('purpose', 'batch');
      body.append('file', new Blob([content], { type: 'application/jsonl' }), filename);
      return { path: paths.files, body };
    },
    response: S.FileObject,
  }),
  getFile: endpoint({
    method: 'GET',
    request: S.FileIdRequest,
    route: ({ fileId }, { paths }) => ({ path: `${paths.files}/${enc(fileId)}` }),
    response: S.FileObject,
  }),
  getFileContent: endpoint({
    method: 'GET',
    request: S.FileIdRequest,
    route: ({ fileId }, { paths }) => ({ path: `${paths.files}/${enc(fileId)}/content` }),
    response: TEXT,
  }),
  createBatch: endpoint({
    method: 'POST',
    request: S.CreateBatchRequest,
    route: (req, { paths }) => ({
      path: paths.batches,
      json: { completion_window: S.BATCH_COMPLETION_WINDOW, ...req },
    }),
    response: S.Batch,
  }),
  getBatch: endpoint({
    method: 'GET',
    request: S.BatchIdRequest,
    route: ({ batchId }, { paths }) => ({ path: `${paths.batches}/${enc(batchId)}` }),
    response: S.Batch,
  }),
  cancelBatch: endpoint({
    method: 'POST',
    request: S.BatchIdRequest,
    route: ({ batchId }, { paths }) => ({ path: `${paths.batches}/${enc(batchId)}/cancel` }),
    response: S.Batch,
  }),
  listBatches: endpoint({
    method: 'GET',
    request: S.ListBatchesRequest,
    route: (searchParams, { paths }) => ({ path: paths.batches, searchParams }),
    response: S.ListBatchesResponse,
  }),

  // ── Account ─────────────────────────────────────────────────────────────
  checkMemberBudget: endpoint({
    method: 'POST',
    request: S.CheckMemberBudgetRequest,
    route: (json, { paths }) => ({ path: paths.checkMemberBudget, json }),
    response: S.CheckMemberBudgetResponse,
  }),
  listBills: endpoint({
    method: 'GET',
    request: S.BillListRequest,
    route: ({ productName, ...rest }, { paths, billProductNameParam }) => ({
      path: paths.billList,
      searchParams: { ...rest, [billProductNameParam]: productName },
    }),
    response: S.BillListResponse,
    jsonContentType: true,
  }),
  listQuotas: endpoint({
    method: 'GET',
    request: S.QuotaListRequest,
    route: (searchParams, { paths }) => ({ path: paths.quotaList, searchParams }),
    response: S.QuotaListResponse,
    jsonContentType: true,
  }),
};

export type Operation = keyof typeof ENDPOINTS;

/** What an operation answers: its response schema's output, or the raw text. */
export type Answer<Op extends Operation> = (typeof ENDPOINTS)[Op]['response'] extends z.ZodType
  ? z.output<(typeof ENDPOINTS)[Op]['response']>
  : string;
