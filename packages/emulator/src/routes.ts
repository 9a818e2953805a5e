// The route table: which platform operation a (method, URL pattern) is, under which key it is counted
// and can be given faults. One table, applied by an onRoute hook to every route (the batch helper's
// too), so counters and faults cover routes this module does not register itself.
import type { RouteOptions } from 'fastify';
import { asyncSubmitPath, type PlatformPaths } from '@platform-ops/client';

type RouteKind = 'platform' | 'admin' | 'files' | 'health' | 'unknown';

export interface RouteInfo {
  /** The key in counters and fault configs: a DEFAULT_PATHS key, or the operation name for submits and batch routes. */
  key: string;
  /** Other names a fault config may use for this route (client operation names, DEFAULT_PATHS keys). */
  aliases: readonly string[];
  kind: RouteKind;
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Set by the onRoute hook from the route table. */
    emulatorRoute?: RouteInfo;
  }
}

interface Entry {
  method: string;
  path: string;
  key: string;
  aliases?: string[];
}

/**
 * The alias of every call that commits money (a renewal, a generation, a decision, a batch): a fault
 * config's `paid` entry reaches exactly the calls a duplicate of which would be paid twice.
 */
export const PAID = 'paid';

/** The key of output file downloads: given faults only when a config names it (never through `*`). */
const OUTPUT_FILE_KEY = 'outputFile';

/** `{instance_id}` → `:instance_id`, then every parameter name dropped, so names never matter. */
const normalize = (url: string): string => url.replace(/\{[^}]+\}/g, ':p').replace(/:[^/]+/g, ':');

function entries(paths: PlatformPaths): Entry[] {
  return [
    { method: 'GET', path: paths.listTemplates, key: 'listTemplates' },
    { method: 'GET', path: paths.listProducts, key: 'listProducts' },
    { method: 'PUT', path: paths.renewInstance, key: 'renewInstance', aliases: [PAID] },
    { method: 'POST', path: paths.restartInstance, key: 'restartInstance' },
    { method: 'GET', path: paths.getInstance, key: 'getInstance' },
    // A subscription's create pays for its months up front.
    { method: 'POST', path: paths.createInstance, key: 'createInstance', aliases: [PAID] },
    { method: 'GET', path: paths.listInstances, key: 'listInstances' },
    { method: 'POST', path: paths.startInstance, key: 'startInstance' },
    { method: 'POST', path: paths.stopInstance, key: 'stopInstance' },
    { method: 'POST', path: paths.deleteInstance, key: 'deleteInstance' },
    { method: 'GET', path: paths.endpointLimits, key: 'endpointLimits' },
    // An endpoint's workers bill from the create on.
    { method: 'POST', path: paths.createEndpoint, key: 'createEndpoint', aliases: [PAID] },
    { method: 'GET', path: paths.listEndpoints, key: 'listEndpoints' },
    { method: 'GET', path: paths.getEndpoint, key: 'getEndpoint' },
    { method: 'POST', path: paths.updateEndpoint, key: 'updateEndpoint' },
    { method: 'POST', path: paths.deleteEndpoint, key: 'deleteEndpoint' },
    // DEFAULT_PATHS names the submits by their model segment, which is no operation: the client's names win.
    {
      method: 'POST',
      path: asyncSubmitPath(paths.imageToVideoModel),
      key: 'submitImageToVideo',
      aliases: ['imageToVideoModel', PAID],
    },
    {
      method: 'POST',
      path: asyncSubmitPath(paths.textToVideoModel),
      key: 'submitTextToVideo',
      aliases: ['textToVideoModel', PAID],
    },
    // Every other model (POST /v3/async/<model>, the registry's): one key, whatever the model.
    { method: 'POST', path: asyncSubmitPath(':model'), key: 'submitAsyncTask', aliases: [PAID] },
    { method: 'GET', path: paths.taskResult, key: 'taskResult', aliases: ['getTaskResult'] },
    { method: 'POST', path: paths.decisionEvaluation, key: 'decisionEvaluation', aliases: ['evaluateDecision', PAID] },
    { method: 'POST', path: paths.checkMemberBudget, key: 'checkMemberBudget' },
    { method: 'GET', path: paths.billList, key: 'billList', aliases: ['listBills'] },
    { method: 'GET', path: paths.quotaList, key: 'quotaList', aliases: ['listQuotas'] },
    { method: 'GET', path: paths.listModels, key: 'listModels' },
    { method: 'GET', path: paths.balanceDetail, key: 'balanceDetail', aliases: ['getBalance'] },
    // Batch and file routes (registered by ./batches): one key per operation, plus the DEFAULT_PATHS group key.
    { method: 'POST', path: paths.files, key: 'uploadBatchInputFile', aliases: ['files'] },
    { method: 'GET', path: paths.files, key: 'listFiles', aliases: ['files'] },
    { method: 'GET', path: `${paths.files}/:id`, key: 'getFile', aliases: ['files'] },
    { method: 'DELETE', path: `${paths.files}/:id`, key: 'deleteFile', aliases: ['files'] },
    { method: 'GET', path: `${paths.files}/:id/content`, key: 'getFileContent', aliases: ['files'] },
    { method: 'POST', path: paths.batches, key: 'createBatch', aliases: ['batches', PAID] },
    { method: 'GET', path: paths.batches, key: 'listBatches', aliases: ['batches'] },
    { method: 'GET', path: `${paths.batches}/:id`, key: 'getBatch', aliases: ['batches'] },
    { method: 'POST', path: `${paths.batches}/:id/cancel`, key: 'cancelBatch', aliases: ['batches'] },
  ];
}

