// Prompt markers: a test forces one task's outcome from its own prompt, without touching global
// settings (so tests sharing an emulator cannot disturb each other). Documented in docs/emulator.md.
import type { ValidationIssue } from '@platform-ops/client';

export interface TaskMarkers {
  /** Fail with this reason (`[emulator:fail=ILLEGAL_PROMPT]`), or with a configured one (`[emulator:fail]`). */
  fail?: string | true;
  /** Succeed whatever the failure rate (`[emulator:succeed]`). */
  succeed?: boolean;
  /** Processing time in emulated ms (`[emulator:duration=2000]`); also sets the queue time to 0 unless `queued` is given. */
  durationMs?: number;
  /** Queue time in emulated ms (`[emulator:queued=500]`). */
  queuedMs?: number;
  /** Output URL lifetime in emulated seconds (`[emulator:ttl=5]`). */
  ttlSeconds?: number;
  /**
   * Fail the first N tasks submitted with this same marker text (`[emulator:fail_first=2]`), with the
   * operation's first configured reason; later ones run normally. For re-generation tests: the key is
   * the whole marker text, so a test makes it unique (`[emulator:fail_first=2:run-42]`).
   */
  failFirst?: { count: number; key: string };
}

const MARKER = /\[emulator:([a-z_]+)(?:=([^\]]*))?\]/g;
const REASON = /^[A-Z][A-Z0-9_]*$/;
const MAX_MS = 7 * 86_400_000;

/** Reads every marker of the given texts; a malformed or unknown marker is a 400 issue on its field. */
export function parseTaskMarkers(texts: ReadonlyArray<{ field: string; text: string }>): {
  markers: TaskMarkers;
  issues: ValidationIssue[];
} {
  const markers: TaskMarkers = {};
  const issues: ValidationIssue[] = [];
  for (const { field, text } of texts) {
    if (!text.includes('[emulator:')) continue;
    for (const m of text.matchAll(MARKER)) {
      const [whole, name, value] = m;
      const int = (max: number): number | undefined => {
        const n = Number(value);
        if (value === undefined || !/^\d+$/.test(value) || n > max) {
          issues.push({ field, rule: `marker ${whole} needs a whole number from 0 to ${max}` });
          return undefined;
        }
        return n;
      };
      switch (name) {
        case 'fail':
          if (value === undefined) markers.fail = true;
          else if (REASON.test(value)) markers.fail = value;
          else
            issues.push({
              field,
              rule: `marker ${whole} needs an UPPER_CASE reason, like [emulator:fail=ILLEGAL_PROMPT]`,
            });
          break;
        case 'succeed':
          markers.succeed = true;
          break;
        case 'fail_first': {
          const [count, label] = (value ?? '').split(':', 2);
          if (!/^\d{1,3}$/.test(count ?? '')) {
            issues.push({
              field,
              rule: `marker ${whole} needs a count from 0 to 999, like [emulator:fail_first=2:run-1]`,
            });
          } else markers.failFirst = { count: Number(count), key: `${field}:${label ?? ''}:${text}` };
          break;
        }
        case 'duration':
          markers.durationMs = int(MAX_MS);
          break;
        case 'queued':
          markers.queuedMs = int(MAX_MS);
          break;
        case 'ttl':
          markers.ttlSeconds = int(30 * 86_400);
          if (markers.ttlSeconds === 0) {
            issues.push({ field, rule: `marker ${whole} needs a TTL of at least 1 second` });
            markers.ttlSeconds = undefined;
          }
          break;
        default:
          issues.push({
            field,
            rule: `has an unknown emulator marker ${whole} (known: fail, succeed, fail_first, duration, queued, ttl)`,
          });
      }
    }
  }
  if ([markers.fail !== undefined, markers.succeed, markers.failFirst !== undefined].filter(Boolean).length > 1) {
    issues.push({
      field: texts[0]?.field ?? 'prompt',
      rule: 'can carry only one of [emulator:fail], [emulator:succeed] and [emulator:fail_first]',
    });
  }
  return { markers, issues };
}
