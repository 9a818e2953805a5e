// Keys that reach a plain object's prototype machinery. JSON.parse makes `"__proto__"` an own key, which copied
// into a map swaps its prototype and which zod's records drop silently: so they are refused, in any map and in
// any list of names that become keys (a decision's options).
import { fieldPath, type ValidationIssue } from './validation';

export const RESERVED_KEYS: ReadonlySet<string> = new Set(['__proto__', 'constructor', 'prototype']);

export const RESERVED_KEY_RULE = 'must not be "__proto__", "constructor" or "prototype"';

/** Deep enough for every input and answer here; anything nested deeper is refused as too deep. */
const MAX_DEPTH = 32;

export function reservedKeyIssues(value: unknown): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  const walk = (v: unknown, path: PropertyKey[]): void => {
    if (v === null || typeof v !== 'object') return;
    if (path.length > MAX_DEPTH) {
      issues.push({ field: fieldPath(path), rule: `must not be nested more than ${MAX_DEPTH} levels deep` });
      return;
    }
    for (const [key, child] of Array.isArray(v) ? v.entries() : Object.entries(v)) {
      if (typeof key === 'string' && RESERVED_KEYS.has(key)) {
        issues.push({ field: fieldPath([...path, key]), rule: `key ${RESERVED_KEY_RULE}` });
      } else walk(child, [...path, key]);
    }
  };
  walk(value, []);
  return issues;
}
