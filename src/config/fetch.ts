// Where the worker may fetch from (batch inputFileUri, generation outputs): settings from the
// environment, checked with zod. Defaults suit a local or test setup: the platform's own host (the
// emulator serves outputs there) and the folder .data/inputs.
import path from 'node:path';
import { z } from 'zod';
import type { FetchPolicy } from '../fetching/policy';
import { parseConfig } from '../platform-client/config';

const HostEntry = z.string().regex(/^(\*\.)?[a-z0-9.-]+(:\d{1,5})?$|^\[[0-9a-f:]+\](:\d{1,5})?$/i, {
  error: 'each entry must be host, host:port or *.domain',
});

const Env = z.object({
  FETCH_ALLOWED_HOSTS: z
    .string()
    .optional()
    .transform((list) =>
      list
        ?.split(',')
        .map((h) => h.trim())
        .filter(Boolean),
    )
    .pipe(z.array(HostEntry).optional()),
  INPUT_FILE_DIR: z.string().trim().min(1).optional(),
  DOWNLOAD_MAX_MB: z.coerce.number().int().min(1).max(1_000_000).default(2_048),
});

/**
 * FETCH_ALLOWED_HOSTS (comma-separated; default: the host of PLATFORM_BASE_URL), INPUT_FILE_DIR
 * (default .data/inputs), DOWNLOAD_MAX_MB (per output file, default 2048).
 */
export function loadFetchPolicy(env: NodeJS.ProcessEnv, platformBaseUrl: string): FetchPolicy {
  const e = parseConfig(Env, env, 'Fetch configuration');
  return {
    allowedHosts: e.FETCH_ALLOWED_HOSTS ?? [new URL(platformBaseUrl).host],
    inputFileDir: path.resolve(e.INPUT_FILE_DIR ?? path.join(process.cwd(), '.data', 'inputs')),
    maxDownloadBytes: e.DOWNLOAD_MAX_MB * 2 ** 20,
  };
}
