/**
 * Arithmetic on the provider work a run reports (`RunCost`, lib/types.ts), so that composite
 * retrievers (fusion, feedback, reformulation, translation) add up their parts in one way.
 */
import type { ProviderWork, RunCost } from "../types";

/**
 * No work at all.
 *
 * @example
 * const w = zeroWork(); w.llmCalls; // 0
 */
export function zeroWork(): ProviderWork {
  return { llmCalls: 0, llmInput: 0, llmOutput: 0, embeddingCalls: 0, embeddingTokens: 0, embeddingTokensEstimated: 0 };
}

/**
 * The sum of some provider work.
 *
 * @example
 * addWork({ ...zeroWork(), llmCalls: 1 }, { ...zeroWork(), llmCalls: 2 }).llmCalls; // 3
 */
export function addWork(...parts: readonly (ProviderWork | undefined)[]): ProviderWork {
  const w = zeroWork();
  for (const p of parts) {
    if (!p) continue;
    w.llmCalls += p.llmCalls;
    w.llmInput += p.llmInput;
    w.llmOutput += p.llmOutput;
    w.embeddingCalls += p.embeddingCalls;
    w.embeddingTokens += p.embeddingTokens;
    w.embeddingTokensEstimated += p.embeddingTokensEstimated;
  }
  return w;
}

/**
 * The cost of runs made together (a fusion of their rankings, say): online and one-time work
 * added, the first chat and embedding model named kept. Undefined when none of them has a cost.
 *
 * @example
 * addCosts(bm25Run.cost, denseRun.cost)?.online.embeddingCalls;
 */
export function addCosts(...costs: readonly (RunCost | undefined)[]): RunCost | undefined {
  const present = costs.filter((c): c is RunCost => c !== undefined);
  if (present.length === 0) return undefined;
  const out: RunCost = { online: addWork(...present.map((c) => c.online)), corpus: addWork(...present.map((c) => c.corpus)) };
  const llmModel = present.find((c) => c.llmModel)?.llmModel;
  const embeddingModel = present.find((c) => c.embeddingModel)?.embeddingModel;
  if (llmModel) out.llmModel = llmModel;
  if (embeddingModel) out.embeddingModel = embeddingModel;
  return out;
}
