// Types shared by every emulator route module.

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

declare module 'fastify' {
  interface FastifyRequest {
    /** Set by the auth hook on every authenticated platform route. */
    caller: Caller;
  }
}
