// When to poll a task next. The platform's `eta` (seconds left) and `progress_percent` say when the
// task should end: we aim just past that moment, so an accurate hint costs one poll per phase and is
// noticed within `marginMs`. Far-off ends are approached in steps (hints drift over minutes), unless
// two samples taken apart predict the same end: then we aim at it. Without
// hints we back off exponentially with full jitter. Every gap stays within [minIntervalMs, maxIntervalMs].
import type { ParsedPollingOptions } from '../../workflows/media/contract';

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
/** Two predicted ends this close (plus a share of the time left) confirm each other. */
const AGREEMENT_MS = 1_000;
const AGREEMENT_SHARE = 0.01;

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

/** The end a sample's eta predicts, in epoch ms; the eta is whole seconds rounded up, so never early. */
const predictedEnd = (s: PollSample) => (s.eta !== undefined && s.eta > 0 ? s.at + s.eta * 1000 : undefined);

/**
 * Milliseconds left when two samples taken apart predict the same end (the eta of a steady task):
 * the end is then known, and stepping towards it would only add polls. The earlier prediction wins,
 * as both are rounded up. Undefined when they disagree (a drifting eta) or one has no eta.
 */
function confirmedRemainingMs(latest: PollSample, previous?: PollSample): number | undefined {
  const now = predictedEnd(latest);
  const before = previous && predictedEnd(previous);
  if (now === undefined || before === undefined || previous!.at >= latest.at) return undefined;
  const remaining = Math.min(now, before) - latest.at;
  return Math.abs(now - before) <= AGREEMENT_MS + AGREEMENT_SHARE * Math.max(0, remaining) ? remaining : undefined;
}

export function nextPollDelayMs(
  opts: Pick<ParsedPollingOptions, 'minIntervalMs' | 'maxIntervalMs' | 'marginMs'>,
  latest: PollSample,
  previous: PollSample | undefined,
  /** Polls in a row without a usable hint (drives the backoff). */
  hintlessPolls: number,
  random: () => number = Math.random,
): number {
  const confirmed = confirmedRemainingMs(latest, previous);
  const remaining = estimateRemainingMs(latest, previous);
  let delay: number;
  if (confirmed !== undefined) delay = Math.min(confirmed, remaining ?? confirmed) + opts.marginMs;
  else if (remaining !== undefined) {
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
