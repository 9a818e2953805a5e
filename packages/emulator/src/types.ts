// Types shared by every emulator route module, and the environment the server hands the batch emulator
// (batches/deps.ts), kept here so the batch store and the contract both import it without a circle.

/** Who is calling: resolved from the bearer key by the auth hook (see auth.ts). */
export interface Caller {
  /** The API key's id, `ownerID` in bills and `created_by_key_id` on batches. */
  apiKeyId: string;
  apiKeyName: string;
  /** Masked form of the key, as in bills (`sk_****abcd`). */
  apiKeyMask: string;
  userId: string;
  /** The team member whose budget pays for this key's usage. */
  memberId: string;
}

/** A charge for completed work: deducted from the member's budget and listed as a bill. */
export interface ChargeInput {
  caller: Caller;
  productId: string;
  productName: string;
  /** `llm`, `gen_api` … (the bill list's category filter). */
  category: string;
  /** 1/10000 USD. */
  amount: number;
  /** Usage fields billNum0..billNum15 (strings, as bills carry them). */
  usage?: Partial<Record<`billNum${number}`, string>>;
}

/** What the batch emulator (batches/) needs of the server: its clock, its ids and its bills. */
export interface BatchEnv {
  /** Emulated Unix ms. */
  now(): number;
  newId(prefix: string): string;
  /** Deducts from the member's budget and records a bill line. */
  charge(input: ChargeInput): void;
}

declare module 'fastify' {
  interface FastifyRequest {
    /** Set by the auth hook on every authenticated platform route. */
    caller: Caller;
  }
}
