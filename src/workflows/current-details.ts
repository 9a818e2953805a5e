// The run's "current details" in the Web UI (setCurrentDetails): where it stands, in a few lines of
// markdown, from what the `status` query answers. Kept in the workflow's memory and read by the UI
// through the SDK's built-in metadata query, so updating it at every checkpoint writes no history.
import type { WorkflowStatus } from '../api/contract';

/** The UI shows a short block; a long detail (a prompt, a file list) would bury the status. */
const MAX_VALUE = 80;
const MAX_FACTS = 12;
const MAX_DETAILS = 1_200;

function shown(value: unknown): string | undefined {
  if (typeof value === 'string') return value.length > MAX_VALUE ? `${value.slice(0, MAX_VALUE - 1)}…` : value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (Array.isArray(value)) return `${value.length} item${value.length === 1 ? '' : 's'}`;
  return undefined;
}

export function renderCurrentDetails(state: WorkflowStatus): string {
  const facts = Object.entries(state.detail ?? {})
    .map(([key, value]) => [key, shown(value)] as const)
    .filter((entry): entry is readonly [string, string] => entry[1] !== undefined && entry[0] !== 'status')
    .slice(0, MAX_FACTS)
    .map(([key, value]) => `- ${key}: ${value}`);
  const text = [`**${state.status}**`, '', ...facts].join('\n');
  return text.length > MAX_DETAILS ? `${text.slice(0, MAX_DETAILS - 1)}…` : text;
}
