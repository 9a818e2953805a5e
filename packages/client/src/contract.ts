// What every operation's contract builds on: the task queue, the search attributes, the `status`
// query, the attach form, and how an operation declares its workflows and messages. Each operation's
// own contract is src/workflows/<operation>/contract.ts; the list of them is packages/client/src/operations.ts.
// Pure and light: the workflows, the worker and the client package (packages/client) all read it.
import {
  defineSearchAttributeKey,
  SearchAttributeType,
  type QueryDefinition,
  type SignalDefinition,
  type UpdateDefinition,
} from '@temporalio/common';
import { z } from 'zod';

/** The default task queue; TEMPORAL_TASK_QUEUE overrides it (see src/config/settings.ts). */
export const DEFAULT_TASK_QUEUE = 'platform-ops';

/** The task queue of one operation's paid submits, paced by the server for every worker (docs/rate-limits.md). */
export const quotaTaskQueue = (taskQueue: string, operation: string): string => `${taskQueue}.quota.${operation}`;

/** Whether a task queue is one of quotaTaskQueue's (it runs paced submits only, no workflows). */
export const isQuotaTaskQueue = (taskQueue: string): boolean => taskQueue.includes('.quota.');

/** Custom search attributes. Registered by the local dev server; on another cluster, see docs/cluster.md. */
export const SearchAttributes = {
  /** Which platform operation the workflow runs (its workflow type). */
  operation: defineSearchAttributeKey('PlatformOperation', SearchAttributeType.KEYWORD),
  /** The platform's id of the async task or batch the workflow follows. */
  taskId: defineSearchAttributeKey('PlatformTaskId', SearchAttributeType.KEYWORD),
  /** The workflow's business status (RENEWING, WAITING_FOR_RUNNING, …); changes, not every poll. */
  status: defineSearchAttributeKey('PlatformStatus', SearchAttributeType.KEYWORD),
  /** The team member whose budget pays. */
  memberId: defineSearchAttributeKey('PlatformMemberId', SearchAttributeType.KEYWORD),
  /** Estimated cost in 1/10000 USD. */
  costEstimate: defineSearchAttributeKey('PlatformCostEstimate', SearchAttributeType.INT),
  /** The GPU instance a workflow acts on. */
  instanceId: defineSearchAttributeKey('PlatformInstanceId', SearchAttributeType.KEYWORD),
  /**
   * A batch's request counts, updated at its checkpoints (status changes and every 10 % done). The
   * total is in the batchProgress query: the dev server's SQL visibility allows 3 Int attributes.
   */
  requestsCompleted: defineSearchAttributeKey('PlatformRequestsCompleted', SearchAttributeType.INT),
  requestsFailed: defineSearchAttributeKey('PlatformRequestsFailed', SearchAttributeType.INT),
  /** The start's priority class (interactive, scheduled, bulk), set at the start. */
  priority: defineSearchAttributeKey('PlatformPriority', SearchAttributeType.KEYWORD),
  /** Whose fair share of a quota the run's paid submits take (docs/fairness.md), set at the start. */
  fairnessKey: defineSearchAttributeKey('PlatformFairnessKey', SearchAttributeType.KEYWORD),
} as const;

/** Name → type, as the dev server's `--search-attribute` flags and the operator API want them. */
export const SEARCH_ATTRIBUTE_DEFINITIONS: Record<string, 'Keyword' | 'Int'> = Object.fromEntries(
  Object.values(SearchAttributes).map((k) => [k.name, k.type === SearchAttributeType.INT ? 'Int' : 'Keyword']),
);

// Message definitions as @temporalio/workflow's defineQuery and friends make them, without that
// package: the client package depends on @temporalio/client and zod only.
export const query = <R, A extends unknown[] = []>(name: string) => ({ type: 'query', name }) as QueryDefinition<R, A>;
export const signal = <A extends unknown[] = []>(name: string) => ({ type: 'signal', name }) as SignalDefinition<A>;
export const update = <R, A extends unknown[] = []>(name: string) =>
  ({ type: 'update', name }) as UpdateDefinition<R, A>;

/** What the `status` query answers; `S` is the workflow's status union (in its contract). */
export interface WorkflowStatus<S extends string = string> {
  /** The workflow type. */
  operation: string;
  status: S;
  /** Workflow-specific facts (statuses seen, questions answered …). */
  detail?: Record<string, unknown>;
}
/** Every workflow answers it: its business status and what it knows so far. */
export const statusQuery = query<WorkflowStatus>('status');

/**
 * A status the platform reported that the workflow has no name of its own for, as the platform wrote
 * it; the workflow's own statuses stay in the union's completions.
 */
export type PlatformReportedStatus = string & Record<never, never>;

/**
 * The memo key of an idempotent start (packages/client/src/start.ts): the caller's key, the input's
 * sha256, and the nonce of the call that started the run. Other-language clients may set it the same way.
 */
