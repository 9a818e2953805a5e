// Pure: workflow code formats the times its activities measured (it keeps no clock of its own).
export function isoTime(ms: number): string;
export function isoTime(ms: number | undefined): string | undefined;
export function isoTime(ms: number | undefined): string | undefined {
  return ms === undefined ? undefined : new Date(ms).toISOString();
}
