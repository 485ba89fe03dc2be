/**
 * Running the BM25 tuning sweep: every (k1, b) setting's positive-only top-100 rankings from the
 * sparse engine (`QuerySweep`), scored by eval's one implementation (`PositionalEvaluator`), in
 * one thread (`bm25Sweep`) or over both cores (`bm25SweepMany`, lib/experiments/sweep-worker.ts),
 * with the same numbers to the bit either way.
 */
import type { DocId, Query, QueryId } from "../types";
import { DEPTH, meanOf, METRICS, PositionalEvaluator, queryMetrics, type Metric, type MetricValues } from "../eval/metrics";
import { checkMetric, firstBest, type SweepEntry, type SweepResult } from "../eval/sweep-result";
import type { IndexedCorpus } from "../sparse/bm25-retriever";
import { QuerySweep, SWEEP_B, SWEEP_K1 } from "../sparse/sweep";
import { guidedChunks, startChunks, threads, WorkerPool } from "../util/worker";

/** rank_bm25's defaults, the paper's untuned BM25 (ε is the sweep's `epsilon` option). */
const DEFAULT_K1 = 1.5;
const DEFAULT_B = 0.75;

/**
 * Options of `bm25Sweep`; every one defaults to the paper's setup.
 *
 * @example
 * bm25Sweep(corpus, queries, qrels, { k1s: [0.9, 1.2], bs: [0.4, 0.75], metric: "nDCG@10" });
 */
export interface SweepOptions {
  /** k1 values (default `SWEEP_K1`). */
  k1s?: readonly number[];
  /** b values (default `SWEEP_B`). */
  bs?: readonly number[];
  /** Negative-idf floor, fixed across the sweep as in the paper (default 0.25). */
  epsilon?: number;
  /** The metric `best` maximises (default "Recall@100", the paper's). */
  metric?: Metric;
  /** Keep each setting's rankings on its entry (default false). */
  keepRankings?: boolean;
}

/**
 * Runs BM25 positive-only top-100 for every (k1, b) of the grid and evaluates each setting.
 *
 * The rankings are exactly those of `Bm25Index.withParams({ k1, b, epsilon })` followed by
 * `searchIds(terms, 100, { positiveOnly: true })` — same order, same ties (corpus order) — but
 * computed without scoring every query token against every posting 192 times (see
 * `QuerySweep`), which for ~300-token queries is the difference between a minute and seconds.
 * Each query is analysed once. Evaluation follows `evaluate`: every query of `qrels` with at
 * least one relevant document counts, in qrels order, and one missing from `queries` scores 0;
 * queries without qrels are not run.
 *
 * `best` is the setting with the highest mean of `metric`; on a tie the first setting in grid
 * order (k1 ascending, then b ascending) wins, so the choice is reproducible and favours the
 * smaller k1 and b.
 *
 * `default` is (1.5, 0.75), evaluated positive-only; when the grid lacks it, it is run apart
 * (and not added to `grid`).
 *
 * @example
 * const corpus = indexCorpus(bench.docs, greekStemmerTokenizer());
 * const sweep = bm25Sweep(corpus, bench.queries, bench.qrels);
 * sweep.grid.length; // 192
 * console.log(sweep.best, sweep.default); // { k1, b, value: mean Recall@100 }
 */
export function bm25Sweep(
  corpus: IndexedCorpus,
  queries: readonly Query[],
  qrels: ReadonlyMap<QueryId, ReadonlySet<DocId>>,
  opts: SweepOptions = {},
): SweepResult {
  const plan = planSweep(corpus, queries, qrels, opts);
  const engine = new QuerySweep(corpus, plan.settings, plan.epsilon);
  const evaluator = new PositionalEvaluator(corpus.docIds);
  for (const q of plan.work) {
    const rows = sweepQuery(engine, evaluator, q.termIds, q.gold, plan.settings.length, (s, ranking) =>
      plan.entries[s].rankings?.set(q.id, Array.from(ranking, (d) => corpus.docIds[d])),
    );
    rows.forEach((m, s) => plan.entries[s].perQuery.set(q.id, m));
  }
  return finishSweep(plan);
}

