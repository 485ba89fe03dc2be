import { median as ssMedian } from "simple-statistics";
import { NO_AREA, sourceOf, unjudgedQueries, type Benchmark } from "../types";
import { words } from "../text/normalize";

/** The paper's Table 1; `unjudged` queries (no relevant article) are not in the per-query figures. */
export type DatasetStats = ReturnType<typeof datasetStats>;

/** The paper's Table 6: per legal area, its judged queries and their distinct gold articles (median length in words). */
export type AreaStats = ReturnType<typeof areaStats>[number];

// simple-statistics' median refuses an empty list; an empty benchmark's medians are NaN.
const median = (xs: number[]): number => (xs.length ? ssMedian(xs) : NaN);

/**
 * Table 1 figures for a benchmark; lengths count `\w+` words, the unit the paper's tokenizers start from.
 *
 * @example
 * datasetStats(await readBeir("data/sample")).goldPerQuery;
 */
export function datasetStats(b: Benchmark) {
  const relevant = new Set<string>();
  let judgments = 0;
  let multi = 0;
  for (const q of b.queries) {
    const gold = b.qrels.get(q.id) ?? new Set<string>();
    judgments += gold.size;
    if (gold.size > 1) multi++;
    for (const d of gold) relevant.add(d);
  }
  const unjudged = unjudgedQueries(b).length;
  const nq = b.queries.length - unjudged;
  return {
    queries: b.queries.length,
    unjudged,
    articles: b.docs.length,
    sources: new Set(b.docs.map((d) => sourceOf(d.id))).size,
    judgments,
    distinctRelevant: relevant.size,
    relevantShareOfPool: b.docs.length ? relevant.size / b.docs.length : 0,
    goldPerQuery: nq ? judgments / nq : 0,
    /** share of judged queries with more than one relevant article */
    multiGoldShare: nq ? multi / nq : 0,
    medianArticleWords: median(b.docs.map((d) => words(d.text).length)),
    medianQueryWords: median(b.queries.map((q) => words(q.text).length)),
  };
}

/**
 * Table 6 per legal area from query metadata, over the judged queries (no area: NO_AREA, "(no area)"), sorted by area name.
 *
 * @example
 * areaStats(bench).map((r) => [r.area, r.queries]);
 */
export function areaStats(b: Benchmark) {
  const textOf = new Map(b.docs.map((d) => [d.id, d.text]));
  const groups = new Map<string, { queries: number; judgments: number; gold: Set<string> }>();
  for (const q of b.queries) {
    if (!b.qrels.has(q.id)) continue;
    const area = b.meta.get(q.id)?.area || NO_AREA;
    let g = groups.get(area);
    if (!g) groups.set(area, (g = { queries: 0, judgments: 0, gold: new Set() }));
    g.queries++;
    const gold = b.qrels.get(q.id) ?? new Set<string>();
    g.judgments += gold.size;
    for (const d of gold) g.gold.add(d);
  }
  return [...groups]
    .sort(([a], [c]) => (a < c ? -1 : a > c ? 1 : 0))
    .map(([area, g]) => ({
      area,
      queries: g.queries,
      goldArticles: g.gold.size,
      relevantPerQuery: g.judgments / g.queries,
      medianGoldWords: median([...g.gold].map((d) => words(textOf.get(d) ?? "").length)),
    }));
}
