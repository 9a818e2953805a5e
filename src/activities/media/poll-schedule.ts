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

/** The progress rate (percent per ms) between two samples of one phase, when progress moved. */
function progressRate(latest: PollSample, previous?: PollSample): number | undefined {
  if (
    previous &&
    previous.status === latest.status &&
    latest.progressPercent !== undefined &&
    previous.progressPercent !== undefined &&
    latest.progressPercent > previous.progressPercent &&
    latest.progressPercent < 100
  ) {
    return (latest.progressPercent - previous.progressPercent) / (latest.at - previous.at);
  }
  return undefined;
}

/** Milliseconds left, from the eta and from the progress rate between two samples of one phase. */
export function estimateRemainingMs(latest: PollSample, previous?: PollSample): number | undefined {
  const estimates: number[] = [];
  if (latest.eta !== undefined && latest.eta > 0) estimates.push(latest.eta * 1000);
  const rate = progressRate(latest, previous);
  if (rate !== undefined) estimates.push((100 - (latest.progressPercent ?? 0)) / rate);
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
    if (remaining > FAR_MS) delay = remaining * FAR_FRACTION;
    else if (latest.progressPercent !== undefined && progressRate(latest, previous) === undefined) {
      // The eta is whole seconds, rounded up: aiming at it lands up to a second late. Half-way, a
      // second sample gives the progress rate, and the poll after that lands just past the end.
      delay = remaining / 2;
    } else delay = remaining + opts.marginMs;
  } else {
    const ceiling = Math.min(opts.maxIntervalMs, opts.minIntervalMs * 2 ** Math.min(hintlessPolls, 30));
    delay = opts.minIntervalMs + random() * (ceiling - opts.minIntervalMs);
  }
  return Math.round(Math.min(opts.maxIntervalMs, Math.max(opts.minIntervalMs, delay)));
}
