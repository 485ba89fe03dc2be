import type { DocId, QueryId, Ranking, Run } from "../types";

/** The five metrics of the paper, in its column order. */
export const METRICS = ["nDCG@10", "nDCG@100", "Recall@10", "Recall@100", "MAP@100"] as const;
export type Metric = (typeof METRICS)[number];
export type MetricValues = Record<Metric, number>;

/** Ranking depth the paper evaluates at; deeper entries are ignored. */
export const DEPTH = 100;

/**
 * Unique doc ids in rank order, cut at `depth`: a repeated id counts once, at its first rank.
 *
 * @example
 * dedupeCut(["a", "b", "a", "c"], 2); // ["a", "b"]
 */
export function dedupeCut(ranking: Ranking, depth = DEPTH): DocId[] {
  const seen = new Set<DocId>();
  const out: DocId[] = [];
  for (const id of ranking) {
    if (seen.has(id)) continue;
    seen.add(id);
    out.push(id);
    if (out.length === depth) break;
  }
  return out;
}

function dcgPrefix(rel: boolean[], k: number): number {
  let s = 0;
  for (let i = 0; i < Math.min(k, rel.length); i++) if (rel[i]) s += 1 / Math.log2(i + 2);
  return s;
}

function idealDcg(nGold: number, k: number): number {
  let s = 0;
  for (let i = 0; i < Math.min(k, nGold); i++) s += 1 / Math.log2(i + 2);
  return s;
}

/**
 * The paper's metrics for one query, computed on the ranking in its given order (never
 * re-sorted by score, unlike trec_eval, so tied scores cannot change the result).
 *
 * @example
 * queryMetrics(["ΑΚ::914", "ΑΚ::932"], new Set(["ΑΚ::932"]));
 * // { "nDCG@10": 0.6309…, "Recall@10": 1, "MAP@100": 0.5, … }
 */
export function queryMetrics(ranking: Ranking, gold: ReadonlySet<DocId>): MetricValues {
  const list = dedupeCut(ranking);
  const rel = list.map((id) => gold.has(id));
  const g = gold.size;
  if (g === 0) throw new RangeError("a query needs at least one relevant document to be evaluated");
  let hits10 = 0;
  let hits100 = 0;
  let apSum = 0;
  for (let i = 0; i < rel.length; i++) {
    if (!rel[i]) continue;
    hits100++;
    if (i < 10) hits10++;
    apSum += hits100 / (i + 1);
  }
  return {
    "nDCG@10": dcgPrefix(rel, 10) / idealDcg(g, 10),
    "nDCG@100": dcgPrefix(rel, 100) / idealDcg(g, 100),
    "Recall@10": hits10 / g,
    "Recall@100": hits100 / g,
    "MAP@100": apSum / Math.min(DEPTH, g),
  };
}

export interface Evaluation {
  mean: MetricValues;
  perQuery: Map<QueryId, MetricValues>;
}

/**
 * Evaluates a run against binary qrels: every query of the qrels with at least one relevant
 * document counts (a query missing from the run scores 0), macro-averaged in qrels order.
 *
 * @example
 * const { mean, perQuery } = evaluate(run.rankings, bench.qrels);
 * mean["Recall@100"];
 */
export function evaluate(rankings: Run["rankings"], qrels: ReadonlyMap<QueryId, ReadonlySet<DocId>>): Evaluation {
  const perQuery = new Map<QueryId, MetricValues>();
  for (const [qid, gold] of qrels) {
    if (gold.size === 0) continue;
    perQuery.set(qid, queryMetrics(rankings.get(qid) ?? [], gold));
  }
  return { mean: meanOf([...perQuery.values()]), perQuery };
}

/**
 * Macro average of per-query values, summed in the given order.
 *
 * @example
 * meanOf([a, b])["nDCG@10"];
 */
export function meanOf(rows: readonly MetricValues[]): MetricValues {
  const out = Object.fromEntries(METRICS.map((m) => [m, 0])) as MetricValues;
  if (rows.length === 0) return out;
  for (const m of METRICS) {
    let s = 0;
    for (const r of rows) s += r[m];
    out[m] = s / rows.length;
  }
  return out;
}
