// The budget ledger runs for ever, so its runs never end by themselves to make way for new code. Each
// change of what a ledger does bumps LEDGER_VERSION and adds a patch id. A run on an older version
// (its memo says which; runs from before versions existed have none: version 0) keeps its old
// branches while its recorded history replays; at the first workflow task the new code runs for it,
// patched() is true, and it continues as new on the current version, carrying everything it holds.
// So the old branches serve at most one workflow task per ledger after a deploy, and can be retired
// (docs/versioning.md) once every ledger has crossed. The version itself and its rules are the book's
// (src/budget/ledger-book.ts); its memo key is in src/api/names.ts.
import { patched } from '@temporalio/workflow';
import { LEDGER_VERSION } from '../../budget/ledger-book';
import { LEDGER_VERSION_MEMO } from './contract';
import { Patch } from '../patches';

/** The patch each version's code carries: seeing it is what makes an older run cross over. */
const UPGRADE_PATCH: Record<number, string> = { 1: Patch.ledgerVersion1 };

export function ledgerVersionOf(memo: Record<string, unknown> | undefined): number {
  const v = memo?.[LEDGER_VERSION_MEMO];
  return typeof v === 'number' && Number.isInteger(v) && v >= 0 ? v : 0;
}

/** Whether a run on `version` should continue as new on the current version now (workflow code only). */
export function ledgerUpgradeDue(version: number): boolean {
  return version < LEDGER_VERSION && patched(UPGRADE_PATCH[LEDGER_VERSION]);
}
