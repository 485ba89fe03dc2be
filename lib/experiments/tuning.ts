/** The paper's BM25 tuning (DESIGN.md §6: 16 k1 × 12 b, by mean Recall@100) as oracle and 5-fold CV experiments. */
export { bm25Sweep, type SweepOptions };
import type { DocId, Query, QueryId, Run } from "../types";
import { sweepHeatmap, type SweepResult } from "../eval/sweep-result";
import { crossValidatedTuning, type CvOptions, type CvResult } from "../eval/cross-validation";
import type { IndexedCorpus } from "../sparse/bm25-retriever";
import { attachRankings, bm25Sweep, type SweepOptions } from "./sweep-run";
import type { Experiment, ExperimentContext } from "./experiment";
import { GbrError } from "../util/errors";
import { addCosts, secondsOf } from "../eval/run-cost";

const FOLDS = 5;

/**
 * The paper's BM25 tuning on one query set: the sweep and its cross-validated estimate (5 folds, seed 42 unless
 * given). `cv.oracle` is the upper bound (tuned on the queries it is scored on); `cv.mean` is the number to cite.
 *
 * @example
 * const corpus = indexCorpus(bench.docs, greekStemmerTokenizer());
 * const { sweep, cv } = tuneBm25(corpus, bench.queries, bench.qrels);
 * console.log(cv.default.value, cv.mean["Recall@100"], cv.oracle.value, sweep.grid.length);
 */
export function tuneBm25(
  corpus: IndexedCorpus,
  queries: readonly Query[],
  qrels: ReadonlyMap<QueryId, ReadonlySet<DocId>>,
  opts: SweepOptions & CvOptions = {},
): { sweep: SweepResult; cv: CvResult } {
  const sweep = bm25Sweep(corpus, queries, qrels, opts);
  return { sweep, cv: crossValidatedTuning(sweep, sweep.queryIds, opts) };
}

/** Shared by the oracle and tuned rows; no `cv` with fewer judged queries than folds. */
interface SweepOutcome {
  sweep: SweepResult;
  cv?: ReturnType<typeof crossValidatedTuning>;
  seconds: number;
  corpusSeconds: number;
  source?: Run;
}

async function sweepFor(ctx: ExperimentContext, queriesFrom?: string): Promise<SweepOutcome> {
  const bench = ctx.loaded.benchmark;
  // The rewrites' run (made once, or reused): its queries are swept and its record is a part.
  const source = queriesFrom ? await ctx.run(queriesFrom) : undefined;
  const queries: readonly Query[] = source?.queries ?? bench.queries;
  const corpus = await ctx.corpus("greekstemmer");
  return ctx.once(queries, "bm25 tuning sweep", async () => {
    const t0 = performance.now();
    const label = `BM25 sweep (192 settings)${queriesFrom ? ` of ${queriesFrom}` : ""}, queries`;
    const sweep = bm25Sweep(corpus, queries, bench.qrels, { onProgress: (done, total) => ctx.progress(label, done, total) });
    const cv = sweep.queryIds.length >= FOLDS ? crossValidatedTuning(sweep, sweep.queryIds, { folds: FOLDS }) : undefined;
    attachRankings(corpus, queries, sweep, [sweep.best, ...(cv?.folds ?? [])]);
    const seconds = (performance.now() - t0) / 1000;
    ctx.log(
      `sweep: 192 settings in ${seconds.toFixed(1)} s; oracle (k1 ${sweep.best.k1}, b ${sweep.best.b}) Recall@100 ${sweep.best.value.toFixed(4)} ` +
        `vs default ${sweep.default.value.toFixed(4)}` + (cv ? `; ${FOLDS}-fold cross-validated ${cv.mean["Recall@100"].toFixed(4)}` : ""),
    );
    return { sweep, ...(cv ? { cv } : {}), seconds, corpusSeconds: corpus.seconds, ...(source ? { source } : {}) };
  });
}

/** `oracle:<x>` (best of 192 on the test queries, an upper bound) and `tuned:<x>` (5-fold CV); `queriesFrom`'s queries swept. */
export function tuningExperiments(base: string, label: string, needs: Experiment["needs"], artifact: string, queriesFrom?: string): [Experiment, Experiment] {
  const record = (id: string, k1: number, b: number, o: SweepOutcome): Run["info"] => {
    // Keep the rewrites' LLM record, not the BM25 they were first searched with: this run's BM25 is the one chosen.
    const rewrites = o.source?.info?.llm ? [{ retriever: o.source.info.retriever, llm: o.source.info.llm }] : [];
    return { retriever: id, bm25: { tokenizer: "greekstemmer", k1, b, epsilon: o.sweep.epsilon, positiveOnly: true }, ...(rewrites.length ? { parts: rewrites } : {}) };
  };
  const entryAt = (o: SweepOutcome, s: { k1: number; b: number }) => o.sweep.grid.find((e) => e.k1 === s.k1 && e.b === s.b)!;
  // Online: ranking with the one setting chosen, a 192nd of the sweep; the rest is one-time work, as indexing is.
  const cost = (o: SweepOutcome) => {
    const once = o.seconds / o.sweep.grid.length;
    return addCosts({ online: secondsOf(once), corpus: secondsOf(o.corpusSeconds + o.seconds - once) }, o.source?.cost);
  };
  const summary = (o: SweepOutcome) => ({
    oracle: o.sweep.best,
    default: o.sweep.default,
    cv: o.cv ? { mean: o.cv.mean, folds: o.cv.folds.map((f) => ({ fold: f.fold, k1: f.k1, b: f.b })) } : null,
    seconds: o.seconds,
  });
  // The sweep calls no model (its rewrites are its part's): a plan stands the row on that part's run.
  const planned = async (id: string, ctx: ExperimentContext) => {
    const part = await ctx.run(base);
    return { run: { rankings: part.rankings, info: { retriever: id }, ...(queriesFrom && part.cost ? { cost: part.cost } : {}) } };
  };
  const oracle: Experiment = {
    id: `oracle:${base}`,
    section: "4.4",
    title: `${label}, oracle: k1 and b tuned for Recall@100 on the test queries (192 settings)`,
    needs,
    async run(ctx) {
      if (ctx.planning) return planned(`oracle:${base}`, ctx);
      const o = await sweepFor(ctx, queriesFrom);
      const best = entryAt(o, o.sweep.best);
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
      if (ctx.planning) return planned(`tuned:${base}`, ctx);
      const o = await sweepFor(ctx, queriesFrom);
      const few = `${FOLDS}-fold cross-validation needs at least ${FOLDS} judged queries; this set has ${o.sweep.queryIds.length}`;
      if (!o.cv) throw new GbrError(few, "SKIP", { unavailable: true });
      const cv = o.cv;
      const rankings = new Map<QueryId, DocId[]>();
      for (const f of cv.folds) for (const q of f.testQueryIds) rankings.set(q, entryAt(o, f).rankings!.get(q) ?? []);
      // A query without judgments is in no fold: it is ranked with the setting tuned on all judged queries.
      for (const [q, r] of entryAt(o, o.sweep.best).rankings!) if (!rankings.has(q)) rankings.set(q, r);
      // The record names the setting most folds chose (the earliest fold's on a tie); details list every fold's.
      const votes = (f: { k1: number; b: number }) => cv.folds.filter((g) => g.k1 === f.k1 && g.b === f.b).length;
      const common = cv.folds.reduce((x, y) => (votes(y) > votes(x) ? y : x));
      return { run: { rankings, info: record(`tuned:${base}`, common.k1, common.b, o), cost: cost(o) }, details: summary(o) };
    },
  };
  return [oracle, tuned];
}
