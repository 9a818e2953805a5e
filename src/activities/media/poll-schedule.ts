// When to poll a task next. The platform's `eta` (seconds left) and `progress_percent` say when the
// task should end: we aim just past that moment, so an accurate hint costs one poll per phase and is
// noticed within `marginMs`. Far-off ends are approached in steps (hints drift over minutes). Without
// hints we back off exponentially with full jitter. Every gap stays within [minIntervalMs, maxIntervalMs].
import type { PollingOptions } from '../../api/schemas/media';

export interface PollSample {
  /** Real epoch ms of the poll. */
  at: number;
  status: string;
  eta?: number;
  progressPercent?: number;
}

/** Beyond this, aim at a fraction of the remaining time and look again, instead of at the end. */
const FAR_MS = 20_000;
const FAR_FRACTION = 0.8;

/** Milliseconds left, from the eta and from the progress rate between two samples of one phase. */
export function estimateRemainingMs(latest: PollSample, previous?: PollSample): number | undefined {
  const estimates: number[] = [];
  if (latest.eta !== undefined && latest.eta > 0) estimates.push(latest.eta * 1000);
  if (
    previous &&
    previous.status === latest.status &&
    latest.progressPercent !== undefined &&
    previous.progressPercent !== undefined &&
    latest.progressPercent > previous.progressPercent &&
    latest.progressPercent < 100
  ) {
    const ratePerMs = (latest.progressPercent - previous.progressPercent) / (latest.at - previous.at);
    estimates.push((100 - latest.progressPercent) / ratePerMs);
  }
  // The eta is whole seconds, rounded up; the progress rate is finer. The earlier one wins: polling a
  // little early costs one cheap poll, polling late costs detection time.
  return estimates.length ? Math.min(...estimates) : undefined;
}

export function nextPollDelayMs(
  opts: Pick<PollingOptions, 'minIntervalMs' | 'maxIntervalMs' | 'marginMs'>,
  latest: PollSample,
  previous: PollSample | undefined,
  /** Polls in a row without a usable hint (drives the backoff). */
  hintlessPolls: number,
  random: () => number = Math.random,
): number {
  const remaining = estimateRemainingMs(latest, previous);
  let delay: number;
  if (remaining !== undefined) {
    delay = remaining > FAR_MS ? remaining * FAR_FRACTION : remaining + opts.marginMs;
  } else {
    const ceiling = Math.min(opts.maxIntervalMs, opts.minIntervalMs * 2 ** Math.min(hintlessPolls, 30));
    delay = opts.minIntervalMs + random() * (ceiling - opts.minIntervalMs);
  }
  return Math.round(Math.min(opts.maxIntervalMs, Math.max(opts.minIntervalMs, delay)));
}
