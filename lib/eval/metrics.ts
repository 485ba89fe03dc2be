import type { DocId, QueryId, Ranking, Run } from "../types";

/**
 * The five metrics of the paper, in its column order.
 *
 * @example
 * METRICS.map((m) => mean[m].toFixed(4)).join("\t");
 */
export const METRICS = ["nDCG@10", "nDCG@100", "Recall@10", "Recall@100", "MAP@100"] as const;

/** One metric's name, exactly as `gbr eval --json` prints it. */
export type Metric = (typeof METRICS)[number];

export type MetricValues = Record<Metric, number>;

/** Ranking depth the paper evaluates at; deeper entries are ignored. */
export const DEPTH = 100;

/** DCG discount 1 / log2(rank + 1) of each 0-based rank, computed once. */
const DISCOUNT = Float64Array.from({ length: DEPTH }, (_, i) => 1 / Math.log2(i + 2));

/** Unique doc ids in rank order, cut at `depth`: a repeated id counts once, at its first rank. */
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

function idealDcg(nGold: number, k: number): number {
  let s = 0;
  for (let i = 0; i < Math.min(k, nGold); i++) s += DISCOUNT[i];
  return s;
}

/** The one metric computation, shared by `queryMetrics` and `PositionalEvaluator` so both agree to the last bit. */
function metricsOfRelevance(rel: ArrayLike<boolean | number>, n: number, g: number): MetricValues {
  if (g === 0) throw new RangeError("a query needs at least one relevant document to be evaluated");
  let dcg10 = 0;
  let dcg100 = 0;
  let hits10 = 0;
  let hits100 = 0;
  let apSum = 0;
  for (let i = 0; i < n; i++) {
    if (!rel[i]) continue;
    hits100++;
    if (i < 10) {
      hits10++;
      dcg10 += DISCOUNT[i];
    }
    dcg100 += DISCOUNT[i];
    apSum += hits100 / (i + 1);
  }
  return {
    "nDCG@10": dcg10 / idealDcg(g, 10),
    "nDCG@100": dcg100 / idealDcg(g, 100),
    "Recall@10": hits10 / g,
    "Recall@100": hits100 / g,
    "MAP@100": apSum / Math.min(DEPTH, g),
  };
}

/** One query's metrics on the given order (never re-sorted by score as trec_eval does: ties change nothing). */
export function queryMetrics(ranking: Ranking, gold: ReadonlySet<DocId>): MetricValues {
  const list = dedupeCut(ranking);
  return metricsOfRelevance(list.map((id) => gold.has(id)), list.length, gold.size);
}

/** `queryMetrics` for rankings of positions in a fixed doc-id list (a sweep's 192 settings), same to the last bit. */
export class PositionalEvaluator {
  /** Each position's representative: the first position with the same doc id. */
  private readonly canon: Int32Array;
  private readonly firstPosition: Map<DocId, number>;
  /** By representative position: relevant to the current query. */
  private readonly isGold: Uint8Array;
  private goldMarked: number[] = [];
  private goldCount = 0;
  /** By representative position: stamp of the last ranking that listed it (dedupe without clearing). */
  private readonly seen: Int32Array;
  private stamp = 0;
  private readonly rel = new Uint8Array(DEPTH);

  constructor(docIds: readonly DocId[]) {
    this.canon = new Int32Array(docIds.length);
    this.firstPosition = new Map();
    docIds.forEach((id, d) => {
      const first = this.firstPosition.get(id);
      if (first === undefined) this.firstPosition.set(id, d);
      this.canon[d] = first ?? d;
    });
    this.isGold = new Uint8Array(docIds.length);
    this.seen = new Int32Array(docIds.length);
  }

  /** Gold of the rankings scored next; ids outside the list count toward |gold|, as in `queryMetrics`. */
  setGold(gold: ReadonlySet<DocId>): void {
    for (const d of this.goldMarked) this.isGold[d] = 0;
    this.goldMarked = [];
    for (const id of gold) {
      const d = this.firstPosition.get(id);
      if (d !== undefined) this.goldMarked.push(d);
    }
    for (const d of this.goldMarked) this.isGold[d] = 1;
    this.goldCount = gold.size;
  }

  /** The five metrics of a ranking of positions (best first) against the current gold. */
  metrics(ranking: ArrayLike<number>): MetricValues {
    const { canon, isGold, seen, rel } = this;
    if (this.stamp === 0x7fffffff) {
      seen.fill(0);
      this.stamp = 0;
    }
    const stamp = ++this.stamp;
    let n = 0;
    for (let i = 0; i < ranking.length && n < DEPTH; i++) {
      const p = ranking[i];
      if (!(p >= 0 && p < canon.length)) throw new RangeError(`position ${p} is outside the ${canon.length} documents`);
      const d = canon[p];
      if (seen[d] === stamp) continue;
      seen[d] = stamp;
      rel[n++] = isGold[d];
    }
    return metricsOfRelevance(rel, n, this.goldCount);
  }
}

/** A run's evaluation: the macro averages and every query's values. */
export interface Evaluation {
  mean: MetricValues;
  perQuery: Map<QueryId, MetricValues>;
}

/**
 * Evaluates a run on binary qrels: each query with a relevant document counts (absent from the run: 0), in qrels order.
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

/** Macro average of per-query values, summed in the given order. */
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