export const IDEMPOTENCY_MEMO = 'idempotency';
export interface IdempotencyMemo {
  key: string;
  fingerprint: string;
  nonce: string;
}

/** One workflow type of an operation: what it takes, what it gives, and its line in the Web UI. */
export interface WorkflowContract<I extends z.ZodType = z.ZodType, R extends z.ZodType = z.ZodType> {
  input: I;
  result: R;
  /** The parts of the run's one-line summary in the Web UI's workflow list, from the parsed input. */
  summary(input: z.output<I>): Array<string | undefined>;
  /** Started by the service's own workflows only (a member's budget ledger), never by a caller. */
  internal?: true;
}

/** An operation's contract: its workflow types, and the queries, signals and updates callers send them. */
export interface Operation {
  workflows: Record<string, WorkflowContract>;
  queries?: Record<string, QueryDefinition<unknown, unknown[]>>;
  signals?: Record<string, SignalDefinition<unknown[]>>;
  updates?: Record<string, UpdateDefinition<unknown, unknown[]>>;
}

/** Checks an operation's shape and keeps each workflow's own input and result types. */
export const defineOperation = <O extends Operation>(operation: O): O => operation;

/** A workflow of a contract, with the summary typed by its input; `flags` marks an internal one. */
export const workflow = <I extends z.ZodType, R extends z.ZodType, const F extends { internal?: true } = object>(
  input: I,
  result: R,
  summary: WorkflowContract<I, R>['summary'],
  flags?: F,
): WorkflowContract<I, R> & F => ({ input, result, summary, ...(flags as F) });

/** "member <id>", for summaries. */
export const member = (id: string | undefined): string | undefined => (id ? `member ${id}` : undefined);

/** "3 questions", "1 month". */
export const count = (n: number, noun: string): string => `${n} ${noun}${n === 1 ? '' : 's'}`;

/** Money in 1/10000 USD, as on the platform. */
export const Amount = z.number().int().min(0).max(Number.MAX_SAFE_INTEGER);
/** The team member whose budget pays. */
export const MemberId = z.string().min(1).max(255);
/** For search attributes and reports: who pays, and the expected cost. */
export const ATTRIBUTION = { memberId: MemberId.optional(), costEstimate: Amount.optional() };

/** `.refine(...notBelow('max', 'min'))`: one bound of an input must not be below another. */
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
/** The fairness key of a paid submit whose start names no member and no key of its own. */
export const SHARED_FAIRNESS_KEY = 'shared';

/** A start's place in the quotas' queues: its class, whose share it takes, and that share's weight. */
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

/**
 * Temporal's priority for a start of `defaultClass` (the caller's kind: a backend, a schedule): the
 * fairness key is the given one, else the member who pays, else the shared one.
 */
export function temporalPriority(p: StartPriority, memberId: string | undefined, defaultClass: PriorityClass) {
  return {
    priorityKey: PRIORITY_CLASSES[p.priority ?? defaultClass],
    fairnessKey: p.fairnessKey ?? memberId ?? SHARED_FAIRNESS_KEY,
    ...(p.fairnessWeight === undefined ? {} : { fairnessWeight: p.fairnessWeight }),
  };
}

/** The class a Temporal priority key stands for, for people (the summary, the quotas report). */
export function priorityClassOf(priorityKey: number | undefined): string {
  const named = Object.entries(PRIORITY_CLASSES).find(([, key]) => key === (priorityKey || 3));
  return named?.[0] ?? `priority ${priorityKey}`;
}

/** An id that is printable, bounded, and safe inside a workflow id and a URL path. */
export const idToken = (maxLength: number) =>
  z
    .string()
    .min(1)
    .max(maxLength)
    .regex(/^[A-Za-z0-9._:@-]+$/, 'letters, digits and . _ : @ - only');

/**
 * A platform task or batch id as an attach takes it: part of the default workflow id
 * (`…:attach-task:<id>`), so within an idempotency key's 200 characters and alphabet.
 */
export const PlatformObjectId = idToken(128);

/**
 * A paid call that a run started by a reset took from an earlier run of its workflow instead of paying
 * again (docs/retries.md#a-reset-never-pays-twice): that run, the call, and what it found.
 */
export const Resumed = z.object({ runId: z.string().max(64), call: z.string().max(100), found: z.string().max(300) });
export type Resumed = z.infer<typeof Resumed>;

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Whether a parsed input is requestOrAttach's attach form. */
export const isAttach = <T extends object>(input: T): input is Extract<T, { attach: unknown }> => 'attach' in input;

/**
 * Exactly one of a request and mediaGeneration's or batchJob's `{ attach: … }` form (a task or batch
 * submitted elsewhere). The form the caller chose reports its own issues: a plain union would report
 * whichever branch failed least. `requestKeys`, the fields only a request has, are refused by name next
 * to `attach`. The JSON Schema is the union's `anyOf`.
 */
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
