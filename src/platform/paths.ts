// Where each operation lives. The spec's paths are the defaults; where the spec shows none, the
// platform-notes paths (batches, files, get, start, stop and delete instance) or this project's own choice (decision
// evaluation, create and list instances) are used. Every such default can be overridden from the environment (config.ts).

export interface PlatformPaths {
  listTemplates: string;
  listProducts: string;
  /** `{instance_id}` is replaced with the URL-encoded instance id. */
  renewInstance: string;
  restartInstance: string;
  getInstance: string;
  /** Create, list, start, stop, delete: not shown in the spec (platform-notes, and our choice for create and list). */
  createInstance: string;
  listInstances: string;
  startInstance: string;
  stopInstance: string;
  deleteInstance: string;
  /** The vendor path segment of the image-to-video model, appended to `/v3/async/`. */
  imageToVideoModel: string;
  /** The vendor path segment of the text-to-video model, appended to `/v3/async/`. */
  textToVideoModel: string;
  taskResult: string;
  decisionEvaluation: string;
  /** Base of the files API: upload (POST), get (`/{id}`), content (`/{id}/content`). */
  files: string;
  /** Base of the batches API: create (POST), list (GET), get (`/{id}`), cancel (`/{id}/cancel`). */
  batches: string;
  checkMemberBudget: string;
  billList: string;
  quotaList: string;
  /** The model list, the worker's first call (spec: `GET /v1/models`). */
  listModels: string;
  /** The account balance, read once at worker start (platform-notes). */
  balanceDetail: string;
}

export const DEFAULT_PATHS: PlatformPaths = {
  listTemplates: '/gpus/v2/templates',
  listProducts: '/gpus/v2/products',
  renewInstance: '/gpus/v2/instances/{instance_id}/renew',
  restartInstance: '/gpu-instance/openapi/v1/gpu/instance/restart',
  getInstance: '/gpu-instance/openapi/v1/gpu/instance',
  createInstance: '/gpu-instance/openapi/v1/gpu/instance/create',
  listInstances: '/gpu-instance/openapi/v1/gpu/instances',
  startInstance: '/gpu-instance/openapi/v1/gpu/instance/start',
  stopInstance: '/gpu-instance/openapi/v1/gpu/instance/stop',
  deleteInstance: '/gpu-instance/openapi/v1/gpu/instance/delete',
  imageToVideoModel: 'vendor-v3.0-std-i2v',
  textToVideoModel: 'vendor-v3.0-pro-t2v',
  taskResult: '/v3/async/task-result',
  decisionEvaluation: '/v3/decision-evaluation',
  files: '/openai/v1/files',
  batches: '/openai/v1/batches',
  checkMemberBudget: '/openapi/v1/user/team/check-budget-by-cost',
  billList: '/openapi/v1/billing/apikey/bill/list',
  quotaList: '/openapi/v1/user/quota/list',
  listModels: '/v1/models',
  balanceDetail: '/openapi/v1/billing/balance/detail',
};

export const asyncSubmitPath = (modelSegment: string): string => `/v3/async/${modelSegment}`;
