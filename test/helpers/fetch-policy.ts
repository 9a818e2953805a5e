// The fetch policy tests run under: loopback hosts on any port (the emulator and the tests' own
// servers), input files anywhere under the system's temp folder.
import { tmpdir } from 'node:os';
import type { FetchPolicy } from '../../src/fetching/policy';

export function testFetchPolicy(overrides: Partial<FetchPolicy> = {}): FetchPolicy {
  return { allowedHosts: ['127.0.0.1'], inputFileDir: tmpdir(), maxDownloadBytes: 64 * 2 ** 20, ...overrides };
}
