import { relevantCount, type DocId, type Judged, type Qrels, type QueryId, type Ranking, type Run } from "../types";
import { resolveEvalMetric, type MetricName } from "./metric-names";

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

/** The metrics at any cut k beside the five (`evaluate`'s `metrics`, `gbr eval --metrics`): MRR@10, P@5 … */
export type CutKind = "MRR" | "P" | "Success" | "Judged";
export type CutMetric = `${CutKind}@${number}`;
export type EvalMetric = Metric | CutMetric;

/** The five, and the cut metrics `evaluate` was asked for (only those are present). */
export type Scores = MetricValues & Record<CutMetric, number>;

/** Ranking depth the paper evaluates at; deeper entries are ignored. */
export const DEPTH = 100;

/** DCG discount 1 / log2(rank + 1) of each 0-based rank, computed once. */
const DISCOUNT = Float64Array.from({ length: DEPTH }, (_, i) => 1 / Math.log2(i + 2));
/** log2(rank + 1): a graded gain is divided by it, as trec_eval divides (g · (1/x) can differ from g / x in the last bit). */
const LOG2_RANK = Float64Array.from({ length: DEPTH }, (_, i) => Math.log2(i + 2));

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

/** One ranked document's DCG term; a gain of 1 takes the discount as is, so binary qrels keep their numbers to the bit. */
function dcgTerm(gain: number, i: number): number {
  return gain === 1 ? DISCOUNT[i] : gain / LOG2_RANK[i];
}

/** A document's gain: its grade when >= 1, else 0 (binary: 1 for a relevant one). */
export function gainOf(judged: Judged, doc: DocId): number {
  if (judged instanceof Set) return judged.has(doc) ? 1 : 0;
  const grade = (judged as ReadonlyMap<DocId, number>).get(doc) ?? 0;
  return grade >= 1 ? grade : 0;
}

/** The highest grade of the judgments, at least 1 (binary qrels): above 1, nDCG differs from the binary reading. */
export function topGrade(qrels: Qrels): number {
  const grades = [...qrels.values()].flatMap((j) => (j instanceof Set ? [] : [...(j as ReadonlyMap<DocId, number>).values()]));
  return grades.reduce((top, g) => Math.max(top, g), 1);
}

/** What a query's metrics are normalised by: the relevant count and the ideal ranking's DCG at 10 and 100. */
type Ideal = { relevant: number; dcg10: number; dcg100: number };

/** The ideal ranking's gains: every grade >= 1, largest first (as trec_eval fills it); binary judgments are gains of 1. */
export function idealGains(judged: Judged): number[] {
  return judged instanceof Set ? Array<number>(judged.size).fill(1) : [...(judged as ReadonlyMap<DocId, number>).values()].filter((g) => g >= 1).sort((a, b) => b - a);
}

function idealOf(judged: Judged): Ideal {
  const gains = idealGains(judged);
  const relevant = gains.length;
  let dcg10 = 0;
  let dcg100 = 0;
  for (let i = 0; i < Math.min(DEPTH, relevant); i++) {
    const t = dcgTerm(gains[i], i);
    if (i < 10) dcg10 += t;
    dcg100 += t;
  }
  return { relevant, dcg10, dcg100 };
}

/** The one metric computation (`queryMetrics` and `PositionalEvaluator` agree to the bit); gain 0: not relevant. */
function metricsOfGains(gain: ArrayLike<number>, n: number, ideal: Ideal): MetricValues {
  const g = ideal.relevant;
  if (g === 0) throw new RangeError("a query needs at least one relevant document to be evaluated");
  let dcg10 = 0;
  let dcg100 = 0;
  let hits10 = 0;
  let hits100 = 0;
  let apSum = 0;
  for (let i = 0; i < n; i++) {
    if (!(gain[i] > 0)) continue;
    const t = dcgTerm(gain[i], i);
    hits100++;
    if (i < 10) {
      hits10++;
      dcg10 += t;
    }
    dcg100 += t;
    apSum += hits100 / (i + 1);
  }
  return {
    "nDCG@10": dcg10 / ideal.dcg10,
    "nDCG@100": dcg100 / ideal.dcg100,
    "Recall@10": hits10 / g,
    "Recall@100": hits100 / g,
    // The paper's denominator, min(100, |relevant|); trec_eval's map_cut_100 divides by |relevant| (same up to 100).
    "MAP@100": apSum / Math.min(DEPTH, g),
  };
}

