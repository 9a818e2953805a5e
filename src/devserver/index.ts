export {
  findOrBuildTemporalCli,
  findProjectRoot,
  TemporalCliNotFoundError,
  TEMPORAL_CLI_VERSION,
} from './find-temporal-cli';
export type { FindTemporalCliOptions } from './find-temporal-cli';
export { getFreePort, SERVER_DEFAULT_PARTITIONS, taskQueuePartitions, startDevServer } from './dev-server';
export type { DevServerHandle, DevServerOptions, SearchAttributeType } from './dev-server';
