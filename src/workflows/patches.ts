// Every patch id of the workflow code, in one place. A change to what a workflow schedules is shipped
// behind `patched(id)`: runs that started before it replay the old branch, new runs take the new one.
// An old branch can be removed (deprecatePatch first, then the id) once no run that started before
// the patch shipped is still open; docs/versioning.md says how to check.
export const Patch = {
  /** 2026-11: mediaGeneration waits by retry-as-poll instead of a heartbeating activity. */
  mediaRetryAsPoll: 'media-retry-as-poll',
  /** 2026-11: restartInstance waits for `running` by retry-as-poll instead of a heartbeating activity. */
  restartRetryAsPoll: 'restart-retry-as-poll',
  /** 2026-11: batchJob follows its batch by retry-as-poll instead of a heartbeating activity. */
  batchRetryAsPoll: 'batch-retry-as-poll',
  /** 2026-11: budgetGatedJob prices in a local activity: no round trip and workflow task before reserving. */
  budgetLocalPrice: 'budget-local-price',
  /** 2026-11: budgetLedger checks each batch in a local activity, answering it in the task that took it in. */
  ledgerLocalCheck: 'ledger-local-check',
  /**
   * 2026-11: mediaGeneration resubmits attempts the platform refused until its deadline, not up to
   * `submission.maxAttempts`, which now bounds only the attempts that may have created a paid task.
   */
  mediaResubmitUntilDeadline: 'media-resubmit-until-deadline',
  /** 2026-11: batchJob lets a create in flight answer when cancelled, then cancels the batch it made. */
  batchCreateThenCancel: 'batch-create-then-cancel',
  /**
   * 2026-11: budgetLedger version 1 (./budget/ledger-version.ts): a reservation follows its job across
   * a reset or a retried run. Older ledgers continue as new on it at their next workflow task.
   */
  ledgerVersion1: 'ledger-version-1',
  /**
   * 2026-11: mediaGeneration sends each submit on its quota's task queue, which the server paces for
   * every worker (docs/rate-limits.md), instead of on the workflow's own queue.
   */
  mediaSubmitQuotaQueue: 'media-submit-quota-queue',
  /**
   * 2026-11: mediaGeneration whose submit carried a callback URL waits for the callback signal or its
   * (sparse) fallback poll, whichever comes first, and cancels the poll when the callback wins.
   */
  mediaWebhookFirst: 'media-webhook-first',
} as const;
