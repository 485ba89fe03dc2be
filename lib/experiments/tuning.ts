/**
 * The paper's BM25 tuning sweep (DESIGN.md §6) as an experiment: 16 values of k1 × 12 values of
 * b, positive-only top-100 rankings, the five metrics per setting, the best setting by mean
 * Recall@100 (an oracle upper bound, since it is tuned on the test queries), and beside it the
 * 5-fold cross-validated estimate. The rankings come from the sparse engine (`QuerySweep`), the
 * metrics from eval's one implementation (`PositionalEvaluator`); this module joins the two.
 */
import type { DocId, Query, QueryId, Run } from "../types";
import { DEPTH, meanOf, PositionalEvaluator, queryMetrics, type Metric } from "../eval/metrics";
import { checkMetric, firstBest, sweepHeatmap, type SweepEntry, type SweepResult } from "../eval/sweep-result";
import { crossValidatedTuning } from "../eval/cross-validation";
import type { IndexedCorpus } from "../sparse/bm25-retriever";
import { QuerySweep, SWEEP_B, SWEEP_K1 } from "../sparse/sweep";
import { SkipExperiment, type Experiment, type ExperimentContext } from "./experiment";
import { addCosts, secondsOf } from "../util/run-cost";

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

  // Query-major: one query's precomputed structure stays in cache while all settings use it.
  const engine = new QuerySweep(corpus, settings, epsilon);
  const evaluator = new PositionalEvaluator(corpus.docIds);
  const queryIds: QueryId[] = [];
  for (const [id, gold] of qrels) {
    if (gold.size === 0) continue;
    queryIds.push(id);
    const text = textOf.get(id);
    if (text === undefined) {
      const zero = queryMetrics([], gold);
      for (const e of entries) {
        e.perQuery.set(id, { ...zero });
        e.rankings?.set(id, []);
      }
      continue;
    }
    engine.setQuery(corpus.analyze(text));
    evaluator.setGold(gold);
    for (let s = 0; s < settings.length; s++) {
      const ranking = engine.rank(s, DEPTH);
      entries[s].perQuery.set(id, evaluator.metrics(ranking));
      entries[s].rankings?.set(id, Array.from(ranking, (d) => corpus.docIds[d]));
    }
  }
  for (const e of entries) e.mean = meanOf([...e.perQuery.values()]);

  const grid = hasDefault ? entries : entries.slice(0, -1);
  const bestEntry = firstBest(grid, (e) => e.mean[metric]);
  const defaultEntry = hasDefault ? grid.find((e) => e.k1 === DEFAULT_K1 && e.b === DEFAULT_B)! : entries[entries.length - 1];
  return {
    grid,
    best: { k1: bestEntry.k1, b: bestEntry.b, value: bestEntry.mean[metric] },
    default: { k1: DEFAULT_K1, b: DEFAULT_B, value: defaultEntry.mean[metric] },
    defaultEntry,
    metric,
    k1s,
    bs,
    epsilon,
    queryIds,
  };
}

function validGrid(values: readonly number[], name: string, ok: (v: number) => boolean): number[] {
  if (values.length === 0) throw new RangeError(`${name} is empty`);
  const bad = values.find((v) => !Number.isFinite(v) || !ok(v));
  if (bad !== undefined) throw new RangeError(`${name} has an invalid value ${bad}`);
  // Sorted and unique, so grid order (and with it the tie rule) is the same however they were given.
  return [...new Set(values)].sort((x, y) => x - y);
}

/** Folds of the cross-validated estimate. */
const FOLDS = 5;

/** One sweep, its cross-validation and what it cost: shared by a pair's oracle and tuned rows. */
interface SweepOutcome {
  sweep: SweepResult;
  /** Undefined when there are fewer judged queries than folds. */
  cv?: ReturnType<typeof crossValidatedTuning>;
  seconds: number;
  corpusSeconds: number;
  source?: Run;
}

// The pair's two experiments ask for the same sweep; it is computed once per (corpus, queries).
const sweeps = new WeakMap<object, Map<readonly Query[], Promise<SweepOutcome>>>();

async function sweepFor(ctx: ExperimentContext, queriesFrom?: string): Promise<SweepOutcome> {
  const bench = ctx.loaded.benchmark;
  // The rewrites' run (made once, or reused): its queries are swept and its record is a part.
  const source = queriesFrom ? await ctx.run(queriesFrom) : undefined;
  const queries: readonly Query[] = source?.queries ?? bench.queries;
  const corpus = await ctx.corpus("greekstemmer");
  let byQueries = sweeps.get(corpus);
  if (!byQueries) sweeps.set(corpus, (byQueries = new Map()));
  let outcome = byQueries.get(queries);
  if (!outcome) {
    outcome = (async () => {
      const t0 = performance.now();
      const sweep = bm25Sweep(corpus, queries, bench.qrels, { metric: "Recall@100", keepRankings: true });
      const seconds = (performance.now() - t0) / 1000;
      const cv = sweep.queryIds.length >= FOLDS ? crossValidatedTuning(sweep, sweep.queryIds, { folds: FOLDS, seed: 42 }) : undefined;
      ctx.log(
        `sweep: 192 settings in ${seconds.toFixed(1)} s; oracle (k1 ${sweep.best.k1}, b ${sweep.best.b}) Recall@100 ${sweep.best.value.toFixed(4)} ` +
          `vs default ${sweep.default.value.toFixed(4)}` + (cv ? `; ${FOLDS}-fold cross-validated ${cv.mean["Recall@100"].toFixed(4)}` : ""),
      );
      return { sweep, ...(cv ? { cv } : {}), seconds, corpusSeconds: corpus.seconds, ...(source ? { source } : {}) };
    })();
    byQueries.set(queries, outcome);
  }
  return outcome;
}

