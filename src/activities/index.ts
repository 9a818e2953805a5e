// Every activity of the service: each operation's src/activities/<operation>/activities.ts, for the
// operations src/workflows/operations.ts lists (an operation that only reuses others' activities has
// none). The platform client comes in by dependency injection, so tests and benchmarks point the
// same activities at the emulator.
import { existsSync } from 'node:fs';
import path from 'node:path';
import type { Client } from '@temporalio/client';
import type { ArtifactStore } from '../artifacts';
import type { PriceTable } from './budget/price';
import type { FetchPolicy } from '../fetching/policy';
import type { PlatformClient } from '../platform-client/client';
import type { SubmitPacing } from '../ratelimit/shared-pacing';
import type { CallbackUrls } from '../webhooks/token';
import { OPERATIONS } from '../workflows/operations';
import { withPlatformFailures } from './retries';

export interface ActivityDeps {
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

/** The operations that have activities of their own: those with an activities module in their folder. */
export const operationsWithActivities = (): string[] =>
  Object.keys(OPERATIONS).filter((op) =>
    ['.ts', '.js'].some((ext) => existsSync(path.join(__dirname, op, `activities${ext}`))),
  );

type ActivityFunctions = Record<string, (...args: never[]) => Promise<unknown>>;

export function createActivities(deps: ActivityDeps): ActivityFunctions {
  const all: ActivityFunctions = {};
  for (const op of operationsWithActivities()) {
    // Loaded by the operation's folder name, so that adding an operation is one line in the list.
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const module = require(path.join(__dirname, op, 'activities')) as {
      createActivities(deps: ActivityDeps): ActivityFunctions;
    };
    Object.assign(all, module.createActivities(deps));
  }
  return withPlatformFailures(all);
}