/**
 * `bm25Sweep` over both cores: the queries cut into chunks (`guidedChunks`) that the main
 * thread and `threads() - 1` workers (lib/experiments/sweep-worker.ts, which run the very same
 * `sweepQuery`) take in turn (`shareChunks`), the same result to the bit. Small sweeps,
 * `keepRankings`, and `GBR_THREADS=1` run in one thread; to get the rankings of a few settings
 * afterwards, use `attachRankings`.
 *
 * @example
 * const sweep = await bm25SweepMany(corpus, bench.queries, bench.qrels);
 */
export function bm25SweepMany(
  corpus: IndexedCorpus,
  queries: readonly Query[],
  qrels: ReadonlyMap<QueryId, ReadonlySet<DocId>>,
  opts: SweepOptions = {},
): Promise<SweepResult> {
  return startSweepMany(corpus, queries, qrels, opts).finish();
}

/**
 * `bm25SweepMany` begun now and finished later: the workers start on their chunks at once, and
 * this thread joins them in `finish` (the same result to the bit). `gbr reproduce` begins its
 * tuning sweep this way while other experiments run on this thread. One-thread sweeps do all
 * their work in `finish`.
 *
 * @example
 * const sweep = startSweepMany(corpus, bench.queries, bench.qrels);
 * // … other work …
 * const result = await sweep.finish();
 */
export function startSweepMany(
  corpus: IndexedCorpus,
  queries: readonly Query[],
  qrels: ReadonlyMap<QueryId, ReadonlySet<DocId>>,
  opts: SweepOptions = {},
): { finish(): Promise<SweepResult> } {
  const plan = planSweep(corpus, queries, qrels, opts);
  const clients = !opts.keepRankings && plan.work.length >= PARALLEL_MIN_SWEEP_QUERIES ? pool.take(threads() - 1) : [];
  if (!clients.length) return { finish: async () => bm25Sweep(corpus, queries, qrels, opts) };
  const id = pool.load(corpus, clients, (id) => ({ kind: "load", corpus: id, arrays: corpus.index.arrays(), docIds: corpus.docIds }));
  // Chunks by work (a query's grows with the postings it touches), smaller towards the end,
  // taken in turn by this thread and the workers.
  const chunks = guidedChunks(plan.work, clients.length + 1, (q) => sweepCost(corpus, q.termIds));
  const S = plan.settings.length;
  const share = startChunks(chunks, clients, (client, part: readonly SweepWork[]) =>
    client.call<Float64Array>({ kind: "sweep", corpus: id, settings: plan.settings, epsilon: plan.epsilon, queries: part.map((q) => ({ termIds: q.termIds, gold: [...q.gold] })) }),
  );
  return {
    async finish() {
      // One engine for all of this thread's chunks, as a worker keeps one for its chunks.
      let engine: { here: QuerySweep; evaluator: PositionalEvaluator } | undefined;
      const packed = await share.join((part) => {
        engine ??= { here: new QuerySweep(corpus, plan.settings, plan.epsilon), evaluator: new PositionalEvaluator(corpus.docIds) };
        return packQueries(engine.here, engine.evaluator, S, part);
      });
      chunks.forEach((part, c) =>
        part.forEach((q, i) => {
          for (let s = 0; s < S; s++) plan.entries[s].perQuery.set(q.id, unpackMetrics(packed[c], (i * S + s) * METRICS.length));
        }),
      );
      return finishSweep(plan);
    },
  };
}

/**
 * The positive-only top-100 rankings of the given settings of a sweep, set on its entries (the
 * sweep's own rankings, as `keepRankings` would have kept them): for the few settings a
 * result needs (the oracle's, the cross-validation folds') without keeping all 192.
 *
 * @example
 * attachRankings(corpus, bench.queries, sweep, [sweep.best]);
 * sweep.grid.find((e) => e.k1 === sweep.best.k1 && e.b === sweep.best.b)!.rankings;
 */
