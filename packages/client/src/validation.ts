import type { z } from 'zod';

export interface ValidationIssue {
  field: string;
  rule: string;
  verbatim?: boolean;
}

export function fieldPath(path: ReadonlyArray<PropertyKey>): string {
  let out = '';
  for (const part of path) {
    if (typeof part === 'number') out += `[${part}]`;
    else out += out ? `.${String(part)}` : String(part);
  }
  return out;
}

const article = (word: string): string => (/^[aeiou]/.test(word) ? `an ${word}` : `a ${word}`);

function sizeRule(origin: string, bound: number | bigint, inclusive: boolean, dir: 'max' | 'min'): string {
  const b = Number(bound);
  const most = dir === 'max' ? 'most' : 'least';
  if (origin === 'string')
    return dir === 'min' && b === 1 ? 'must not be empty' : `must be at ${most} ${b} characters long`;
  if (origin === 'array' || origin === 'set')
    return `must have at ${most} ${b} item${dir === 'min' && b === 1 ? '' : 's'}`;
  if (inclusive) return `must be at ${most} ${b}`;
  return dir === 'max' ? `must be less than ${b}` : `must be greater than ${b}`;
}

/** zod's own default messages; anything else was written by us in a schema and is kept as is. */
const isZodDefault = (message: string) => /^(Invalid|Too (big|small)|Unrecognized key)/.test(message);

function describeIssue(issue: z.core.$ZodIssue): ValidationIssue[] {
  const field = fieldPath(issue.path);
  if (issue.code !== 'unrecognized_keys' && issue.code !== 'invalid_union' && !isZodDefault(issue.message)) {
    const params = (issue.code === 'custom' ? (issue.params ?? {}) : {}) as { verbatim?: boolean };
    return [{ field, rule: issue.message, ...(params.verbatim ? { verbatim: true } : {}) }];
  }
  switch (issue.code) {
    case 'invalid_type': {
      if (/received undefined/.test(issue.message)) return [{ field, rule: 'is required' }];
      const expected = issue.expected === 'int' ? 'integer' : issue.expected;
      return [{ field, rule: `must be ${article(expected)}` }];
    }
    case 'too_big':
      return [{ field, rule: sizeRule(issue.origin, issue.maximum, issue.inclusive ?? true, 'max') }];
    case 'too_small':
      return [{ field, rule: sizeRule(issue.origin, issue.minimum, issue.inclusive ?? true, 'min') }];
    case 'invalid_value':
      return [{ field, rule: `must be one of ${issue.values.map((v) => JSON.stringify(v)).join(', ')}` }];
    case 'unrecognized_keys':
      return issue.keys.map((key) => ({ field: fieldPath([...issue.path, key]), rule: 'is not a known field' }));
    case 'not_multiple_of':
      return [{ field, rule: `must be a multiple of ${String(issue.divisor)}` }];
    case 'invalid_union': {
      // A discriminated union with an unknown or missing tag: name the tags it knows.
      const { options } = issue as { options?: unknown[] };
      if (issue.errors.length === 0 && Array.isArray(options) && options.length > 0) {
        return [{ field, rule: `must be one of ${options.map((v) => JSON.stringify(v)).join(', ')}` }];
      }
      // A union of shapes: report the branch that got furthest, or a generic sentence.
      const branches = issue.errors.filter((b) => b.length > 0);
      const best = branches.sort((a, b) => a.length - b.length)[0];
      if (best && best.every((i) => i.path.length > 0)) {
        return best.flatMap((i) => describeIssue({ ...i, path: [...issue.path, ...i.path] }));
      }
      const rule = issue.message && !/^Invalid input$/.test(issue.message) ? issue.message : 'has an invalid shape';
      return [{ field, rule }];
    }
    default:
      return [{ field, rule: issue.message }];
  }
}

export const describeZodIssues = (issues: readonly z.core.$ZodIssue[]): ValidationIssue[] =>
  issues.flatMap(describeIssue);

export function formatIssues(issues: ValidationIssue[], opts: { platformWording?: boolean } = {}): string {
  return issues
    .map((i) => (i.field && !(opts.platformWording && i.verbatim) ? `${i.field}: ${i.rule}` : i.rule))
    .join('; ');
}

type Checked<T> = { ok: true; value: T } | { ok: false; issues: ValidationIssue[] };

export function tryParse<S extends z.ZodType>(schema: S, value: unknown): Checked<z.output<S>> {
  const parsed = schema.safeParse(value);
  return parsed.success
    ? { ok: true, value: parsed.data }
    : { ok: false, issues: describeZodIssues(parsed.error.issues) };
}

export function parseOrThrow<S extends z.ZodType>(
  schema: S,
  value: unknown,
  refuse: (issues: ValidationIssue[]) => Error,
): z.output<S> {
  const checked = tryParse(schema, value);
  if (!checked.ok) throw refuse(checked.issues);
  return checked.value;
}
