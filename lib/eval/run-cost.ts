/** Arithmetic on a run's provider work (`RunCost`), so composite retrievers add up their parts one way. */
import type { Work, RunCost } from "../types";

/** The fields every run's work has (rerank fields only re-ranked runs'), in the order a record lists them. */
const LLM = ["llmCalls", "llmInput", "llmOutput"] as const;
const SUMMED = ["seconds", ...LLM, "embeddingCalls", "embeddingTokens", "embeddingTokensEstimated"] as const;

export function zeroWork(): Work {
  return Object.fromEntries(SUMMED.map((k) => [k, 0])) as Record<(typeof SUMMED)[number], number>;
}

export function addWork(...parts: readonly (Work | undefined)[]): Work {
  const w = zeroWork();
  for (const p of parts) {
    if (!p) continue;
    for (const k of SUMMED) w[k] += p[k];
    // Only re-ranked runs count rerank work; other runs leave the fields out.
    if (p.rerankCalls !== undefined) w.rerankCalls = (w.rerankCalls ?? 0) + p.rerankCalls;
    if (p.rerankPairs !== undefined) w.rerankPairs = (w.rerankPairs ?? 0) + p.rerankPairs;
  }
  return w;
}

export async function timed<T>(make: () => Promise<T> | T): Promise<{ value: T; seconds: number }> {
  const t0 = performance.now();
  const value = await make();
  return { value, seconds: (performance.now() - t0) / 1000 };
}

export function secondsOf(seconds: number): Work {
  return { ...zeroWork(), seconds };
}

/** The cost of runs made together: work added, first chat and embedding model kept; undefined when none has one. */
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