export function attachRankings(corpus: IndexedCorpus, queries: readonly Query[], sweep: SweepResult, settings: readonly { k1: number; b: number }[]): void {
  const textOf = new Map<QueryId, string>();
  for (const q of queries) if (!textOf.has(q.id)) textOf.set(q.id, q.text);
  for (const { k1, b } of settings) {
    const entry = [...sweep.grid, sweep.defaultEntry].find((e) => e.k1 === k1 && e.b === b);
    if (!entry) throw new Error(`attachRankings: no setting (k1 ${k1}, b ${b}) in the sweep`);
    if (entry.rankings) continue;
    const scorer = corpus.index.withParams({ k1, b, epsilon: sweep.epsilon });
    entry.rankings = new Map(
      sweep.queryIds.map((q) => {
        const text = textOf.get(q);
        return [q, text === undefined ? [] : Array.from(scorer.searchIds(corpus.analyze(text), DEPTH, { positiveOnly: true }).docs, (d) => corpus.docIds[d])];
      }),
    );
  }
}

/** Sweeps smaller than this many queries run in one thread (a worker's start would not pay). */
const PARALLEL_MIN_SWEEP_QUERIES = 100;

const pool = new WorkerPool(__filename, "sweep-worker");

/** One query of a sweep: its id, its term ids and its gold articles. */
export interface SweepWork {
  id: QueryId;
  termIds: Int32Array;
  gold: ReadonlySet<DocId>;
}

/** What a sweep runs: the settings, their entries, the queries to rank (in qrels order). */
interface SweepPlan {
  settings: { k1: number; b: number }[];
  hasDefault: boolean;
  entries: SweepEntry[];
  work: SweepWork[];
  queryIds: QueryId[];
  k1s: number[];
  bs: number[];
  epsilon: number;
  metric: Metric;
}

function planSweep(corpus: IndexedCorpus, queries: readonly Query[], qrels: ReadonlyMap<QueryId, ReadonlySet<DocId>>, opts: SweepOptions): SweepPlan {
  const k1s = validGrid(opts.k1s ?? SWEEP_K1, "k1s", (v) => v >= 0);
  const bs = validGrid(opts.bs ?? SWEEP_B, "bs", (v) => v >= 0 && v <= 1);
  const epsilon = opts.epsilon ?? 0.25;
  const metric = opts.metric ?? "Recall@100";
  checkMetric(metric);
  if (!Number.isFinite(epsilon)) throw new RangeError(`epsilon must be finite, got ${epsilon}`);

  const settings: { k1: number; b: number }[] = [];
  for (const k1 of k1s) for (const b of bs) settings.push({ k1, b });
  const hasDefault = settings.some((s) => s.k1 === DEFAULT_K1 && s.b === DEFAULT_B);
  if (!hasDefault) settings.push({ k1: DEFAULT_K1, b: DEFAULT_B });

  const entries: SweepEntry[] = settings.map(({ k1, b }) => {
    const e: SweepEntry = { k1, b, mean: meanOf([]), perQuery: new Map() };
    if (opts.keepRankings) e.rankings = new Map();
    return e;
  });
  const textOf = new Map<QueryId, string>();
  for (const q of queries) if (!textOf.has(q.id)) textOf.set(q.id, q.text);
  const queryIds: QueryId[] = [];
  const work: SweepWork[] = [];
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
  return { settings, hasDefault, entries, work, queryIds, k1s, bs, epsilon, metric };
}