/**
 * The two rows of a tuning sweep (DESIGN.md §6: BM25-GREEKSTEMMER, positive-only, all 192 (k1, b)
 * settings, by mean Recall@100):
 * - `oracle:<x>`: the best setting on all the test queries — an upper bound, since it is tuned
 *   on the queries it is scored on (the paper's "+0.05" row);
 * - `tuned:<x>`: the 5-fold cross-validated estimate, what a user may cite — each query ranked
 *   with the setting chosen on the other four folds (seeded folds).
 * `queriesFrom` names the retriever whose (rewritten) queries are swept.
 *
 * @example
 * const [oracle, tuned] = tuningExperiments("bm25-greekstemmer", "BM25-GREEKSTEMMER", [], "sweep.json");
 */
export function tuningExperiments(base: string, label: string, needs: Experiment["needs"], artifact: string, queriesFrom?: string): [Experiment, Experiment] {
  const record = (id: string, k1: number, b: number, o: SweepOutcome): Run["info"] => {
    // The rewrites' LLM record is kept (the parameters that made the swept queries), without
    // the BM25 they were first searched with: the setting chosen here is this run's BM25.
    const rewrites = o.source?.info?.llm ? [{ retriever: o.source.info.retriever, llm: o.source.info.llm }] : [];
    return { retriever: id, bm25: { tokenizer: "greekstemmer", k1, b, epsilon: o.sweep.epsilon, positiveOnly: true }, ...(rewrites.length ? { parts: rewrites } : {}) };
  };
  // The sweep's own time online, the index as one-time work, plus what the rewrites cost.
  const cost = (o: SweepOutcome) => addCosts({ online: secondsOf(o.seconds), corpus: secondsOf(o.corpusSeconds) }, o.source?.cost);
  const summary = (o: SweepOutcome) => ({
    oracle: o.sweep.best,
    default: o.sweep.default,
    cv: o.cv ? { mean: o.cv.mean, folds: o.cv.folds.map((f) => ({ fold: f.fold, k1: f.k1, b: f.b })) } : null,
    seconds: o.seconds,
  });
  const oracle: Experiment = {
    id: `oracle:${base}`,
    section: "4.4",
    title: `${label}, oracle upper bound: k1 and b tuned on the test queries (192 settings)`,
    needs,
    async run(ctx) {
      const o = await sweepFor(ctx, queriesFrom);
      const best = o.sweep.grid.find((e) => e.k1 === o.sweep.best.k1 && e.b === o.sweep.best.b)!;
      return {
        run: { rankings: best.rankings!, info: record(`oracle:${base}`, best.k1, best.b, o), cost: cost(o) },
        details: summary(o),
        artifacts: { [artifact]: { ...sweepHeatmap(o.sweep, "Recall@100"), ...summary(o) } },
      };
    },
  };
  const tuned: Experiment = {
    id: `tuned:${base}`,
    section: "4.4",
    title: `${label}, k1 and b tuned by 5-fold cross-validation (each query ranked with the setting chosen on the other folds)`,
    needs,
    async run(ctx) {
      const o = await sweepFor(ctx, queriesFrom);
      if (!o.cv) throw new SkipExperiment(`${FOLDS}-fold cross-validation needs at least ${FOLDS} judged queries; this set has ${o.sweep.queryIds.length}`);
      const cv = o.cv;
      const rankings = new Map<QueryId, DocId[]>();
      for (const f of cv.folds) {
        const entry = o.sweep.grid.find((e) => e.k1 === f.k1 && e.b === f.b)!;
        for (const q of f.testQueryIds) rankings.set(q, entry.rankings!.get(q) ?? []);
      }
      // The record names the setting most folds chose; details list every fold's.
      const votes = new Map<string, { k1: number; b: number; n: number }>();
      for (const f of cv.folds) {
        const key = `${f.k1} ${f.b}`;
        votes.set(key, { k1: f.k1, b: f.b, n: (votes.get(key)?.n ?? 0) + 1 });
      }
      const common = [...votes.values()].sort((x, y) => y.n - x.n)[0];
      return { run: { rankings, info: record(`tuned:${base}`, common.k1, common.b, o), cost: cost(o) }, details: summary(o) };
    },
  };
  return [oracle, tuned];
}
