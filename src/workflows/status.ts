// The workflow's business status, for operators: answered by the `status` query, and mirrored to the
// PlatformStatus search attribute only when it changes (never once per poll).
import { setHandler, upsertSearchAttributes } from '@temporalio/workflow';
import { SearchAttributes, statusQuery, type WorkflowStatus, type WorkflowTypeName } from '../api/names';

export interface StatusTracker {
  set(status: string, detail?: Record<string, unknown>): void;
  detail(patch: Record<string, unknown>): void;
  readonly current: WorkflowStatus;
}

export function trackStatus(
  operation: WorkflowTypeName,
  initial: string,
  attributes: { instanceId?: string; taskId?: string; memberId?: string } = {},
): StatusTracker {
  let state: WorkflowStatus = { operation, status: initial, detail: {} };
  setHandler(statusQuery, () => state);
  upsertSearchAttributes([
    { key: SearchAttributes.operation, value: operation },
    { key: SearchAttributes.status, value: initial },
    ...(attributes.instanceId ? [{ key: SearchAttributes.instanceId, value: attributes.instanceId }] : []),
    ...(attributes.taskId ? [{ key: SearchAttributes.taskId, value: attributes.taskId }] : []),
    ...(attributes.memberId ? [{ key: SearchAttributes.memberId, value: attributes.memberId }] : []),
  ]);
  return {
    set(status, detail) {
      if (status !== state.status) upsertSearchAttributes([{ key: SearchAttributes.status, value: status }]);
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
