/**
 * The re-ranking family of significance tests, beyond the paper: every re-ranked run
 * (`rerank:<reranker>:<first stage>`) against its own first stage, on the paper's four metrics,
 * with Holm's correction over this family alone — a re-ranker is judged by what it adds to the
 * ranking it was given, not against BM25, and apart from the paper's 20 tests.
 */
import type { DocId, QueryId } from "../types";
import { comparedQueries, compareRuns, type SignificanceTest } from "./compare-runs";
import type { Metric, MetricValues } from "./metrics";
import type { RandomizationOptions } from "./randomization";

/**
 * What significance.json holds under `rerank` (null when no re-ranked run and its first stage
 * both ran).
 */
export interface RerankSignificance {
  /** Tests in this family (re-ranked runs × metrics). */
  of: number;
  correction: string;
  /** a: the re-ranked run, b: its first stage. */
  tests: SignificanceTest[];
}

/**
 * The first stage a re-ranked run's id names (`rerank:<reranker>:<first stage>`), or undefined
 * for any other id. Re-ranker names hold no colon; first stages may (`reform:bm25-greekstemmer`).
 */
export function firstStageOf(id: string): string | undefined {
  const m = /^rerank:[^:]+:(.+)$/.exec(id);
  return m?.[1];
}

/**
 * Every re-ranked run of `perQuery` whose first stage also ran, tested against that first stage
 * on `metrics`, Holm over these tests only; null when there is no such pair.
 */
export function rerankSignificance(
  perQuery: ReadonlyMap<string, ReadonlyMap<QueryId, MetricValues>>,
  queries: ReadonlyMap<QueryId, ReadonlySet<DocId>> | Iterable<QueryId>,
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
