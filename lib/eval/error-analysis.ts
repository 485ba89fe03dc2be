/** Error analysis per query, area and gold article; ranks as the metrics' `dedupeCut` (repeats once, none past 100). */
import { NO_AREA, relevantCount, relevantDocs, sourceOf, type DocId, type Qrels, type QueryId, type QueryMeta, type Ranking, type Run } from "../types";
import { dedupeCut, DEPTH, evaluate, queryMetrics, type MetricValues } from "./metrics";
import { resolveMetric, type MetricName } from "./metric-names";
import { compareCodeUnits } from "./breakdown";

export type PerQuery = ReadonlyMap<QueryId, MetricValues>;

/** Tie tolerance: absorbs last-bit summation noise, far below one gold article moving a rank (~1e-6, MAP@100). */
export const DEFAULT_TIE = 1e-12;

/** Wins (A higher by more than the tie tolerance), ties and losses of run A against run B. */
type WinLossCounts = { queries: number; wins: number; ties: number; losses: number };

export type WinLoss = ReturnType<typeof winLoss>;

/** Per-query wins, ties and losses of A against B over the queries both have (per area, code-unit order, with `meta`). */
export function winLoss(a: PerQuery, b: PerQuery, name: MetricName, opts: { meta?: ReadonlyMap<QueryId, QueryMeta> } = {}) {
  const metric = resolveMetric(name);
  const total = emptyCounts();
  const groups = new Map<string, WinLossCounts>();
  const onlyInA: QueryId[] = [];
  for (const [q, va] of a) {
    const vb = b.get(q);
    if (!vb) {
      onlyInA.push(q);
      continue;
    }
    const d = va[metric] - vb[metric];
    const outcome = Math.abs(d) <= DEFAULT_TIE ? "ties" : d > 0 ? "wins" : "losses";
    const area = areaOf(opts.meta, q);
    if (opts.meta && !groups.has(area)) groups.set(area, emptyCounts());
    for (const c of opts.meta ? [total, groups.get(area)!] : [total]) {
      c.queries++;
      c[outcome]++;
    }
  }
  const onlyInB = [...b.keys()].filter((q) => !a.has(q));
  const byArea = [...groups].sort(([x], [y]) => compareCodeUnits(x, y)).map(([group, c]) => ({ group, ...c }));
  return { metric, tie: DEFAULT_TIE, total, onlyInA, onlyInB, ...(opts.meta ? { byArea } : {}) };
}

/** Each gold article's 1-based rank as the metrics count it, or null outside the top 100; in `gold` order. */
export function goldRanks(ranking: Ranking, gold: ReadonlySet<DocId>): Map<DocId, number | null> {
  const list = dedupeCut(ranking);
  return new Map([...gold].map((id) => [id, list.indexOf(id) + 1 || null]));
}

/** A gold article's rank in each run (null: not in the top 100). */
export type GoldRankPair = { article: DocId; rankA: number | null; rankB: number | null };

/** Δ = a − b on the metric, and where the gold articles stand. */
export type QueryDifference = { query: QueryId; area: string; delta: number; a: number; b: number; gold: GoldRankPair[] };