/** One query's metrics on the given order (never re-sorted by score as trec_eval does); graded: grades as gains. */
export function queryMetrics(ranking: Ranking, judged: Judged): MetricValues {
  const list = dedupeCut(ranking);
  return metricsOfGains(list.map((id) => gainOf(judged, id)), list.length, idealOf(judged));
}

/** `queryMetrics` for rankings of positions in a fixed doc-id list (a sweep's 192 settings), same to the last bit. */
export class PositionalEvaluator {
  /** Each position's representative: the first position with the same doc id. */
  private readonly canon: Int32Array;
  private readonly firstPosition: Map<DocId, number>;
  /** By representative position: relevant to the current query. */
  private readonly isGold: Uint8Array;
  private goldMarked: number[] = [];
  private ideal: Ideal = idealOf(new Set());
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
    this.ideal = idealOf(gold);
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
    return metricsOfGains(rel, n, this.ideal);
  }
}

/**
 * One cut metric of one query on the ranking deduplicated and cut at k: MRR@k 1/rank of the first relevant article
 * (0 if none), P@k relevant / k, Success@k 1 if any is relevant, Judged@k the share judged (any grade, 0 included)
 * of the min(k, length) articles there (ir_measures'; an empty ranking 0).
 *
 * @example
 * cutMetric("P@10", ["a", "x"], new Set(["a"])); // 0.1
 */
export function cutMetric(metric: CutMetric, ranking: Ranking, judged: Judged): number {
  const at = metric.indexOf("@");
  const k = Number(metric.slice(at + 1));
  const top = dedupeCut(ranking, k);
  const first = top.findIndex((id) => gainOf(judged, id) > 0);
  const kind = metric.slice(0, at) as CutKind;
  if (kind === "MRR") return first < 0 ? 0 : 1 / (first + 1);
  if (kind === "P") return top.filter((id) => gainOf(judged, id) > 0).length / k;
  if (kind === "Success") return first < 0 ? 0 : 1;
  return top.length ? top.filter((id) => judged.has(id)).length / top.length : 0;
}

export type Evaluation = { mean: Scores; perQuery: Map<QueryId, Scores> };

/**
 * Evaluates a run on binary or graded qrels: each query with a relevant document counts (absent from the run: 0).
 * The five always; `metrics` adds cut metrics in any spelling (`resolveEvalMetric`).
 *
 * @example
 * const { mean, perQuery } = evaluate(run.rankings, bench.qrels, { metrics: ["MRR@10"] });
 * mean["Recall@100"]; mean["MRR@10"];
 */
export function evaluate(rankings: Run["rankings"], qrels: Qrels, opts: { metrics?: readonly MetricName[] } = {}): Evaluation {
  const cut = [...new Set((opts.metrics ?? []).map(resolveEvalMetric))].filter((m): m is CutMetric => !(METRICS as readonly string[]).includes(m));
  const perQuery = new Map<QueryId, Scores>();
  for (const [qid, judged] of qrels) {
    if (relevantCount(judged) === 0) continue;
    const ranking = rankings.get(qid) ?? [];
    perQuery.set(qid, { ...queryMetrics(ranking, judged), ...Object.fromEntries(cut.map((m) => [m, cutMetric(m, ranking, judged)])) });
  }
  const rows = [...perQuery.values()];
  return { mean: { ...meanOf(rows), ...Object.fromEntries(cut.map((m) => [m, meanOfColumn(rows, m)])) }, perQuery };
}

const meanOfColumn = (rows: readonly Scores[], m: EvalMetric) => (rows.length ? rows.reduce((s, r) => s + r[m], 0) / rows.length : 0);

/** Macro average of per-query values, summed in the given order. */
export function meanOf(rows: readonly MetricValues[]): MetricValues {
  return Object.fromEntries(METRICS.map((m) => [m, meanOfColumn(rows, m)])) as MetricValues;
}
