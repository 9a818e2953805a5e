// The workflow's business status, for operators: answered by the `status` query (each workflow
// registers it at its top with `current`), and mirrored to the PlatformStatus search attribute only
// when it changes (never once per poll), and shown as the run's current details in the Web UI.
import type { SearchAttributeUpdatePair } from '@temporalio/common';
import { setCurrentDetails, upsertSearchAttributes } from '@temporalio/workflow';
import { SearchAttributes, type WorkflowStatus } from '../api/contract';
import { type WorkflowTypeName } from './operations';
import { renderCurrentDetails } from './current-details';

/** `S`: the workflow's status union, from its schema file (docs/contributing.md). */
export interface StatusTracker<S extends string = string> {
  /** `also`: other attributes that change with it, upserted in the same command (one history event). */
  set(status: S, detail?: Record<string, unknown>, also?: SearchAttributeUpdatePair[]): void;
  detail(patch: Record<string, unknown>): void;
  /** What the `status` query answers. */
  readonly current: WorkflowStatus<S>;
}

export function trackStatus<S extends string>(
  operation: WorkflowTypeName,
  initial: NoInfer<S>,
  attributes: { instanceId?: string; taskId?: string; memberId?: string } = {},
): StatusTracker<S> {
  let state: WorkflowStatus<S> = { operation, status: initial, detail: {} };
  const show = () => setCurrentDetails(renderCurrentDetails(state));
  show();
  upsertSearchAttributes([
    { key: SearchAttributes.operation, value: operation },
    { key: SearchAttributes.status, value: initial },
    ...(attributes.instanceId ? [{ key: SearchAttributes.instanceId, value: attributes.instanceId }] : []),
    ...(attributes.taskId ? [{ key: SearchAttributes.taskId, value: attributes.taskId }] : []),
    ...(attributes.memberId ? [{ key: SearchAttributes.memberId, value: attributes.memberId }] : []),
  ]);
  return {
    set(status, detail, also = []) {
      const changes: SearchAttributeUpdatePair[] =
        status !== state.status ? [...also, { key: SearchAttributes.status, value: status }] : also;
      if (changes.length > 0) upsertSearchAttributes(changes);
      state = { ...state, status, detail: { ...state.detail, ...detail } };
      show();
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
