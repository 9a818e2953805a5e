import { WorkflowExecutionAlreadyStartedError } from '@temporalio/common';
import {
  ApplicationFailure,
  ChildWorkflowFailure,
  executeChild,
  ParentClosePolicy,
  proxyActivities,
  proxyLocalActivities,
  setHandler,
} from '@temporalio/workflow';
import { setVersioningBehavior } from '../../workflows/versioning';
import {
  autoRenewalWorkflowId,
  AutoRenewInput,
  type AutoRenewResult,
  type AutoRenewStatus,
  type BudgetGatedJobInput,
  type BudgetGatedJobResult,
  type ParsedAutoRenewInput,
  parseInput,
  type RenewInstanceResult,
  SearchAttributes,
  statusQuery,
  WorkflowType,
} from '@platform-ops/client';
import type { Activities as BudgetActivities } from '../budgetGatedJob/activities';
import type { Activities as InstanceActivities } from '../instances/activities';
import { planRenewals, type DueRenewal } from '../../platform/renewal-plan';
import { mapBounded } from '../../shared/lanes';
import { isoTime } from '../../shared/time';
import { summarized } from '../../workflows/activity-summary';
import type { budgetGatedJob } from '../budgetGatedJob/workflows';
import { DEFAULT_DEADLINE_MS, forUpTo, HOUR_MS, untilAfterStart } from '../../workflows/retry-policies';
import { trackStatus } from '../../workflows/status';

const LIST_DEADLINE_MS = HOUR_MS;

type Lists = Pick<AutoRenewResult, 'renewed' | 'skipped' | 'refusedByBudget' | 'failed'>;
type Outcome = { [K in keyof Lists]: { kind: K; entry: Lists[K][number] } }[keyof Lists];

export async function autoRenew(rawInput: AutoRenewInput): Promise<AutoRenewResult> {
  const input = parseInput(AutoRenewInput, rawInput, WorkflowType.autoRenew);
  const status = trackStatus<AutoRenewStatus>(WorkflowType.autoRenew, 'PRICING', { memberId: input.memberId });
  setHandler(statusQuery, () => status.current);
  const costPerRenewal =
    input.costPerMonth !== undefined ? input.costPerMonth * input.months : await priceRenewal(input);
  status.set('LISTING');
  const { listInstances } = proxyActivities<InstanceActivities>(untilAfterStart(LIST_DEADLINE_MS));
  const listed = await summarized(
    listInstances,
    `list the instances of ${input.memberId}`,
  )({ memberId: input.memberId });
  const nowMs = Date.now();
  const plan = planRenewals(listed.instances, {
    memberId: input.memberId,
    nowMs,
    beforeMs: input.beforeSeconds * 1000,
  });
  status.set('RENEWING', { due: plan.due.map((d) => d.instanceId) });
  const outcomes = await mapBounded(plan.due, input.concurrency, (due) => renewOne(input, due, costPerRenewal));
  const result: AutoRenewResult = {
    memberId: input.memberId,
    checkedAt: isoTime(nowMs),
    windowEndsAt: isoTime(nowMs + input.beforeSeconds * 1000),
    listed: listed.instances.length,
    truncated: listed.truncated,
    costPerRenewal,
    renewed: [],
    skipped: [...plan.skipped],
    refusedByBudget: [],
    failed: [],
  };
  for (const o of outcomes) (result[o.kind] as Outcome['entry'][]).push(o.entry);
  status.set('DONE', {
    renewed: result.renewed.length,
    skipped: result.skipped.length,
    refusedByBudget: result.refusedByBudget.length,
    failed: result.failed.length,
  });
  return result;
}

async function priceRenewal(input: ParsedAutoRenewInput): Promise<number> {
  const { priceBudgetJob } = proxyLocalActivities<BudgetActivities>(
    forUpTo(DEFAULT_DEADLINE_MS.budgetAdmission, { attemptMs: 30_000 }),
  );
  const job = { workflowType: 'renewInstance' as const, months: input.months };
  return (await summarized(priceBudgetJob, 'price the renewals')({ job })).cost!;
}

/** A budgetGatedJob whose id is the instance's and the expiry's, skipped without budget. */
async function renewOne(input: ParsedAutoRenewInput, due: DueRenewal, cost: number): Promise<Outcome> {
  const { instanceId } = due;
  const workflowId = autoRenewalWorkflowId(input.memberId, instanceId, due.endTime);
  const job: BudgetGatedJobInput = {
    memberId: input.memberId,
    cost,
    onInsufficient: 'skip',
    job: { workflowType: 'renewInstance', input: { instanceId, months: input.months, expectedEndTime: due.endTime } },
  };
  let result: BudgetGatedJobResult;
  try {
    result = await executeChild<typeof budgetGatedJob>(WorkflowType.budgetGatedJob, {
      workflowId,
      args: [job],
      // A renewal under way finishes (and gives its reservation back) even if this run is ended.
      parentClosePolicy: ParentClosePolicy.ABANDON,
      typedSearchAttributes: [
        { key: SearchAttributes.memberId, value: input.memberId },
        { key: SearchAttributes.instanceId, value: instanceId },
      ],
    });
  } catch (err) {
    if (err instanceof WorkflowExecutionAlreadyStartedError) {
      const reason = `a renewal for this expiry (${due.endTime}) is already running`;
      return { kind: 'skipped', entry: { instanceId, reason, workflowId } };
    }
    if (err instanceof ChildWorkflowFailure) {
      const cause = err.cause;
      const type = cause instanceof ApplicationFailure ? (cause.type ?? undefined) : undefined;
      return { kind: 'failed', entry: { instanceId, workflowId, failure: cause?.message ?? err.message, type } };
    }
    throw err;
  }
  if (result.outcome !== 'Completed') {
    return { kind: 'refusedByBudget', entry: { instanceId, workflowId, reason: result.reason ?? result.outcome } };
  }
  const renewal = result.job?.result as RenewInstanceResult;
  if (renewal.notRenewed !== undefined) {
    return { kind: 'skipped', entry: { instanceId, workflowId, reason: renewal.notRenewed } };
  }
  return {
    kind: 'renewed',
    entry: { instanceId, workflowId, endTimeBefore: renewal.endTimeBefore, endTimeAfter: renewal.endTimeAfter },
  };
}

setVersioningBehavior('AUTO_UPGRADE', autoRenew);
