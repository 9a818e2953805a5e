// Polls per task on the worker's Prometheus endpoint, so an operator sees what a task costs: recorded
// once per task end, from the workflow, the one place that knows both how many polls the task took
// and whether its end came by callback. Metrics are not commands: the SDK drops them on replay and they leave no
// history event, so this needs no patch.
import { metricMeter } from '@temporalio/workflow';

export const TASK_POLLS_METRIC = 'platform_task_polls';

export function recordTaskPolls(
  polls: number,
  tags: { operation: string; webhook: boolean; endedBy: 'callback' | 'poll' },
): void {
  metricMeter
    .createHistogram(TASK_POLLS_METRIC, 'int', 'polls', 'Task-result reads per task, by how its end was learnt')
    .record(polls, { operation: tags.operation, webhook: tags.webhook ? 'on' : 'off', ended_by: tags.endedBy });
}
