// Injected, so that tests and benchmarks point the same activities elsewhere.
import type { Client } from '@temporalio/client';
import type { ArtifactStore } from '../artifacts';
import type { FetchPolicy } from '../fetching/policy';
import type { PlatformClient } from '../platform-client/client';
import type { SubmitPacing } from '../ratelimit/shared-pacing';
import type { CallbackUrls } from '../webhooks/token';
import type { PriceTable } from './budgetGatedJob/activities-price';

export interface ActivityDeps {
  platform: PlatformClient;
  artifacts: ArtifactStore;
  /** The worker's own Temporal client: budget-gated jobs reach their member's ledger through it. */
  temporal: Client;
  prices: PriceTable;
  /** Where inputFileUri and output downloads may come from (FETCH_ALLOWED_HOSTS, INPUT_FILE_DIR). */
  fetchPolicy: FetchPolicy;
  /** The shared rate limit of paid submits (src/ratelimit); without it, a 429 slows only its own attempt. */
  pacing?: SubmitPacing;
  /** Set (WEBHOOK_PUBLIC_URL): media submits ask for a callback (src/webhooks). */
  callbacks?: CallbackUrls;
}
