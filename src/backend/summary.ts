// One line per run for the Web UI's workflow list and the run's "User Metadata": what the run is for,
// from its input ("text-to-video, 5 s, member member-demo"). Shown as the UI shows it, so short.
import type { z } from 'zod';
import { WorkflowSchemas, WorkflowType, type WorkflowTypeName } from '../api';
import { requestedVideoSeconds } from '../platform/schemas/media';

type Parsed<T extends WorkflowTypeName> = z.output<(typeof WorkflowSchemas)[T]['input']>;

const MAX_SUMMARY = 200;

const member = (id: string | undefined) => (id ? `member ${id}` : undefined);

const SUMMARIES: { [T in WorkflowTypeName]: (input: Parsed<T>) => Array<string | undefined> } = {
  // A generic model's body is the model's own: only the two video operations have seconds to show.
  [WorkflowType.mediaGeneration]: (i) =>
    'attach' in i
      ? [`attach task ${i.attach.taskId}`, member(i.memberId)]
      : i.operation === 'async'
        ? [i.model, member(i.memberId)]
        : [i.operation, `${requestedVideoSeconds(i.request)} s`, member(i.memberId)],
  [WorkflowType.batchJob]: (i) =>
    'attach' in i
      ? [`attach batch ${i.attach.batchId}`, member(i.memberId)]
      : [
          `batch to ${i.endpoint}`,
          i.requests ? `${i.requests.length} requests` : undefined,
          `${i.windowHours} h window`,
          member(i.memberId),
        ],
  [WorkflowType.renewInstance]: (i) => [`renew ${i.instanceId}`, `${i.months} month${i.months === 1 ? '' : 's'}`],
  [WorkflowType.restartInstance]: (i) => [`restart ${i.instanceId}`],
  [WorkflowType.evaluateDecision]: (i) => [`${i.questions.length} question${i.questions.length === 1 ? '' : 's'}`],
  [WorkflowType.billingReport]: (i) => [
    `${i.cycleType} bills`,
    `${new Date(i.startTime * 1000).toISOString().slice(0, 10)} to ${new Date(i.endTime * 1000).toISOString().slice(0, 10)}`,
  ],
  [WorkflowType.budgetGatedJob]: (i) => [`budget-gated ${i.job.workflowType}`, member(i.memberId)],
  [WorkflowType.budgetLedger]: (i) => [`budget ledger of member ${i.memberId}`],
  [WorkflowType.autoRenew]: (i) => [
    `auto-renew ${member(i.memberId)}`,
    `what expires within ${Math.round(i.beforeSeconds / 3600)} h`,
  ],
  [WorkflowType.createInstance]: (i) => [
    `create ${i.request.name}`,
    `${i.request.gpuNum} × ${i.request.productId}`,
    i.request.months ? `${i.request.months} month${i.request.months === 1 ? '' : 's'}` : i.request.billingMode,
  ],
  [WorkflowType.startInstance]: (i) => [`start ${i.instanceId}`],
  [WorkflowType.stopInstance]: (i) => [`stop ${i.instanceId}`],
  [WorkflowType.deleteInstance]: (i) => [`delete ${i.instanceId}`],
};

export function workflowSummary(type: WorkflowTypeName, parsedInput: unknown): string {
  const parts = (SUMMARIES[type] as (input: unknown) => Array<string | undefined>)(parsedInput);
  const line = parts.filter((p): p is string => p !== undefined && p !== '').join(', ');
  return line.length > MAX_SUMMARY ? `${line.slice(0, MAX_SUMMARY - 1)}…` : line;
}