/** The `n` queries where two runs differ most (|Δ| > DEFAULT_TIE; largest first, then qrels order), with gold ranks that say why. */
export function largestDifferences(
  a: ReadonlyMap<QueryId, Ranking>,
  b: ReadonlyMap<QueryId, Ranking>,
  qrels: Qrels,
  name: MetricName,
  opts: { n?: number; meta?: ReadonlyMap<QueryId, QueryMeta> } = {},
): QueryDifference[] {
  const metric = resolveMetric(name);
  const n = checkCount(opts.n ?? 10, "n");
  const all: QueryDifference[] = [];
  for (const [query, judged] of qrels) {
    const gold = relevantDocs(judged);
    if (gold.size === 0) continue;
    const [ra, rb] = [a.get(query) ?? [], b.get(query) ?? []];
    const [va, vb] = [queryMetrics(ra, judged)[metric], queryMetrics(rb, judged)[metric]];
    const delta = va - vb;
    if (Math.abs(delta) <= DEFAULT_TIE) continue;
    const [inA, inB] = [goldRanks(ra, gold), goldRanks(rb, gold)];
    const pairs = [...gold].map((article) => ({ article, rankA: inA.get(article) ?? null, rankB: inB.get(article) ?? null }));
    const best = (g: GoldRankPair) => Math.min(g.rankA ?? Infinity, g.rankB ?? Infinity);
    pairs.sort((x, y) => best(x) - best(y) || compareCodeUnits(x.article, y.article));
    all.push({ query, area: areaOf(opts.meta, query), delta, a: va, b: vb, gold: pairs });
  }
  return all.sort((x, y) => Math.abs(y.delta) - Math.abs(x.delta)).slice(0, n);
}

/** Per qrels query with a relevant article: its first gold article's rank as the metrics count it, or null. */
export function firstGoldRanks(rankings: ReadonlyMap<QueryId, Ranking>, qrels: Qrels): Map<QueryId, number | null> {
  const out = new Map<QueryId, number | null>();
  for (const [query, judged] of qrels) {
    const gold = relevantDocs(judged);
    if (gold.size === 0) continue;
    const i = dedupeCut(rankings.get(query) ?? []).findIndex((id) => gold.has(id));
    out.set(query, i < 0 ? null : i + 1);
  }
  return out;
}

/** Buckets up to and including `max` (4–10: the cut of nDCG@10 and Recall@10). */
export const RANK_BUCKETS: readonly { label: string; max: number }[] = [
  { label: "1", max: 1 },
  { label: "2-3", max: 3 },
  { label: "4-10", max: 10 },
  { label: "11-20", max: 20 },
  { label: "21-50", max: 50 },
  { label: "51-100", max: DEPTH },
];

/** No gold article in the top 100. */
export const NOT_FOUND = "not found";

/** Bucket labels and each run's counts (arrays: a run named "1" cannot reorder an object's keys). */
export type RankDistribution = { buckets: string[]; runs: { name: string; queries: number; counts: number[] }[] };

/** First-gold ranks of several runs bucketed (RANK_BUCKETS); a rank beyond 100 counts as not found. */
export function firstGoldRankDistribution(ranksByRun: ReadonlyMap<string, ReadonlyMap<QueryId, number | null>>): RankDistribution {
  const buckets = [...RANK_BUCKETS.map((b) => b.label), NOT_FOUND];
  const runs = [...ranksByRun].map(([name, ranks]) => {
    const counts = buckets.map(() => 0);
    for (const rank of ranks.values()) {
      const i = rank === null ? -1 : RANK_BUCKETS.findIndex((b) => rank <= b.max);
      counts[i < 0 ? buckets.length - 1 : i]++;
    }
    return { name, queries: ranks.size, counts };
  });
  return { buckets, runs };
}

/**
 * `firstGoldRankDistribution` straight from runs (`firstGoldRanks` of each, in the order given).
 *
 * @example
 * const dist = goldRankDistribution(new Map([["bm25", bm25.rankings], ["lsi", lsi.rankings]]), bench.qrels);
 * dist.runs.map((r) => [r.name, r.counts[0]]); // queries with a gold article at rank 1
 */
export function goldRankDistribution(rankingsByRun: ReadonlyMap<string, Run["rankings"]>, qrels: Qrels): RankDistribution {
  return firstGoldRankDistribution(new Map([...rankingsByRun].map(([name, r]) => [name, firstGoldRanks(r, qrels)])));
}

/** A question's best and mean score over the methods, each one's value, its gold articles. */
export type HardQuestion = ReturnType<typeof hardestQuestions>[number];

