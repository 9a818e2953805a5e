import {
  defineSearchAttributeKey,
  SearchAttributeType,
  type QueryDefinition,
  type SearchAttributePair,
  type SignalDefinition,
  type UpdateDefinition,
} from '@temporalio/common';
import { z } from 'zod';

export const DEFAULT_TASK_QUEUE = 'platform-ops';

export const quotaTaskQueue = (taskQueue: string, operation: string): string => `${taskQueue}.quota.${operation}`;

export const isQuotaTaskQueue = (taskQueue: string): boolean => taskQueue.includes('.quota.');

export const SearchAttributes = {
  operation: defineSearchAttributeKey('PlatformOperation', SearchAttributeType.KEYWORD),
  taskId: defineSearchAttributeKey('PlatformTaskId', SearchAttributeType.KEYWORD),
  status: defineSearchAttributeKey('PlatformStatus', SearchAttributeType.KEYWORD),
  memberId: defineSearchAttributeKey('PlatformMemberId', SearchAttributeType.KEYWORD),
  /** Estimated cost in 1/10000 USD. */
  costEstimate: defineSearchAttributeKey('PlatformCostEstimate', SearchAttributeType.INT),
  instanceId: defineSearchAttributeKey('PlatformInstanceId', SearchAttributeType.KEYWORD),
  /**
   * A batch's request counts, updated at its checkpoints (status changes and every 10 % done). The
   * total is in the batchProgress query: the dev server's SQL visibility allows 3 Int attributes.
   */
  requestsCompleted: defineSearchAttributeKey('PlatformRequestsCompleted', SearchAttributeType.INT),
  requestsFailed: defineSearchAttributeKey('PlatformRequestsFailed', SearchAttributeType.INT),
  priority: defineSearchAttributeKey('PlatformPriority', SearchAttributeType.KEYWORD),
  fairnessKey: defineSearchAttributeKey('PlatformFairnessKey', SearchAttributeType.KEYWORD),
} as const;

export const SEARCH_ATTRIBUTE_DEFINITIONS: Record<string, 'Keyword' | 'Int'> = Object.fromEntries(
  Object.values(SearchAttributes).map((k) => [k.name, k.type === SearchAttributeType.INT ? 'Int' : 'Keyword']),
);

// Message definitions as @temporalio/workflow's defineQuery and friends make them, without that
// package: the client package depends on @temporalio/client and zod only.
export const query = <R, A extends unknown[] = []>(name: string) => ({ type: 'query', name }) as QueryDefinition<R, A>;
export const signal = <A extends unknown[] = []>(name: string) => ({ type: 'signal', name }) as SignalDefinition<A>;
export const update = <R, A extends unknown[] = []>(name: string) =>
  ({ type: 'update', name }) as UpdateDefinition<R, A>;

export interface WorkflowStatus<S extends string = string> {
  operation: string;
  status: S;
  detail?: Record<string, unknown>;
}
export const statusQuery = query<WorkflowStatus>('status');

// Any string, yet the workflow's own statuses keep their completions in the union.
export type PlatformReportedStatus = string & Record<never, never>;

export const IDEMPOTENCY_MEMO = 'idempotency';
export interface IdempotencyMemo {
  key: string;
  fingerprint: string;
  nonce: string;
}

export interface WorkflowContract<I extends z.ZodType = z.ZodType, R extends z.ZodType = z.ZodType> {
  input: I;
  result: R;
  summary(input: z.output<I>): Array<string | undefined>;
  /**
   * The run's first search attributes, which its start carries: a run started with them skips its first upsert, a
   * billed Action on Temporal Cloud (attributes given at the start are not), and is found by them before it runs.
   */
  startAttributes?(input: z.output<I>): SearchAttributePair[];
  internal?: true;
}

export interface Operation {
  workflows: Record<string, WorkflowContract>;
  queries?: Record<string, QueryDefinition<unknown, unknown[]>>;
  signals?: Record<string, SignalDefinition<unknown[]>>;
  updates?: Record<string, UpdateDefinition<unknown, unknown[]>>;
}

export const defineOperation = <O extends Operation>(operation: O): O => operation;

export const workflow = <I extends z.ZodType, R extends z.ZodType, const F extends { internal?: true } = object>(
  input: I,
  result: R,
  summary: WorkflowContract<I, R>['summary'],
  flags?: F,
): WorkflowContract<I, R> & F => ({ input, result, summary, ...(flags as F) });

