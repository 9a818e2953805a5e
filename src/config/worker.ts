// Worker tuning from the environment, checked with zod.
import { z } from 'zod';
import { parseConfig } from '../platform-client/config';

const Env = z.object({
  // A waiting generation holds no slot (retry-as-poll): a slot is held for one poll, up to a second
  // early plus one HTTP call, and for downloads. Waits started before that design still hold one.
  WORKER_MAX_CONCURRENT_ACTIVITIES: z.coerce.number().int().min(1).max(100_000).default(1000),
  WORKER_MAX_CONCURRENT_WORKFLOW_TASKS: z.coerce.number().int().min(2).max(10_000).default(40),
  // Bounds the worker's memory, not the number of open workflows: a workflow evicted while it waits
  // is replayed from its (small) history when its next checkpoint arrives. 600 keeps a worker holding
  // 10,000 waiting generations under 1 GB (1,017 MB measured; 1,035 MB with 1,000), and cost nothing
  // measurable at 1,000 open (docs/benchmarks.md).
  WORKER_MAX_CACHED_WORKFLOWS: z.coerce.number().int().min(0).max(100_000).default(600),
  WORKER_SHUTDOWN_GRACE_SECONDS: z.coerce.number().min(0).max(3600).default(20),
  // How long a heartbeat may be held back: bounds how fast a cancellation reaches a waiting activity.
  WORKER_MAX_HEARTBEAT_THROTTLE_SECONDS: z.coerce.number().min(0.1).max(60).default(3),
  METRICS_PORT: z.coerce.number().int().min(1).max(65_535).optional(),
  LOG_LEVEL: z.enum(['TRACE', 'DEBUG', 'INFO', 'WARN', 'ERROR']).default('INFO'),
  // Whether the worker adds search attributes its namespace lacks (else it refuses to start). Unset:
  // yes for a server on this machine (a local stack), no for any other.
  WORKER_REGISTER_SEARCH_ATTRIBUTES: z
    .enum(['true', 'false'])
    .transform((v) => v === 'true')
    .optional(),
});

export type WorkerSettings = z.infer<typeof Env>;

export function loadWorkerSettings(env: NodeJS.ProcessEnv = process.env): WorkerSettings {
  return parseConfig(Env, env, 'Worker configuration');
}
