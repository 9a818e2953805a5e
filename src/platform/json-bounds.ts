// Size and shape bounds for a JSON value this project passes on without knowing its schema (the body
// of an async model the registry gives no schema for). Pure: it runs in the workflow sandbox, where the
// body is part of the input and of every submit attempt's activity input, so it must stay small.

export interface JsonBounds {
  /** Serialised size, in UTF-16 code units of its JSON text (close to bytes for the ASCII bulk). */
  maxChars: number;
  /** Nesting of objects and arrays. */
  maxDepth: number;
  /** Objects, arrays and values, all counted. */
  maxNodes: number;
}

/** What a generic async body may be: big enough for prompts and settings; large inputs go by URL. */
export const ASYNC_BODY_BOUNDS: JsonBounds = { maxChars: 256 * 1024, maxDepth: 16, maxNodes: 5_000 };

/** The first rule `value` breaks, as a sentence fragment, or undefined when it is within bounds. */
export function jsonBoundsProblem(value: unknown, bounds: JsonBounds): string | undefined {
  let nodes = 0;
  const stack: Array<{ v: unknown; depth: number }> = [{ v: value, depth: 1 }];
  while (stack.length > 0) {
    const { v, depth } = stack.pop()!;
    if (++nodes > bounds.maxNodes) return `must hold at most ${bounds.maxNodes} values in all`;
    if (v === null || typeof v !== 'object') {
      if (typeof v === 'number' && !Number.isFinite(v)) return 'must hold only finite numbers';
      continue;
    }
    if (depth > bounds.maxDepth) return `must be nested at most ${bounds.maxDepth} levels deep`;
    for (const child of Array.isArray(v) ? v : Object.values(v)) stack.push({ v: child, depth: depth + 1 });
  }
  const chars = JSON.stringify(value)?.length ?? 0;
  if (chars > bounds.maxChars)
    return `must be at most ${bounds.maxChars} characters as JSON (it is ${chars}); pass large inputs by URL`;
  return undefined;
}
