// The contract of serverlessEndpoint: one long-lived run per endpoint, keyed by its name, that owns its lifecycle.
// Changes arrive as Updates and are applied one at a time; each returns once the platform shows the outcome.
import { z } from 'zod';
import { defineOperation, MemberId, query, update, workflow } from '../contract';
import { EndpointConfig, EndpointName } from '../platform/endpoints';

export type ServerlessEndpointStatus =
  | 'NOT_DEPLOYED'
  | 'CHECKING'
  | 'CREATING'
  | 'UPDATING'
  | 'SCALING'
  | 'WAITING_TO_SERVE'
  | 'SERVING'
  | 'ROLLING_BACK'
  | 'FAILED'
  | 'REMOVING'
  | 'REMOVED';

/** A second change while one is applied waits its turn (`wait`) or is refused at once (`refuse`). */
const WhenBusy = z.enum(['wait', 'refuse']).default('wait');

const Seconds = (min: number, max: number, byDefault: number) => z.number().int().min(min).max(max).default(byDefault);

export const EndpointWorkers = z.object({
  running: z.number().int(),
  healthy: z.number().int(),
  total: z.number().int(),
});
export type EndpointWorkers = z.infer<typeof EndpointWorkers>;

export const EndpointReservation = z.object({ memberId: z.string(), reservationId: z.string(), cost: z.number() });
export type EndpointReservation = z.infer<typeof EndpointReservation>;

export const EndpointView = z
  .object({
    name: z.string(),
    status: z.string(),
    endpointId: z.string().optional(),
    /** The platform's own state (`serving`, `initializing`, `failed`, …) and its reason when it failed. */
    platformState: z.string().optional(),
    reason: z.string().optional(),
    url: z.string().optional(),
    workers: EndpointWorkers,
    minWorkers: z.number().int().optional(),
    maxWorkers: z.number().int().optional(),
    /** Worker-seconds seen running since the run began (over continue-as-new), and their cost in 1/10000 USD. */
    workerSeconds: z.number(),
    costSoFar: z.number().int(),
    /** 1/10000 USD per worker-hour: the product's per-card price times the GPUs per worker. */
    workerHourPrice: z.number().int().optional(),
    /** What the member's budget holds for this endpoint, from a budget-gated deploy until the next one or remove. */
    reservation: EndpointReservation.optional(),
    changesApplied: z.number().int(),
    lastChange: z
      .object({
        kind: z.string(),
        outcome: z.enum(['applied', 'failed', 'rolledBack']),
        message: z.string().optional(),
      })
      .optional(),
  })
  .meta({ title: 'serverlessEndpoint state' });
export type EndpointView = z.infer<typeof EndpointView>;

/** What a run carries over continue-as-new. */
export const EndpointCarried = z.object({
  endpointId: z.string().optional(),
  servedConfig: EndpointConfig.optional(),
  view: EndpointView.optional(),
  observedAt: z.number().optional(),
});

export const ServerlessEndpointInput = z
  .strictObject({
    name: EndpointName,
    /** How long a deploy or scale waits for the endpoint to serve with its minimum of healthy workers. */
    serveTimeoutSeconds: Seconds(30, 86_400, 1_800),
    /** How long a remove waits for the platform to stop listing it. */
    removeTimeoutSeconds: Seconds(30, 86_400, 900),
    /** How often a run with workers reads its endpoint between changes (state, workers, cost). */
    refreshSeconds: Seconds(10, 86_400, 600),
    pollSeconds: Seconds(1, 300, 5),
    continueAsNewAfterEvents: z.number().int().min(100).max(50_000).default(2_000),
    carried: EndpointCarried.optional(),
  })
  .meta({
    title: 'serverlessEndpoint input',
    description:
      'One serverless endpoint, by name: deploy, scale and remove it with the Updates of the same names. Started by ' +
      'the first deploy (update-with-start).',
  });
export type ServerlessEndpointInput = z.input<typeof ServerlessEndpointInput>;
export type ParsedServerlessEndpointInput = z.output<typeof ServerlessEndpointInput>;

/** A deploy gated on a member's budget: it reserves the minimum workers' cost for `hours` before anything is sent. */
export const EndpointBudget = z.strictObject({
  memberId: MemberId,
  hours: z
    .number()
    .int()
    .min(1)
    .max(31 * 24),
});

export const DeployEndpointRequest = z.strictObject({
  config: EndpointConfig,
  whenBusy: WhenBusy,
  budget: EndpointBudget.optional(),
  /**
   * How long workers may run without turning healthy before the deploy fails as EndpointUnhealthy (and a new endpoint
   * is deleted, an update rolled back), since they bill all the while.
   */
  unhealthyTimeoutSeconds: Seconds(30, 86_400, 600),
});
export type DeployEndpointRequest = z.input<typeof DeployEndpointRequest>;

export const ScaleEndpointRequest = z
  .strictObject({
    minWorkers: z.number().int().min(0).max(1_000),
    maxWorkers: z.number().int().min(1).max(1_000),
    whenBusy: WhenBusy,
  })
  .refine((r) => r.minWorkers <= r.maxWorkers, { path: ['minWorkers'], error: 'must be at most maxWorkers' });
export type ScaleEndpointRequest = z.input<typeof ScaleEndpointRequest>;

export const RemoveEndpointRequest = z.strictObject({ whenBusy: WhenBusy });
export type RemoveEndpointRequest = z.input<typeof RemoveEndpointRequest>;

export interface EndpointChangeResult {
  kind: 'deploy' | 'scale' | 'remove';
  endpointId?: string;
  url?: string;
  platformState?: string;
  workers: EndpointWorkers;
  /** The create was found made by an earlier attempt or run: nothing was created twice. */
  alreadyApplied: boolean;
  /** The update failed and the endpoint went back to the last config that served. */
  rolledBack?: { reason: string };
}

export const serverlessEndpointWorkflowId = (name: string): string => `serverlessEndpoint:${name}`;

export const serverlessEndpoint = defineOperation({
  workflows: {
    serverlessEndpoint: workflow(ServerlessEndpointInput, EndpointView, (i) => [`serverless endpoint ${i.name}`], {
      internal: true,
    }),
  },
  queries: { endpointState: query<EndpointView>('endpointState') },
  updates: {
    deployEndpoint: update<EndpointChangeResult, [DeployEndpointRequest]>('deployEndpoint'),
    scaleEndpoint: update<EndpointChangeResult, [ScaleEndpointRequest]>('scaleEndpoint'),
    removeEndpoint: update<EndpointChangeResult, [RemoveEndpointRequest]>('removeEndpoint'),
  },
});
export const endpointStateQuery = serverlessEndpoint.queries.endpointState;
export const {
  deployEndpoint: deployEndpointUpdate,
  scaleEndpoint: scaleEndpointUpdate,
  removeEndpoint: removeEndpointUpdate,
} = serverlessEndpoint.updates;
