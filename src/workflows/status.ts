// The `status` query's answer, mirrored to the PlatformStatus search attribute only when it changes, and the run's
// current details in the UI.
import type { SearchAttributeUpdatePair } from '@temporalio/common';
import { setCurrentDetails, upsertSearchAttributes } from '@temporalio/workflow';
import { SearchAttributes, type WorkflowStatus, type WorkflowTypeName } from '@platform-ops/client';

export interface StatusTracker<S extends string = string> {
  /** `also`: other attributes that change with it, upserted in the same command (one history event). */
  set(status: S, detail?: Record<string, unknown>, also?: SearchAttributeUpdatePair[]): void;
  detail(patch: Record<string, unknown>): void;
  readonly current: WorkflowStatus<S>;
}

interface StartAttributes {
  instanceId?: string;
  taskId?: string;
  memberId?: string;
  /** Upserted in a command of its own, after the others. */
  costEstimate?: number;
}

export function trackStatus<S extends string>(
  operation: WorkflowTypeName,
  initial: NoInfer<S>,
  attributes: StartAttributes = {},
): StatusTracker<S> {
  let state: WorkflowStatus<S> = { operation, status: initial, detail: {} };
  const show = () => setCurrentDetails(renderCurrentDetails(state));
  show();
  const ids = (['instanceId', 'taskId', 'memberId'] as const).filter((k) => attributes[k]);
  upsertSearchAttributes([
    { key: SearchAttributes.operation, value: operation },
    { key: SearchAttributes.status, value: initial },
    ...ids.map((k) => ({ key: SearchAttributes[k], value: attributes[k]! })),
  ]);
  if (attributes.costEstimate !== undefined) {
    upsertSearchAttributes([{ key: SearchAttributes.costEstimate, value: attributes.costEstimate }]);
  }
  return {
    set(status, detail, also = []) {
      const changes = status !== state.status ? [...also, { key: SearchAttributes.status, value: status }] : also;
      if (changes.length > 0) upsertSearchAttributes(changes);
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
    update(patch: Partial<P>, also?: SearchAttributeUpdatePair[]) {
      progress = { ...progress, ...patch };
      if (patch.status !== undefined) status.set(patch.status, undefined, also);
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
