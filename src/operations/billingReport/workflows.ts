import { proxyActivities, setHandler, workflowInfo } from '@temporalio/workflow';
import { setVersioningBehavior } from '../../workflows/versioning';
import {
  BillingReportInput,
  type BillingReportResult,
  type BillingReportStatus,
  billWindows,
  parseInput,
  statusQuery,
  WorkflowType,
} from '@platform-ops/client';
import type { Activities } from './activities';
import { HOUR_MS, untilAfterStart } from '../../workflows/retry-policies';
import { trackStatus } from '../../workflows/status';
import { summarized } from '../../workflows/activity-summary';

const DEADLINE_MS = 12 * HOUR_MS;

export async function billingReport(rawInput: BillingReportInput): Promise<BillingReportResult> {
  const input = parseInput(BillingReportInput, rawInput, WorkflowType.billingReport);
  const windows = billWindows(input.cycleType, input.startTime, input.endTime);
  const status = trackStatus<BillingReportStatus>(WorkflowType.billingReport, 'FETCHING_BILLS', {});
  setHandler(statusQuery, () => status.current);
  const platform = proxyActivities<Activities>(
    untilAfterStart(DEADLINE_MS, { attemptMs: 10 * 60_000, heartbeatMs: 2 * 60_000 }),
  );
  status.detail({ windows: windows.length });
  const [report, quotas] = await Promise.all([
    summarized(
      platform.buildBillingReport,
      `build the ${input.cycleType} billing report`,
    )({
      reportId: workflowInfo().workflowId,
      cycleType: input.cycleType,
      windows,
      category: input.category,
      productName: input.productName,
      maxConcurrency: input.maxConcurrency,
    }),
    input.includeQuotas ? summarized(platform.snapshotQuotas, 'snapshot the quotas')() : Promise.resolve(undefined),
  ]);
  status.set('REPORTED', { bills: report.bills, total: report.total });
  const { cycleType, startTime, endTime } = input;
  return { cycleType, startTime, endTime, windows, ...report, quotas };
}

setVersioningBehavior('PINNED', billingReport);
