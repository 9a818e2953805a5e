// fetch for URLs the worker did not choose: no credentials of ours, redirects followed by hand (at
// most 5), and the policy checked on every hop, the addresses a host resolves to included, so
// neither the URL nor a redirect can lead into loopback, link-local or private ranges unless that
// very host is listed (the local emulator). A name could resolve differently a moment later (DNS
// rebinding); the allow-list is the main guard, this check the second.
import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { isNonPublicAddress } from './addresses';
import { FetchRefusedError, matchHost, urlRefusal, type FetchPolicy } from './policy';

const MAX_REDIRECTS = 5;

/** GETs `url` under `policy`; throws FetchRefusedError for a URL or hop the policy refuses. */
export async function guardedFetch(url: URL, policy: FetchPolicy, signal: AbortSignal): Promise<Response> {
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
