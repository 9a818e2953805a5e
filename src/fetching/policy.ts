import path from 'node:path';

export interface FetchPolicy {
  /** "host", "host:port" or "*.domain"; https only, except to a loopback host listed exactly (the emulator). */
  allowedHosts: readonly string[];
  /** file:// URIs must name a file inside this folder (absolute). */
  inputFileDir: string;
  maxDownloadBytes: number;
}

export class FetchRefusedError extends Error {
  override readonly name = 'FetchRefusedError';
}

const LOOPBACK_NAMES = new Set(['localhost', '127.0.0.1', '[::1]']);
const isLoopbackName = (hostname: string) => LOOPBACK_NAMES.has(hostname) || /^127\.\d+\.\d+\.\d+$/.test(hostname);

/** The entry that lets `url`'s host in, and whether it names the host exactly (not by a wildcard). */
export function matchHost(url: URL, allowedHosts: readonly string[]): { exact: boolean } | undefined {
  const hostname = url.hostname.toLowerCase();
  const host = url.host.toLowerCase();
  for (const raw of allowedHosts) {
    const entry = raw.trim().toLowerCase();
    if (entry.startsWith('*.')) {
      if (hostname.endsWith(entry.slice(1)) && hostname.length > entry.length - 1) return { exact: false };
    } else if (entry === host || entry === hostname) {
      return { exact: true };
    }
  }
  return undefined;
}

export function urlRefusal(url: URL, policy: FetchPolicy): string | undefined {
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return `${url.protocol} URLs are not fetched`;
  if (url.username || url.password) return 'URLs with a user name or password are not fetched';
  const match = matchHost(url, policy.allowedHosts);
  if (!match) return `host ${url.host} is not in FETCH_ALLOWED_HOSTS`;
  if (url.protocol === 'http:' && !(match.exact && isLoopbackName(url.hostname))) {
    return `plain http is fetched only from a loopback host listed in FETCH_ALLOWED_HOSTS (use https for ${url.host})`;
  }
  return undefined;
}

export function localFileRefusal(file: string, policy: FetchPolicy): string | undefined {
  const relative = path.relative(policy.inputFileDir, path.resolve(file));
  if (relative === '' || relative.startsWith('..') || path.isAbsolute(relative)) {
    return `${file} is outside INPUT_FILE_DIR (${policy.inputFileDir})`;
  }
  return undefined;
}
