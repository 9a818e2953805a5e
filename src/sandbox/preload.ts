// The modules every workflow shares, evaluated once per reusable V8 context (bundler `preloadModules`) instead of
// once per workflow: building the zod schemas is most of what a workflow costs (about 3 MB and 80 ms each). Only
// pure modules belong here, with no module-level mutable state. The SDK deep-freezes them after this runs.
import './zod-settings'; // first: the schemas below are built with it
// The contracts, the platform schemas and the model registry (its JSON Schemas compiled to zod here).
import * as client from '@platform-ops/client';

// zod builds parts of a schema on first use and stores them on it, which throws once the SDK has frozen it: every
// shared schema is walked once before the freeze.

/**
 * zod resets a pattern's `lastIndex`, which a frozen RegExp refuses. The SDK's deep freeze skips an object with a
 * property that throws when read, so each RegExp gets one.
 */
const KEEP_WRITABLE = Symbol('keep writable: zod resets lastIndex');

function keepWritable(re: RegExp): void {
  if (Object.getOwnPropertySymbols(re).includes(KEEP_WRITABLE)) return;
  Object.defineProperty(re, KEEP_WRITABLE, {
    get() {
      throw new Error('a RegExp that zod writes to: not to be frozen');
    },
  });
}

/** Reads every property of every object reachable from `root`, keeping each RegExp writable. */
function materialize(root: unknown): void {
  const seen = new Set<object>();
  const stack: unknown[] = [root];
  while (stack.length > 0) {
    const o = stack.pop();
    if (o === null || typeof o !== 'object' || seen.has(o)) continue;
    seen.add(o);
    if (o instanceof RegExp) {
      keepWritable(o);
      continue;
    }
    for (const key of propertyNames(o)) {
      let value: unknown;
      try {
        value = (o as Record<string, unknown>)[key];
      } catch {
        continue;
      }
      if (value !== null && typeof value === 'object') stack.push(value);
    }
  }
}

function propertyNames(o: object): Set<string> {
  const names = new Set(Object.getOwnPropertyNames(o));
  for (let p = Object.getPrototypeOf(o) as object | null; p && p !== Object.prototype && p !== Array.prototype;) {
    for (const name of Object.getOwnPropertyNames(p)) if (name !== 'constructor') names.add(name);
    p = Object.getPrototypeOf(p) as object | null;
  }
  return names;
}

materialize(client);
