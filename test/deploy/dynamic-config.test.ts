// The cluster's dynamic config gives every quota task queue of the default task queue one partition
// (docs/rate-limits.md: a rate limit split over partitions leaves part of a quota unused), and only
// those: the workflow and activity queues keep the server's default for throughput.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';
import { DEFAULT_TASK_QUEUE, MEDIA_OPERATIONS, quotaTaskQueue } from '@platform-ops/client';
import { DYNAMIC_CONFIG_FILE } from '../../src/devserver/server-config';

type Entries = Array<{ value: unknown; constraints?: Record<string, unknown> }>;
const config = parse(readFileSync(path.join(__dirname, '..', '..', DYNAMIC_CONFIG_FILE), 'utf8')) as Record<
  string,
  Entries
>;

describe('deploy/dynamicconfig/cluster.yaml', () => {
  it.each(['matching.numTaskqueueReadPartitions', 'matching.numTaskqueueWritePartitions'])(
    '%s: 1 for each quota queue, nothing for any other queue',
    (key) => {
      const entries = config[key];
      const queues = MEDIA_OPERATIONS.map((op) => quotaTaskQueue(DEFAULT_TASK_QUEUE, op));
      expect(entries.map((e) => e.constraints?.taskQueueName).sort()).toEqual([...queues].sort());
      for (const e of entries) expect(e).toEqual({ value: 1, constraints: { taskQueueName: expect.any(String) } });
    },
  );
});
