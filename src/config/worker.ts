// Worker tuning from the environment, checked with zod.
import { z } from 'zod';
import { describeZodError, formatIssues } from '../platform/validation';
import { ConfigError } from '../platform/config';

const Env = z.object({
  // Each media generation holds one slot for its whole wait (a heartbeating poll activity that mostly
  // sleeps), so the default leaves room for many concurrent generations.
  WORKER_MAX_CONCURRENT_ACTIVITIES: z.coerce.number().int().min(1).max(100_000).default(1000),
  WORKER_MAX_CONCURRENT_WORKFLOW_TASKS: z.coerce.number().int().min(2).max(10_000).default(40),
  WORKER_MAX_CACHED_WORKFLOWS: z.coerce.number().int().min(0).max(100_000).default(1000),
  WORKER_SHUTDOWN_GRACE_SECONDS: z.coerce.number().min(0).max(3600).default(20),
  // How long a heartbeat may be held back: bounds how fast a cancellation reaches a waiting activity.
  WORKER_MAX_HEARTBEAT_THROTTLE_SECONDS: z.coerce.number().min(0.1).max(60).default(3),
  METRICS_PORT: z.coerce.number().int().min(1).max(65_535).optional(),
  LOG_LEVEL: z.enum(['TRACE', 'DEBUG', 'INFO', 'WARN', 'ERROR']).default('INFO'),
});

export type WorkerSettings = z.infer<typeof Env>;

export function loadWorkerSettings(env: NodeJS.ProcessEnv = process.env): WorkerSettings {
  const parsed = Env.safeParse(env);
  if (!parsed.success) throw new ConfigError(`Worker configuration: ${formatIssues(describeZodError(parsed.error))}`);
  return parsed.data;
}