function finishSweep(plan: SweepPlan): SweepResult {
  const { entries, hasDefault, metric } = plan;
  for (const e of entries) {
    // Filled out of order (unjudged-text queries first, workers' shares as they come): put back
    // in qrels order, the order every mean is summed in, as `evaluate` does.
    e.perQuery = new Map(plan.queryIds.map((q) => [q, e.perQuery.get(q)!]));
    if (e.rankings) e.rankings = new Map(plan.queryIds.map((q) => [q, e.rankings!.get(q)!]));
    e.mean = meanOf([...e.perQuery.values()]);
  }
  const grid = hasDefault ? entries : entries.slice(0, -1);
  const bestEntry = firstBest(grid, (e) => e.mean[metric]);
  const defaultEntry = hasDefault ? grid.find((e) => e.k1 === DEFAULT_K1 && e.b === DEFAULT_B)! : entries[entries.length - 1];
  return {
    grid,
    best: { k1: bestEntry.k1, b: bestEntry.b, value: bestEntry.mean[metric] },
    default: { k1: DEFAULT_K1, b: DEFAULT_B, value: defaultEntry.mean[metric] },
    defaultEntry,
    metric,
    k1s: plan.k1s,
    bs: plan.bs,
    epsilon: plan.epsilon,
    queryIds: plan.queryIds,
  };
}

/**
 * Every setting's metrics for one query (and, through `keep`, each ranking): the engine ranks,
 * the evaluator scores. The one computation of both `bm25Sweep` and its workers.
 *
 * @example
 * const rows = sweepQuery(engine, evaluator, termIds, gold, settings.length);
 */
export function sweepQuery(
  engine: QuerySweep,
  evaluator: PositionalEvaluator,
  termIds: Int32Array,
  gold: ReadonlySet<DocId>,
  settings: number,
  keep?: (setting: number, ranking: Int32Array) => void,
): MetricValues[] {
  engine.setQuery(termIds);
  evaluator.setGold(gold);
  const rows: MetricValues[] = [];
  for (let s = 0; s < settings; s++) {
    const ranking = engine.rank(s, DEPTH);
    rows.push(evaluator.metrics(ranking));
    keep?.(s, ranking);
  }
  return rows;
}

/**
 * A chunk of a sweep in one thread, packed as the workers answer: for query i and setting s,
 * METRICS' values at (i · settings + s) · METRICS.length. The engine and evaluator are made
 * beforehand, so the chunks of one sweep share them.
 *
 * @example
 * const packed = packQueries(new QuerySweep(corpus, settings, 0.25), new PositionalEvaluator(corpus.docIds), settings.length, work);
 */
export function packQueries(engine: QuerySweep, evaluator: PositionalEvaluator, settings: number, work: readonly Pick<SweepWork, "termIds" | "gold">[]): Float64Array {
  const out = new Float64Array(work.length * settings * METRICS.length);
  work.forEach((q, i) => {
    sweepQuery(engine, evaluator, q.termIds, q.gold, settings).forEach((m, s) => {
      const o = (i * settings + s) * METRICS.length;
      METRICS.forEach((name, j) => (out[o + j] = m[name]));
    });
  });
  return out;
}

/** A query's share of a sweep's work: the postings of its distinct terms, plus a fixed part for the rankings. */
function sweepCost(corpus: Pick<IndexedCorpus, "index">, termIds: Int32Array): number {
  const { termStart } = corpus.index;
  const terms = termStart.length - 1;
  const seen = new Set<number>();
  let cost = 2000;
  for (const t of termIds) {
    if (t < 0 || t >= terms || seen.has(t)) continue;
    seen.add(t);
    cost += termStart[t + 1] - termStart[t];
  }
  return cost;
}

function unpackMetrics(packed: Float64Array, offset: number): MetricValues {
  return Object.fromEntries(METRICS.map((name, j) => [name, packed[offset + j]])) as MetricValues;
}

function validGrid(values: readonly number[], name: string, ok: (v: number) => boolean): number[] {
  if (values.length === 0) throw new RangeError(`${name} is empty`);
  const bad = values.find((v) => !Number.isFinite(v) || !ok(v));
  if (bad !== undefined) throw new RangeError(`${name} has an invalid value ${bad}`);
  // Sorted and unique, so grid order (and with it the tie rule) is the same however they were given.
  return [...new Set(values)].sort((x, y) => x - y);
}

