import type { Pricer } from "../providers/usage-meter";
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { environmentConfig, PACKAGE_ROOT } from "../paths";
import type { Work, RunCost } from "../types";

/** What one method spent: its run's cost, the wall time of its queries and of its one-time corpus work (seconds). */
export type MethodUsage = { method: string; queries: number; cost: RunCost; seconds: number; corpusSeconds: number };

/** USD per million tokens (chat: input and output) by model id, "default" for any other. */
export type PriceTable = { llm: Record<string, { input: number; output: number }>; embedding: Record<string, number> };

/**
 * The price table in `file` (a run passes its configuration's); given none, GBR_PRICES, else config/prices.json.
 *
 * @example
 * loadPrices().llm["openai/gpt-oss-120b"].output; // USD per million output tokens
 */
export function loadPrices(file = environmentConfig().pricesFile ?? path.join(PACKAGE_ROOT, "config", "prices.json")): PriceTable {
  if (!existsSync(file)) throw new Error(`price table ${file} not found (set GBR_PRICES to a JSON file like config/prices.json)`);
  const parsed = JSON.parse(readFileSync(file, "utf8")) as Partial<PriceTable>;
  if (!parsed.llm || !parsed.embedding) throw new Error(`${file}: expected {"llm": {...}, "embedding": {...}}`);
  return { llm: parsed.llm, embedding: parsed.embedding };
}

/** A model's entry of one side of the price table, the "default" entry for an unlisted one. */
function priceOf<T>(table: Record<string, T>, kind: string, model?: string): T {
  const p = (model ? table[model] : undefined) ?? table.default;
  if (p === undefined) throw new Error(`no ${kind} price for '${model}' and no "default" in the price table`);
  return p;
}

function tokenSource(tokens: number, estimated: number): string {
  return tokens === 0 ? "" : estimated === 0 ? "provider" : estimated >= tokens ? "estimated" : "mixed";
}

/**
 * The paper's Table 17: per query, online calls, tokens, cross-encoder pairs, seconds and API-equivalent USD; one-time
 * corpus work apart. Embedding tokens' source: "provider" (server-reported), "estimated" (o200k), "mixed" or "".
 */
export function costTable(usages: readonly MethodUsage[], prices: PriceTable) {
  return usages.map((u) => {
    const n = Math.max(1, u.queries);
    const { online, corpus, llmModel, embeddingModel } = u.cost;
    const dollars = (w: Work) => workCost(prices, w, llmModel, embeddingModel);
    return {
      method: u.method,
      callsPerQuery: (online.llmCalls + online.embeddingCalls + (online.rerankCalls ?? 0)) / n,
      llmTokensPerQuery: (online.llmInput + online.llmOutput) / n,
      embeddingTokensPerQuery: online.embeddingTokens / n,
      embeddingTokensSource: tokenSource(online.embeddingTokens + corpus.embeddingTokens, online.embeddingTokensEstimated + corpus.embeddingTokensEstimated),
      rerankPairsPerQuery: (online.rerankPairs ?? 0) / n,
      secondsPerQuery: u.seconds / n,
      costPerQuery: dollars(online) / n,
      oneTimeCalls: corpus.llmCalls + corpus.embeddingCalls,
      oneTimeTokens: corpus.llmInput + corpus.llmOutput + corpus.embeddingTokens,
      oneTimeSeconds: u.corpusSeconds,
      oneTimeCost: dollars(corpus),
    };
  });
}

/** API-equivalent USD of provider work, each token kind at its model's price. */
export function workCost(prices: PriceTable, w: Work, llmModel?: string, embeddingModel?: string): number {
  const lp = priceOf(prices.llm, "LLM", llmModel);
  const ep = priceOf(prices.embedding, "embedding", embeddingModel);
  return (w.llmInput * lp.input + w.llmOutput * lp.output + w.embeddingTokens * ep) / 1e6;
}

/** Usage-meter pricer: chat and embeddings at their model's prices, rerank requests free (no price known). */
export function pricerFrom(prices: PriceTable): Pricer {
  return (kind, u) => {
    if (kind === "chat") {
      const p = priceOf(prices.llm, "LLM", u.model);
      return (u.input * p.input + u.output * p.output) / 1e6;
    }
    if (kind === "embed") return (u.input * priceOf(prices.embedding, "embedding", u.model)) / 1e6;
    return 0;
  };
}
