// Every activity of the service. The platform client comes in by dependency injection, so tests and
// benchmarks point the same activities at the emulator.
import type { Client } from '@temporalio/client';
import type { ArtifactStore } from '../artifacts';
import type { PriceTable } from '../config/prices';
import type { FetchPolicy } from '../fetching/policy';
import type { PlatformClient } from '../client/client';
import type { SubmitPacing } from '../ratelimit/shared-pacing';
import type { CallbackUrls } from '../webhooks/token';
import { createDecisionActivities } from './decision';
import { withPlatformFailures } from './failures';
import { createInstanceActivities } from './instances';
import { createInstanceLifecycleActivities } from './instance-lifecycle';
import {
  createBatchCancelActivities,
  createBatchCreateActivities,
  createBatchGetActivities,
  createBatchOutputActivities,
  createBatchPollActivities,
  createBatchUploadActivities,
} from './batch';
import { createBillingActivities } from './billing/report';
import { createLedgerActivities, createLedgerClientActivities, createPriceActivities } from './budget';
import { createMediaPollActivities, createMediaSubmitActivities } from './media';
import { createOutputActivities } from './outputs';

interface ActivityDeps {
  platform: PlatformClient;
  /** Where generation outputs are kept (a local folder by default). */
  artifacts: ArtifactStore;
  /** The worker's own Temporal client: budget-gated jobs reach their member's ledger through it. */
  temporal: Client;
  /** What budget-gated jobs that give no cost are priced at. */
  prices: PriceTable;
  /** Where inputFileUri and output downloads may come from (FETCH_ALLOWED_HOSTS, INPUT_FILE_DIR). */
  fetchPolicy: FetchPolicy;
  /** The shared rate limit of paid submits (src/ratelimit); without it, a 429 slows only its own attempt. */
  pacing?: SubmitPacing;
  /** Set (WEBHOOK_PUBLIC_URL): media submits ask for a callback (src/webhooks). */
  callbacks?: CallbackUrls;
}

export function createActivities(deps: ActivityDeps) {
  return withPlatformFailures({
    ...createInstanceActivities(deps.platform),
    ...createInstanceLifecycleActivities(deps.platform),
    ...createDecisionActivities(deps.platform),
    ...createMediaSubmitActivities(deps.platform, deps.pacing, deps.callbacks),
    ...createMediaPollActivities(deps.platform),
    ...createOutputActivities(deps.artifacts, deps.fetchPolicy),
    ...createBatchUploadActivities(deps.platform, deps.fetchPolicy),
    ...createBatchCreateActivities(deps.platform),
    ...createBatchPollActivities(deps.platform),
    ...createBatchGetActivities(deps.platform),
    ...createBatchCancelActivities(deps.platform),
    ...createBatchOutputActivities(deps.platform, deps.artifacts),
    ...createBillingActivities(deps.platform, deps.artifacts),
    ...createPriceActivities(deps.prices),
    ...createLedgerActivities(deps.platform, deps.temporal),
    ...createLedgerClientActivities(deps.temporal),
  });
}

export type Activities = ReturnType<typeof createActivities>;
export type { InstanceSnapshot } from './instances';
export type { CreateInstanceResult, InstanceSummary, ListInstancesResult } from './instance-lifecycle';
export type { EvaluateQuestionInput } from './decision';
export type {
  CallbackFallback,
  PollTaskInput,
  SubmitFailureDetails,
  SubmitMediaTaskInput,
  TaskCheckpoint,
} from './media';
export type { AwaitBudgetAdmissionResult, PriceBudgetJobResult } from './budget';
