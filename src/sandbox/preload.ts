// The modules every workflow shares. The workflow bundle evaluates this once per reusable V8 context
// (bundler `preloadModules`, src/worker.ts) instead of once per workflow: building the zod schemas is
// most of what a workflow costs to start and to keep (about 3 MB and 80 ms each, measured).
//
// Only pure modules belong here: no @temporalio/* (its workflow state is per workflow), nothing with
// module-level mutable state. The SDK deep-freezes them after this runs.
import './zod-settings'; // first: the schemas below are built with it
import * as batchSchemas from '../api/schemas/batch';
import * as billingSchemas from '../api/schemas/billing';
import * as budgetSchemas from '../api/schemas/budget';
import * as decisionSchemas from '../api/schemas/decision';
import * as instanceSchemas from '../api/schemas/instances';
import * as instanceLifecycleSchemas from '../api/schemas/instance-lifecycle';
import * as autoRenewSchemas from '../api/schemas/auto-renew';
import * as mediaSchemas from '../api/schemas/media';
import * as platformBatches from '../platform/schemas/batches';
import * as platformDecision from '../platform/schemas/decision';
import * as platformMedia from '../platform/schemas/media';
// The model registry, its JSON Schemas compiled to zod here, once per context.
import * as platformModels from '../platform/models';
import * as platformInstanceLifecycle from '../platform/schemas/instance-lifecycle';
import { materialize } from './materialize';

materialize([
  batchSchemas,
  billingSchemas,
  budgetSchemas,
  decisionSchemas,
  instanceSchemas,
  instanceLifecycleSchemas,
  autoRenewSchemas,
  mediaSchemas,
  platformBatches,
  platformDecision,
  platformMedia,
  platformModels,
  platformInstanceLifecycle,
]);
