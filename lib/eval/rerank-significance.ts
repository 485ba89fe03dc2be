/** Beyond the paper: each re-ranked run against its own first stage (what it adds, not vs BM25), Holm apart. */
import type { Qrels, QueryId } from "../types";
import { comparedQueries, compareRuns, type SignificanceTest } from "./compare-runs";
import type { Metric, MetricValues } from "./metrics";
import type { RandomizationOptions } from "./randomization";

/** significance.json's `rerank` (null when no re-ranked run ran with its first stage). */
export interface RerankSignificance {
  /** Tests in this family (re-ranked runs × metrics). */
  of: number;
  correction: string;
  /** a: the re-ranked run, b: its first stage. */
  tests: SignificanceTest[];
}

/** First stage of a `rerank:<reranker>:<first stage>` id, else undefined; first stages may hold colons. */
export function firstStageOf(id: string): string | undefined {
  const m = /^rerank:[^:]+:(.+)$/.exec(id);
  return m?.[1];
}

/** Each re-ranked run whose first stage also ran, against it on `metrics`, Holm over these only; null if none. */
export function rerankSignificance(
  perQuery: ReadonlyMap<string, ReadonlyMap<QueryId, MetricValues>>,
  queries: Qrels | Iterable<QueryId>,
  metrics: readonly Metric[],
  opts: RandomizationOptions = {},
): RerankSignificance | null {
  const pairs = [...perQuery.keys()].flatMap((id) => {
    const first = firstStageOf(id);
    return first !== undefined && perQuery.has(first) ? [[id, first] as const] : [];
  });
  if (!pairs.length) return null;
  const names = [...new Set(pairs.flat())];
  const runs = names.map((name) => ({ name, perQuery: perQuery.get(name)! }));
  const { tests } = compareRuns(runs, comparedQueries(queries), { pairs, metrics, swaps: opts.swaps, seed: opts.seed });
  return { of: tests.length, correction: `Holm over these ${tests.length} tests only (each re-ranked run against its own first stage; beyond the paper)`, tests };
}
