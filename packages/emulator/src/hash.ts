// Deterministic numbers from text, so answers that must repeat (decision probabilities, ETA jitter,
// output bytes) do repeat from call to call and run to run.
import { createHash, randomBytes } from 'node:crypto';

/** 32 bits fixed by `key`. */
export function hash32(key: string): number {
  return createHash('sha256').update(key).digest().readUInt32BE(0);
}

/** A number in [0, 1) fixed by `key`. */
export function draw(key: string): number {
  return hash32(key) / 2 ** 32;
}

/** A small fast PRNG (mulberry32): a stream of numbers in [0, 1) from a 32-bit seed. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32;
  };
}

/**
 * Ids: a per-process random prefix plus a counter. Unique within a run and across restarts (the
 * prefix changes), cheap enough for the submit path, and sortable by creation within a run.
 */
export class IdGenerator {
  private readonly prefix = randomBytes(4).toString('hex');
  private seq = 0;

  next(kind: string): string {
    this.seq++;
    return `${kind}_${this.prefix}${this.seq.toString(36).padStart(6, '0')}`;
  }

  /** An unguessable token (output file URLs act as presigned links). */
  token(): string {
    return randomBytes(16).toString('hex');
  }
}

/** A cheap integer mix of two numbers into [0, 1), for per-request jitter where sha256 would be waste. */
export function mix(a: number, b: number): number {
  let h = (Math.imul(a ^ 0x9e3779b9, 0x85ebca6b) ^ Math.imul(b + 0x7f4a7c15, 0xc2b2ae35)) >>> 0;
  h = Math.imul(h ^ (h >>> 16), 0x45d9f3b) >>> 0;
  h = (h ^ (h >>> 13)) >>> 0;
  return h / 2 ** 32;
}

/** A short hex tag fixed by `key`, for ids that must not change between reads. */
export function tag(key: string, length = 24): string {
  return createHash('sha256').update(key).digest('hex').slice(0, length);
}
