// The workflow's business status, for operators: answered by the `status` query (each workflow
// registers it at its top with `current`), and mirrored to the PlatformStatus search attribute only
// when it changes (never once per poll).
import type { SearchAttributeUpdatePair } from '@temporalio/common';
import { upsertSearchAttributes } from '@temporalio/workflow';
import { SearchAttributes, type WorkflowStatus, type WorkflowTypeName } from '../api/names';

export interface StatusTracker {
  /** `also`: other attributes that change with it, upserted in the same command (one history event). */
  set(status: string, detail?: Record<string, unknown>, also?: SearchAttributeUpdatePair[]): void;
  detail(patch: Record<string, unknown>): void;
  /** What the `status` query answers. */
  readonly current: WorkflowStatus;
}

export function trackStatus(
  operation: WorkflowTypeName,
  initial: string,
  attributes: { instanceId?: string; taskId?: string; memberId?: string } = {},
): StatusTracker {
  let state: WorkflowStatus = { operation, status: initial, detail: {} };
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
    },
    detail(patch) {
      state = { ...state, detail: { ...state.detail, ...patch } };
    },
    get current() {
      return state;
    },
  };
}
