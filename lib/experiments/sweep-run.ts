/** The BM25 tuning sweep: the sparse engine's rankings (`QuerySweep`) scored by eval's `PositionalEvaluator`. */
import type { DocId, Query, QueryId } from "../types";
import { DEPTH, meanOf, PositionalEvaluator, queryMetrics } from "../eval/metrics";
import { firstBest, type SweepEntry, type SweepResult } from "../eval/sweep-result";
import { resolveMetric, type MetricName } from "../eval/metric-names";
import type { IndexedCorpus } from "../sparse/bm25-retriever";
import { QuerySweep, SWEEP_B, SWEEP_K1 } from "../sparse/sweep";

/** rank_bm25's defaults, the paper's untuned BM25 (ε is the sweep's `epsilon` option). */
const DEFAULT_K1 = 1.5;
const DEFAULT_B = 0.75;

/** Options of `bm25Sweep`, each defaulting to the paper's: `SWEEP_K1` × `SWEEP_B`, ε 0.25, `best` by Recall@100. */
export interface SweepOptions {
  k1s?: readonly number[];
  bs?: readonly number[];
  epsilon?: number;
  metric?: MetricName;
  keepRankings?: boolean;
  onProgress?: (done: number, total: number) => void;
}

/**
 * BM25 positive-only top-100 for every (k1, b), evaluated, exactly as `searchIds` ranks (ties in corpus order). As in
 * `evaluate`, every judged query counts, in qrels order (0 when not run); `best` is the first maximum in grid order.
 */
export function bm25Sweep(
  corpus: IndexedCorpus,
  queries: readonly Query[],
  qrels: ReadonlyMap<QueryId, ReadonlySet<DocId>>,
  opts: SweepOptions = {},
): SweepResult {
  const k1s = validGrid(opts.k1s ?? SWEEP_K1, "k1s", (v) => v >= 0);
  const bs = validGrid(opts.bs ?? SWEEP_B, "bs", (v) => v >= 0 && v <= 1);
  const epsilon = opts.epsilon ?? 0.25;
  const metric = resolveMetric(opts.metric ?? "Recall@100");

  const settings = k1s.flatMap((k1) => bs.map((b) => ({ k1, b })));
  const hasDefault = settings.some((s) => s.k1 === DEFAULT_K1 && s.b === DEFAULT_B);
  if (!hasDefault) settings.push({ k1: DEFAULT_K1, b: DEFAULT_B });

  const entries: SweepEntry[] = settings.map(({ k1, b }) => ({ k1, b, mean: meanOf([]), perQuery: new Map() }));
  if (opts.keepRankings) for (const e of entries) e.rankings = new Map();
  const textOf = new Map<QueryId, string>();
  for (const q of queries) if (!textOf.has(q.id)) textOf.set(q.id, q.text);
  const queryIds: QueryId[] = [];
  const work: { id: QueryId; termIds: Int32Array; gold: ReadonlySet<DocId> }[] = [];
  for (const [id, gold] of qrels) {
    if (gold.size === 0) continue;
    queryIds.push(id);
    const text = textOf.get(id);
    if (text === undefined) {
      // A judged query that was not run scores 0 everywhere, as in `evaluate`.
      const zero = queryMetrics([], gold);
      for (const e of entries) {
        e.perQuery.set(id, { ...zero });
        e.rankings?.set(id, []);
      }
      continue;
    }
    work.push({ id, termIds: Int32Array.from(corpus.analyze(text)), gold });
  }

  const engine = new QuerySweep(corpus, settings, epsilon);
  const evaluator = new PositionalEvaluator(corpus.docIds);
  for (const [done, q] of work.entries()) {
    engine.setQuery(q.termIds);
    evaluator.setGold(q.gold);
    for (const [s, e] of entries.entries()) {
      const ranking = engine.rank(s, DEPTH);
      e.perQuery.set(q.id, evaluator.metrics(ranking));
      e.rankings?.set(q.id, Array.from(ranking, (d) => corpus.docIds[d]));
    }
    opts.onProgress?.(done + 1, work.length);
  }

  for (const e of entries) {
    // Filled out of order: back to qrels order, the order every mean is summed in (as `evaluate` does).
    e.perQuery = new Map(queryIds.map((q) => [q, e.perQuery.get(q)!]));
    if (e.rankings) e.rankings = new Map(queryIds.map((q) => [q, e.rankings!.get(q)!]));
    e.mean = meanOf([...e.perQuery.values()]);
  }
  const grid = hasDefault ? entries : entries.slice(0, -1);
  const defaultEntry = hasDefault ? grid.find((e) => e.k1 === DEFAULT_K1 && e.b === DEFAULT_B)! : entries[entries.length - 1];
  const bestEntry = firstBest(grid, (e) => e.mean[metric], defaultEntry);
  const ties = grid.filter((e) => e.mean[metric] === bestEntry.mean[metric]).length;
  return {
    grid,
    best: { k1: bestEntry.k1, b: bestEntry.b, value: bestEntry.mean[metric], ties },
    default: { k1: DEFAULT_K1, b: DEFAULT_B, value: defaultEntry.mean[metric] },
    defaultEntry,
    metric,
    k1s,
    bs,
    epsilon,
    queryIds,
  };
}

/** Ranks every query (swept ones first, then the unjudged) with the few settings a result needs (oracle, CV folds). */
export function attachRankings(corpus: IndexedCorpus, queries: readonly Query[], sweep: SweepResult, settings: readonly { k1: number; b: number }[]): void {
  const textOf = new Map<QueryId, string>();
  for (const q of queries) if (!textOf.has(q.id)) textOf.set(q.id, q.text);
  const ids = [...new Set([...sweep.queryIds, ...textOf.keys()])];
  for (const { k1, b } of settings) {
    const entry = [...sweep.grid, sweep.defaultEntry].find((e) => e.k1 === k1 && e.b === b)!;
    if (entry.rankings) continue;
    const scorer = corpus.index.withParams({ k1, b, epsilon: sweep.epsilon });
    entry.rankings = new Map(
      ids.map((q) => {
        const text = textOf.get(q);
        return [q, text === undefined ? [] : Array.from(scorer.searchIds(corpus.analyze(text), DEPTH, { positiveOnly: true }).docs, (d) => corpus.docIds[d])];
      }),
    );
  }
}

function validGrid(values: readonly number[], name: string, ok: (v: number) => boolean): number[] {
  if (values.length === 0) throw new RangeError(`${name} is empty`);
  const bad = values.find((v) => !Number.isFinite(v) || !ok(v));
  if (bad !== undefined) throw new RangeError(`${name} has an invalid value ${bad}`);
  // Sorted and unique, so grid order (and with it the tie rule) is the same however they were given.
  return [...new Set(values)].sort((x, y) => x - y);
}

