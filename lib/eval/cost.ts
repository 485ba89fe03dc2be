import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { PACKAGE_ROOT } from "../paths";

/** What one method spent answering a set of queries (online) and preparing the corpus (one-time). */
export interface MethodUsage {
  method: string;
  queries: number;
  /** Chat calls and tokens made while answering the queries. */
  llm: { calls: number; input: number; output: number; model?: string };
  /** Embedding requests and tokens for the queries. */
  embedding: { calls: number; tokens: number; model?: string };
  /** Wall time spent answering the queries, in seconds. */
  seconds: number;
  /** One-time corpus work (embedding or translating the articles), kept apart as the paper does. */
  corpus?: { embeddingTokens?: number; llmInput?: number; llmOutput?: number };
}

export interface PriceTable {
  /** USD per million input / output tokens, by model id ("default" for any other). */
  llm: Record<string, { input: number; output: number }>;
  /** USD per million embedding tokens, by model id ("default" for any other). */
  embedding: Record<string, number>;
}

export interface CostRow {
  method: string;
  callsPerQuery: number;
  llmTokensPerQuery: number;
  embeddingTokensPerQuery: number;
  secondsPerQuery: number;
  /** API-equivalent USD per query. */
  costPerQuery: number;
  /** API-equivalent USD for the one-time corpus work. */
  oneTimeCost: number;
}

/**
 * The price table: `GBR_PRICES` if set, else config/prices.json of the package.
 *
 * @example
 * loadPrices().llm["openai/gpt-oss-120b"].output; // USD per million output tokens
 */
export function loadPrices(file = process.env.GBR_PRICES ?? path.join(PACKAGE_ROOT, "config", "prices.json")): PriceTable {
  if (!existsSync(file)) throw new Error(`price table ${file} not found (set GBR_PRICES to a JSON file like config/prices.json)`);
  const parsed = JSON.parse(readFileSync(file, "utf8")) as Partial<PriceTable>;
  if (!parsed.llm || !parsed.embedding) throw new Error(`${file}: expected {"llm": {...}, "embedding": {...}}`);
  return { llm: parsed.llm, embedding: parsed.embedding };
}

function llmPrice(prices: PriceTable, model?: string) {
  const p = (model && prices.llm[model]) || prices.llm.default;
  if (!p) throw new Error(`no LLM price for '${model}' and no "default" in the price table`);
  return p;
}

function embeddingPrice(prices: PriceTable, model?: string): number {
  const p = (model !== undefined ? prices.embedding[model] : undefined) ?? prices.embedding.default;
  if (p === undefined) throw new Error(`no embedding price for '${model}' and no "default" in the price table`);
  return p;
}

/**
 * The paper's Table 17 for a set of methods: online calls (chat + embedding requests), LLM
 * tokens (input + output), embedding tokens and wall time per query, API-equivalent cost per
 * query, and the one-time corpus cost apart.
 *
 * @example
 * costTable([{ method: "reform:dense:qwen3-8b", queries: 283, llm: { calls: 283, input: 600000, output: 140000 },
 *   embedding: { calls: 9, tokens: 85000 }, seconds: 1200 }], loadPrices());
 */
export function costTable(usages: readonly MethodUsage[], prices: PriceTable): CostRow[] {
  return usages.map((u) => {
    const n = Math.max(1, u.queries);
    const lp = llmPrice(prices, u.llm.model);
    const ep = embeddingPrice(prices, u.embedding.model);
    const online = (u.llm.input * lp.input + u.llm.output * lp.output + u.embedding.tokens * ep) / 1e6;
    const c = u.corpus ?? {};
    const oneTime = ((c.llmInput ?? 0) * lp.input + (c.llmOutput ?? 0) * lp.output + (c.embeddingTokens ?? 0) * ep) / 1e6;
    return {
      method: u.method,
      callsPerQuery: (u.llm.calls + u.embedding.calls) / n,
      llmTokensPerQuery: (u.llm.input + u.llm.output) / n,
      embeddingTokensPerQuery: u.embedding.tokens / n,
      secondsPerQuery: u.seconds / n,
      costPerQuery: online / n,
      oneTimeCost: oneTime,
    };
  });
}
