// Where each operation lives: the spec's paths, else platform-notes or this project's choice, as marked. Each can
// be overridden from the environment (src/platform-client/config.ts).
export const DEFAULT_PATHS = {
  listTemplates: '/gpus/v2/templates',
  listProducts: '/gpus/v2/products',
  /** `{instance_id}` is replaced with the URL-encoded instance id. */
  renewInstance: '/gpus/v2/instances/{instance_id}/renew',
  restartInstance: '/gpu-instance/openapi/v1/gpu/instance/restart',
  // Get, start, stop and delete: platform-notes; create and list: this project's choice.
  getInstance: '/gpu-instance/openapi/v1/gpu/instance',
  createInstance: '/gpu-instance/openapi/v1/gpu/instance/create',
  listInstances: '/gpu-instance/openapi/v1/gpu/instances',
  startInstance: '/gpu-instance/openapi/v1/gpu/instance/start',
  stopInstance: '/gpu-instance/openapi/v1/gpu/instance/stop',
  deleteInstance: '/gpu-instance/openapi/v1/gpu/instance/delete',
  /** The vendor path segments of the two video models, appended to `/v3/async/`. */
  imageToVideoModel: 'vendor-v3.0-std-i2v',
  textToVideoModel: 'vendor-v3.0-pro-t2v',
  taskResult: '/v3/async/task-result',
  /** This project's choice. */
  decisionEvaluation: '/v3/decision-evaluation',
  /** Bases (platform-notes) of upload, `/{id}`, `/{id}/content`; create, list, `/{id}`, `/{id}/cancel`. */
  files: '/openai/v1/files',
  batches: '/openai/v1/batches',
  checkMemberBudget: '/openapi/v1/user/team/check-budget-by-cost',
  billList: '/openapi/v1/billing/apikey/bill/list',
  quotaList: '/openapi/v1/user/quota/list',
  /** The model list, the worker's first call (spec: `GET /v1/models`). */
  listModels: '/v1/models',
  /** The account balance, read once at worker start (platform-notes). */
  balanceDetail: '/openapi/v1/billing/balance/detail',
};

export type PlatformPaths = Record<keyof typeof DEFAULT_PATHS, string>;

export const asyncSubmitPath = (modelSegment: string): string => `/v3/async/${modelSegment}`;