/**
 * The `n` questions no method answers well (lowest best score, then mean, then qrels order), of those all scored.
 *
 * @example
 * const byRun = new Map([["bm25", evaluate(bm25.rankings, qrels).perQuery], ["dense", evaluate(dense.rankings, qrels).perQuery]]);
 * hardestQuestions(byRun, qrels, bench.meta, "Recall@100", 10).map((h) => [h.query, h.area, h.max]);
 */
export function hardestQuestions(
  perQueryByRun: ReadonlyMap<string, ReadonlyMap<QueryId, MetricValues>>,
  qrels: Qrels,
  meta: ReadonlyMap<QueryId, QueryMeta>,
  name: MetricName,
  n: number,
) {
  const metric = resolveMetric(name);
  checkCount(n, "n");
  if (perQueryByRun.size === 0) throw new RangeError("hardestQuestions needs the per-query values of at least one method");
  const runs = [...perQueryByRun];
  const all = [];
  for (const [query, judged] of qrels) {
    if (relevantCount(judged) === 0 || !runs.every(([, pq]) => pq.has(query))) continue;
    const gold = relevantDocs(judged);
    const values = runs.map(([run, pq]) => ({ run, value: pq.get(query)![metric] }));
    const max = Math.max(...values.map((v) => v.value));
    const mean = values.reduce((s, v) => s + v.value, 0) / values.length;
    all.push({ query, area: areaOf(meta, query), max, mean, values, gold: [...gold].map((article) => ({ article, source: sourceOf(article) })) });
  }
  return all.sort((x, y) => x.max - y.max || x.mean - y.mean).slice(0, n);
}

type NamedRankings = { name: string; rankings: Run["rankings"] };

/** Everything `gbr errors` shows of two runs; `JSON.stringify` of it is `gbr errors --json`. */
export type ErrorAnalysis = ReturnType<typeof analyseErrors>;

/** `metric` defaults to Recall@100, the paper's headline; `top` rows of `largestDifferences` (default 10). */
type ErrorAnalysisOptions = { metric?: MetricName; top?: number; meta?: ReadonlyMap<QueryId, QueryMeta> };

/**
 * Error analysis of A against B: win/tie/loss counts, largest differences with gold ranks, first-gold-rank buckets.
 *
 * @example
 * const analysis = analyseErrors({ name: "bm25", rankings: a.rankings }, { name: "lsi", rankings: b.rankings }, qrels);
 * analysis.winLoss.total; // { queries: 283, wins: …, ties: …, losses: … }
 */
export function analyseErrors(a: NamedRankings, b: NamedRankings, qrels: Qrels, opts: ErrorAnalysisOptions = {}) {
  const metric = resolveMetric(opts.metric ?? "Recall@100");
  // The distribution is keyed by name: one name for both runs would merge them.
  if (a.name === b.name) throw new RangeError(`both runs are named '${a.name}'`);
  const ea = evaluate(a.rankings, qrels);
  const eb = evaluate(b.rankings, qrels);
  return {
    a: a.name,
    b: b.name,
    metric,
    means: { a: ea.mean[metric], b: eb.mean[metric] },
    winLoss: winLoss(ea.perQuery, eb.perQuery, metric, { meta: opts.meta }),
    largestDifferences: largestDifferences(a.rankings, b.rankings, qrels, metric, { n: opts.top, meta: opts.meta }),
    firstGoldRanks: goldRankDistribution(new Map([[a.name, a.rankings], [b.name, b.rankings]]), qrels),
  };
}

// As byArea: one group per query, so the groups add up to the total.
function areaOf(meta: ReadonlyMap<QueryId, QueryMeta> | undefined, query: QueryId): string {
  return meta?.get(query)?.area || NO_AREA;
}

function emptyCounts(): WinLossCounts {
  return { queries: 0, wins: 0, ties: 0, losses: 0 };
}

function checkCount(n: number, name: string): number {
  if (!(Number.isInteger(n) && n >= 0)) throw new RangeError(`${name} must be an integer >= 0, got ${n}`);
  return n;
}
