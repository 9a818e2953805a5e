export const DEFAULT_PATHS = {
  listTemplates: '/gpus/v2/templates',
  listProducts: '/gpus/v2/products',
  /** `{instance_id}` is replaced with the URL-encoded instance id. */
  renewInstance: '/gpus/v2/instances/{instance_id}/renew',
  restartInstance: '/gpu-instance/openapi/v1/gpu/instance/restart',
  getInstance: '/gpu-instance/openapi/v1/gpu/instance',
  createInstance: '/gpu-instance/openapi/v1/gpu/instance/create',
  listInstances: '/gpu-instance/openapi/v1/gpu/instances',
  startInstance: '/gpu-instance/openapi/v1/gpu/instance/start',
  stopInstance: '/gpu-instance/openapi/v1/gpu/instance/stop',
  deleteInstance: '/gpu-instance/openapi/v1/gpu/instance/delete',
  endpointLimits: '/gpu-instance/openapi/v1/endpoint/limit',
  createEndpoint: '/gpu-instance/openapi/v1/endpoint/create',
  listEndpoints: '/gpu-instance/openapi/v1/endpoints',
  getEndpoint: '/gpu-instance/openapi/v1/endpoint',
  updateEndpoint: '/gpu-instance/openapi/v1/endpoint/update',
  deleteEndpoint: '/gpu-instance/openapi/v1/endpoint/delete',
  /** The vendor path segments of the two video models, appended to `/v3/async/`. */
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

export type PlatformPaths = Record<keyof typeof DEFAULT_PATHS, string>;

export const asyncSubmitPath = (modelSegment: string): string => `/v3/async/${modelSegment}`;
