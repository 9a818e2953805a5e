export {
  findOrBuildTemporalCli,
  findProjectRoot,
  TemporalCliNotFoundError,
  TEMPORAL_CLI_VERSION,
} from './find-temporal-cli';
export type { FindTemporalCliOptions } from './find-temporal-cli';
export { SERVER_DEFAULT_PARTITIONS, taskQueuePartitions, startDevServer } from './dev-server';
export { getFreePort } from './processes';
export type { DevServerHandle, DevServerOptions, SearchAttributeType } from './dev-server';
