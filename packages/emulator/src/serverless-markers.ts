// Image markers: a test forces one endpoint's outcome from its own `image.image`, without touching shared settings
// (so tests sharing an emulator cannot disturb each other). Documented in docs/emulator.md.
import type { ValidationIssue } from '@platform-ops/client';

export interface EndpointMarkers {
  /** The image as given, markers included. */
  image: string;
  /** Workers fail their pull (`[emulator:pull_fail]`). */
  pullFail: boolean;
  /** Workers run but never pass their health check (`[emulator:never_healthy]`). */
  neverHealthy: boolean;
  /** Emulated ms of each worker's pull and start (`[emulator:pull_ms=5000]`, `[emulator:start_ms=5000]`). */
  pullMs?: number;
  startMs?: number;
}

const MARKER = /\[emulator:([a-z_]+)(?:=([^\]]*))?\]/g;
const MAX_MS = 86_400_000;

/** Reads the markers of an image; a malformed or unknown marker is an issue on `field`. */
export function parseEndpointMarkers(
  image: string,
  field = 'image.image',
): { markers: EndpointMarkers; issues: ValidationIssue[] } {
  const markers: EndpointMarkers = { image, pullFail: false, neverHealthy: false };
  const issues: ValidationIssue[] = [];
  for (const [whole, name, value] of image.matchAll(MARKER)) {
    const ms = (): number | undefined => {
      if (value !== undefined && /^\d{1,9}$/.test(value) && Number(value) <= MAX_MS) return Number(value);
      issues.push({ field, rule: `marker ${whole} needs emulated ms from 0 to ${MAX_MS}` });
      return undefined;
    };
    if (name === 'pull_fail' && value === undefined) markers.pullFail = true;
    else if (name === 'never_healthy' && value === undefined) markers.neverHealthy = true;
    else if (name === 'pull_ms') markers.pullMs = ms();
    else if (name === 'start_ms') markers.startMs = ms();
    else {
      issues.push({
        field,
        rule: `has an unknown emulator marker ${whole} (known: pull_fail, never_healthy, pull_ms=N, start_ms=N)`,
      });
    }
  }
  return { markers, issues };
}

/** The image without its markers, as an error message names it. */
export const imageName = (image: string): string => image.replace(/\s*\[emulator:[^\]]*\]/g, '');
