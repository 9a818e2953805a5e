// fetch for URLs the worker did not choose, the policy checked on every hop. A name could resolve differently a
// moment later (DNS rebinding): the allow-list is the main guard, the address check the second. Only a URL's origin
// and path reach a message: a query may carry a token.
import { lookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';
import { FetchRefusedError, matchHost, urlRefusal, type FetchPolicy } from './policy';

const MAX_REDIRECTS = 5;
const PROGRESS_EVERY_MS = 1_000;

const nonPublic = new BlockList();
for (const [net, prefix] of [
  ['0.0.0.0', 8], // "this" network
  ['10.0.0.0', 8], // private
  ['100.64.0.0', 10], // carrier-grade NAT
  ['127.0.0.0', 8], // loopback
  ['169.254.0.0', 16], // link-local (cloud metadata services live here)
  ['172.16.0.0', 12], // private
  ['192.0.0.0', 24], // protocol assignments
  ['192.168.0.0', 16], // private
  ['198.18.0.0', 15], // benchmarking
  ['224.0.0.0', 3], // multicast and reserved
  ['::', 128], // unspecified
  ['::1', 128], // loopback
  ['fc00::', 7], // unique local
  ['fe80::', 10], // link-local
  ['ff00::', 8], // multicast
] as const) {
  nonPublic.addSubnet(net, prefix, net.includes(':') ? 'ipv6' : 'ipv4');
}

export function isNonPublicAddress(address: string): boolean {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return isNonPublicAddress(mapped[1]);
  const family = isIP(address);
  if (family === 0) return false;
  return nonPublic.check(address, family === 4 ? 'ipv4' : 'ipv6');
}

async function guardedFetch(url: URL, policy: FetchPolicy, signal: AbortSignal): Promise<Response> {
  let current = url;
  for (let hop = 0; ; hop++) {
    await checkHop(current, policy, hop);
    const response = await fetch(current, { signal, redirect: 'manual' });
    const location = response.headers.get('location');
    if (response.status < 300 || response.status >= 400 || !location) return response;
    await response.body?.cancel().catch(() => undefined);
    if (hop >= MAX_REDIRECTS) throw new FetchRefusedError(`more than ${MAX_REDIRECTS} redirects`);
    current = new URL(location, current);
  }
}

async function checkHop(url: URL, policy: FetchPolicy, hop: number): Promise<void> {
  const via = hop === 0 ? '' : ` (redirect ${hop})`;
  const refusal = urlRefusal(url, policy);
  if (refusal) throw new FetchRefusedError(`${refusal}${via}`);
  // A host listed exactly may be local on purpose (the emulator); one let in by a wildcard may not.
  if (matchHost(url, policy.allowedHosts)?.exact) return;
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const addresses = isIP(host) ? [host] : (await lookup(host, { all: true })).map((a) => a.address);
  const inside = addresses.find(isNonPublicAddress);
  if (inside)
    throw new FetchRefusedError(`host ${url.host} resolves to ${inside}, which is not a public address${via}`);
}

export const isTransientStatus = (status: number) =>
  status === 408 || status === 425 || status === 429 || status >= 500;

/** The failures a download ends in, each caller's own. */
interface DownloadFailures {
  refused(why: string): unknown;
  answered(status: number): unknown;
  tooLarge(bytes: number): unknown;
  failed(what: string): unknown;
}

export interface Download {
  response: Response;
  /** Its errors are already the caller's failures. */
  body: AsyncIterable<Uint8Array>;
  signal: AbortSignal;
  /** The failure for an error met while the download ran: cancellation wins, then the timeout. */
  failed(err: unknown): unknown;
}

/** At most `maxBytes`, counted, so a false Content-Length does not get past the cap. */
export async function download(
  url: URL,
  policy: FetchPolicy,
  opts: { signal: AbortSignal; timeoutMs: number; maxBytes: number; progress(bytes: number): void },
  fail: DownloadFailures,
): Promise<Download> {
  const timeout = AbortSignal.timeout(opts.timeoutMs);
  const signal = AbortSignal.any([opts.signal, timeout]);
  const failed = (what: string): unknown => {
    if (opts.signal.aborted) return opts.signal.reason;
    return fail.failed(timeout.aborted ? `the download did not finish within ${opts.timeoutMs / 1000} s` : what);
  };
  const failedWith = (err: unknown) => failed(`the download failed (${describeError(err, url)})`);
  let response: Response;
  try {
    response = await guardedFetch(url, policy, signal);
  } catch (err) {
    if (err instanceof FetchRefusedError) throw fail.refused(err.message);
    throw failedWith(err);
  }
  const stream = response.body;
  if (!response.ok || !stream) {
    await stream?.cancel().catch(() => undefined);
    throw fail.answered(response.status);
  }
  const declared = Number(response.headers.get('content-length') ?? 0);
  if (declared > opts.maxBytes) {
    await stream.cancel().catch(() => undefined);
    throw fail.tooLarge(declared);
  }
  const body = async function* (): AsyncIterable<Uint8Array> {
    let bytes = 0;
    let toldAt = Date.now();
    try {
      // Leaving the loop early cancels the stream.
      for await (const chunk of stream as AsyncIterable<Uint8Array>) {
        bytes += chunk.byteLength;
        if (bytes > opts.maxBytes) break;
        if (Date.now() - toldAt >= PROGRESS_EVERY_MS) {
          toldAt = Date.now();
          opts.progress(bytes);
        }
        yield chunk;
      }
    } catch (err) {
      throw failed(`the download broke off after ${bytes} bytes (${describeError(err, url)})`);
    }
    if (bytes > opts.maxBytes) throw fail.tooLarge(bytes);
  };
  return { response, body: body(), signal, failed: failedWith };
}

/** With the URL's query string taken out in case it is echoed. */
function describeError(err: unknown, url: URL): string {
  // Duck-typed: fetch's errors can come from another realm (jest's sandbox), where instanceof fails.
  const asErrorLike = (v: unknown): { name?: string; message?: string; code?: string; cause?: unknown } =>
    typeof v === 'object' && v !== null ? v : {};
  const e = asErrorLike(err);
  const cause = asErrorLike(e.cause);
  const text = `${e.name ?? 'Error'}: ${e.message ?? String(err)}${cause.message ? `: ${cause.code ?? cause.message}` : ''}`;
  return url.search ? text.split(url.search).join('') : text;
}
