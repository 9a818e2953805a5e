// The `status` query's answer, mirrored to the PlatformStatus search attribute only when it changes, and the run's
// current details in the UI.
import type { SearchAttributeUpdatePair } from '@temporalio/common';
import { setCurrentDetails, upsertSearchAttributes, workflowInfo } from '@temporalio/workflow';
import { SearchAttributes, type WorkflowStatus, type WorkflowTypeName } from '@platform-ops/client';

export interface StatusTracker<S extends string = string> {
  /**
   * `also`: other attributes that change with it, upserted in the same command (one history event). `upsert: false`
   * shows the status in the query and the UI's details only: for one the run's next step replaces in the same
   * workflow task, where no search can see it and its upsert would be a billed Action for nothing.
   */
  set(status: S, detail?: Record<string, unknown>, also?: SearchAttributeUpdatePair[], upsert?: boolean): void;
  detail(patch: Record<string, unknown>): void;
  readonly current: WorkflowStatus<S>;
}

interface StartAttributes {
  instanceId?: string;
  taskId?: string;
  memberId?: string;
  /** Upserted in a command of its own, after the others. */
  costEstimate?: number;
  /** The type's contract has `startAttributes`: a start that carried all of these is not upserted again. */
  givenAtStart?: boolean;
}

const sameAtStart = (pairs: SearchAttributeUpdatePair[]) =>
  pairs.every(({ key, value }) => workflowInfo().typedSearchAttributes.get(key) === value);

export function trackStatus<S extends string>(
  operation: WorkflowTypeName,
  initial: NoInfer<S>,
  attributes: StartAttributes = {},
): StatusTracker<S> {
  let state: WorkflowStatus<S> = { operation, status: initial, detail: {} };
  /** What the PlatformStatus attribute holds. */
  let searchable: S = initial;
  const show = () => setCurrentDetails(renderCurrentDetails(state));
  show();
  const ids = (['instanceId', 'taskId', 'memberId'] as const).filter((k) => attributes[k]);
  const first: SearchAttributeUpdatePair[] = [
    { key: SearchAttributes.operation, value: operation },
    { key: SearchAttributes.status, value: initial },
    ...ids.map((k) => ({ key: SearchAttributes[k], value: attributes[k]! })),
  ];
  const cost: SearchAttributeUpdatePair[] =
    attributes.costEstimate === undefined
      ? []
      : [{ key: SearchAttributes.costEstimate, value: attributes.costEstimate }];
  if (!(attributes.givenAtStart && sameAtStart([...first, ...cost]))) {
    upsertSearchAttributes(first);
    if (cost.length > 0) upsertSearchAttributes(cost);
  }
  return {
    set(status, detail, also = [], upsert = true) {
      if (upsert) {
        const changes = status !== searchable ? [...also, { key: SearchAttributes.status, value: status }] : also;
        if (changes.length > 0) upsertSearchAttributes(changes);
        searchable = status;
      }
      state = { ...state, status };
      this.detail(detail ?? {});
    },
    detail(patch) {
      state = { ...state, detail: { ...state.detail, ...patch } };
      show();
    },
    get current() {
      return state;
    },
  };
}

/** A workflow's progress record, copied to the status detail. */
export function trackProgress<S extends string, P extends { status?: S }>(
  operation: WorkflowTypeName,
  initial: P & { status: S },
  attributes?: StartAttributes,
) {
  const status = trackStatus<S>(operation, initial.status, attributes);
  let progress: P = initial;
  return {
    status,
    update(patch: Partial<P>, also?: SearchAttributeUpdatePair[], upsert?: boolean) {
      progress = { ...progress, ...patch };
      if (patch.status !== undefined) status.set(patch.status, undefined, also, upsert);
      status.detail({ ...progress });
    },
    get current(): P {
      return progress;
    },
  };
}

// The UI shows a short block of current details; a long detail (a prompt, a file list) would bury the status.
const MAX_VALUE = 80;
const MAX_FACTS = 12;
const MAX_DETAILS = 1_200;

function shown(value: unknown): string | undefined {
  if (typeof value === 'string') return value.length > MAX_VALUE ? `${value.slice(0, MAX_VALUE - 1)}…` : value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (Array.isArray(value)) return `${value.length} item${value.length === 1 ? '' : 's'}`;
  return undefined;
}

export function renderCurrentDetails(state: WorkflowStatus): string {
  const facts = Object.entries(state.detail ?? {})
    .map(([key, value]) => [key, shown(value)] as const)
    .filter((entry): entry is readonly [string, string] => entry[1] !== undefined && entry[0] !== 'status')
    .slice(0, MAX_FACTS)
    .map(([key, value]) => `- ${key}: ${value}`);
  const text = [`**${state.status}**`, '', ...facts].join('\n');
  return text.length > MAX_DETAILS ? `${text.slice(0, MAX_DETAILS - 1)}…` : text;
}
