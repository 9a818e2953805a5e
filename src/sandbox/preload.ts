// The modules every workflow shares. The workflow bundle evaluates this once per reusable V8 context
// (bundler `preloadModules`, src/worker.ts) instead of once per workflow: building the zod schemas is
// most of what a workflow costs to start and to keep (about 3 MB and 80 ms each, measured).
//
// Only pure modules belong here: no @temporalio/workflow (its state is per workflow), nothing with
// module-level mutable state. The SDK deep-freezes them after this runs.
import './zod-settings'; // first: the schemas below are built with it
// Every operation's contract module (src/workflows/operations.ts), the platform schemas workflows
// check requests with, and the model registry (its JSON Schemas compiled to zod here, once per context).
import { CONTRACTS } from '../workflows/operations';
import * as platformModels from '../platform/models';
import * as platformBatches from '../platform/schemas/batches';
import * as platformDecision from '../platform/schemas/decision';
import * as platformGpu from '../platform/schemas/gpu';
import * as platformMedia from '../platform/schemas/media';
import { materialize } from './materialize';

materialize([CONTRACTS, platformBatches, platformDecision, platformGpu, platformMedia, platformModels]);
