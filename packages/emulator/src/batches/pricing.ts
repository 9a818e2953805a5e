// What a batch costs. Batch requests bill at half the LLM list price (the usual batch discount of
// OpenAI-compatible platforms); only successful requests are billed. Prices are in 1/10000 USD per
// 1M tokens, the unit of a bill's basePrice fields at pricePrecision 1.

interface LlmPrice {
  /** 1/10000 USD per 1M input (prompt) tokens. */
  input: number;
  /** 1/10000 USD per 1M output (completion) tokens. */
  output: number;
}

/** List prices of a few well-known models; any other model uses DEFAULT_LLM_LIST_PRICE. */
const LLM_LIST_PRICES: Readonly<Record<string, LlmPrice>> = {
  'deepseek/deepseek-v3': { input: 2_800, output: 11_400 },
  'meta-llama/llama-3.1-8b-instruct': { input: 200, output: 500 },
  'qwen/qwen2.5-72b-instruct': { input: 3_800, output: 4_000 },
};

/** $0.50 in, $1.50 out per 1M tokens. */
const DEFAULT_LLM_LIST_PRICE: Readonly<LlmPrice> = { input: 5_000, output: 15_000 };

/** Batch price = list price × this. */
const BATCH_PRICE_FACTOR = 0.5;

export function batchPrice(model: string): LlmPrice {
  const list = LLM_LIST_PRICES[model] ?? DEFAULT_LLM_LIST_PRICE;
  return { input: list.input * BATCH_PRICE_FACTOR, output: list.output * BATCH_PRICE_FACTOR };
}

/**
 * Amount in 1/10000 USD for the given token usage, rounded up: a small batch still costs at least
 * one unit, so its bill line is visible rather than a zero.
 */
export function batchAmount(model: string, inputTokens: number, outputTokens: number): number {
  const price = batchPrice(model);
  return Math.ceil((inputTokens * price.input + outputTokens * price.output) / 1_000_000);
}

export const batchProductId = (model: string): string => `llm-batch-${model}`;