export const OUTPUT_FILES_PREFIX = '/_files';
export const ADMIN_PREFIX = '/_emulator';
export const HEALTH_PATH = '/healthz';

export class RouteTable {
  private readonly byRoute = new Map<string, RouteInfo>();
  /** Every name a fault config may use, `*` and `outputFile` included. */
  readonly faultKeys: ReadonlySet<string>;
  /** Every counter key of a platform route. */
  readonly platformKeys: readonly string[];

  constructor(paths: PlatformPaths) {
    const names = new Set<string>(['*', OUTPUT_FILE_KEY]);
    const keys: string[] = [];
    for (const e of entries(paths)) {
      const info: RouteInfo = { key: e.key, aliases: e.aliases ?? [], kind: 'platform' };
      this.byRoute.set(`${e.method} ${normalize(e.path)}`, info);
      names.add(e.key);
      for (const a of info.aliases) names.add(a);
      keys.push(e.key);
    }
    this.faultKeys = names;
    this.platformKeys = keys;
  }

  /** Classifies a route once, at registration; HEAD routes share their GET route's info. */
  classify(method: string, url: string): RouteInfo {
    const m = method === 'HEAD' ? 'GET' : method;
    const known = this.byRoute.get(`${m} ${normalize(url)}`);
    if (known) return known;
    if (url.startsWith(ADMIN_PREFIX)) return { key: 'admin', aliases: [], kind: 'admin' };
    if (url.startsWith(OUTPUT_FILES_PREFIX)) return { key: OUTPUT_FILE_KEY, aliases: [], kind: 'files' };
    if (url === HEALTH_PATH) return { key: 'healthz', aliases: [], kind: 'health' };
    // A platform route this table does not know yet: still counted and open to faults under its pattern.
    return { key: `${m} ${url}`, aliases: [], kind: 'platform' };
  }

  /** The onRoute hook: stores each route's info in its config, read per request without a lookup. */
  readonly onRoute = (route: RouteOptions): void => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    const info = this.classify(String(methods[0]), route.url);
    route.config = { ...(route.config ?? {}), emulatorRoute: info };
  };
}

/** Info for requests that matched no route (fastify's 404). */
export const UNKNOWN_ROUTE: RouteInfo = { key: 'notFound', aliases: [], kind: 'unknown' };