export const member = (id: string | undefined): string | undefined => (id ? `member ${id}` : undefined);

export const count = (n: number, noun: string): string => `${n} ${noun}${n === 1 ? '' : 's'}`;

/** Money in 1/10000 USD, as on the platform. */
export const Amount = z.number().int().min(0).max(Number.MAX_SAFE_INTEGER);
export const MemberId = z.string().min(1).max(255);
export const ATTRIBUTION = { memberId: MemberId.optional(), costEstimate: Amount.optional() };

export const notBelow = <K extends string>(
  field: K,
  than: K,
): [(v: Record<K, number>) => boolean, { path: PropertyKey[]; error: string }] => [
  (v) => v[field] >= v[than],
  { path: [field], error: `must be at least ${than}` },
];

/**
 * Priority classes of a start and their Temporal priority keys (docs/fairness.md): lower goes first.
 * Key 1 is the service's own (a budget ledger's tasks); 5 is left for an operator's "only when idle".
 */
export const PRIORITY_CLASSES = { interactive: 2, scheduled: 3, bulk: 4 } as const;
export type PriorityClass = keyof typeof PRIORITY_CLASSES;
export const SHARED_FAIRNESS_KEY = 'shared';

export const StartPriority = z.strictObject({
  priority: z.enum(Object.keys(PRIORITY_CLASSES) as [PriorityClass, ...PriorityClass[]]).optional(),
  /** The server limits a fairness key to 64 bytes; a member id or a tenant's name. */
  fairnessKey: z
    .string()
    .min(1)
    .max(64)
    .refine((k) => new TextEncoder().encode(k).length <= 64, 'at most 64 bytes')
    .optional(),
  /** The key's share against the others' (1 each by default); the server clamps to 0.001 … 1000. */
  fairnessWeight: z.number().min(0.001).max(1000).optional(),
});
export type StartPriority = z.infer<typeof StartPriority>;

export function temporalPriority(p: StartPriority, memberId: string | undefined, defaultClass: PriorityClass) {
  return {
    priorityKey: PRIORITY_CLASSES[p.priority ?? defaultClass],
    fairnessKey: p.fairnessKey ?? memberId ?? SHARED_FAIRNESS_KEY,
    ...(p.fairnessWeight === undefined ? {} : { fairnessWeight: p.fairnessWeight }),
  };
}

export function priorityClassOf(priorityKey: number | undefined): string {
  const named = Object.entries(PRIORITY_CLASSES).find(([, key]) => key === (priorityKey || 3));
  return named?.[0] ?? `priority ${priorityKey}`;
}

export const idToken = (maxLength: number) =>
  z
    .string()
    .min(1)
    .max(maxLength)
    .regex(/^[A-Za-z0-9._:@-]+$/, 'letters, digits and . _ : @ - only');

export const PlatformObjectId = idToken(128);

export const Resumed = z.object({ runId: z.string().max(64), call: z.string().max(100), found: z.string().max(300) });
export type Resumed = z.infer<typeof Resumed>;

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

export const isAttach = <T extends object>(input: T): input is Extract<T, { attach: unknown }> => 'attach' in input;

// Not a plain union, which reports whichever branch failed least: the form the caller chose reports its issues.
export function requestOrAttach<R extends z.ZodType, A extends z.ZodType>(
  request: R,
  attach: A,
  form: { requestKeys: readonly string[]; attaches: 'task' | 'batch' },
): z.ZodType<z.output<R> | z.output<A>, z.input<R> | z.input<A>> {
  return z.preprocess(
    (value, ctx) => {
      if (!isRecord(value)) return value;
      const hasAttach = Object.hasOwn(value, 'attach');
      const requestGiven = form.requestKeys.filter((k) => Object.hasOwn(value, k));
      if (hasAttach && requestGiven.length > 0) {
        ctx.addIssue({
          code: 'custom',
          path: ['attach'],
          message: `give either attach (an existing ${form.attaches}) or a request, not both (also given: ${requestGiven.join(', ')})`,
        });
        return value;
      }
      const chosen = (hasAttach ? attach : request).safeParse(value);
      if (!chosen.success) for (const issue of chosen.error.issues) ctx.addIssue({ ...issue });
      return value;
    },
    z.union([request, attach]),
  );
}
