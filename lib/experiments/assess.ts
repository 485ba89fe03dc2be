/** Step 2 of `gbr reproduce`: every experiment's outcome and the tests and tables over them. Pure: no files. */
import type { LoadedBenchmark } from "../data/source";
import { areaStats, datasetStats } from "../data/stats";
import { costTable, loadPrices, type MethodUsage } from "../eval/cost";
import { meanOf, METRICS, type MetricValues } from "../eval/metrics";
import { missedGoldByFirstRound, reactMissedGold, type MissedFirstRoundRow, type MissedGold } from "../eval/react-missed";
import { reactRoundTable, type ReactRoundRow } from "../eval/react-rounds";
import { significanceReport } from "../eval/significance";
import { describe } from "../eval/statistics";
import { isReactRun, type ReactRunResult } from "../llm/react";
import { unjudgedQueries, type DocId, type QueryId, type Run, type RunCost, type RunInfo } from "../types";
import { zeroWork } from "../eval/run-cost";
import { llmMetadata } from "./llm-metadata";
import { reproductionTable } from "./paper";
import type { ExperimentRecord } from "./run-experiments";
import type { Experiment } from "./experiment";
import { describeRun, provenanceOf, type Provenance } from "./setup";

/** One experiment as the outputs list it: its list entry, what happened to it, and what its run recorded. */
export interface ExperimentOutcome
  extends Pick<Experiment, "id" | "title" | "section" | "beyond">,
    Pick<ExperimentRecord, "status" | "reason" | "earlier" | "now" | "brief">,
    Partial<Pick<ExperimentRecord, "seconds" | "ranAt">> {
  mean?: MetricValues;
  /** Standard deviation over --repeat samples. */
  sd?: MetricValues;
  samples?: number;
  info?: RunInfo;
  /** Sample 0's provider work as counted: cost.csv's numbers before division, what `--plan` predicts. */
  work?: RunCost;
  /** `info` in one line (the setup column of summary.csv and reproduction.csv). */
  setup?: string;
  provenance?: Provenance[];
  /** Made through the project's own test doubles: it shows the mechanics, not a result. */
  standIn?: boolean;
  /** What the experiment adds beyond the run (e.g. the tuning sweep's best setting). */
  details?: Record<string, unknown>;
}

/** What this run did with an experiment: its status now, or undefined for an earlier result it left untouched. */
export function statusNow(o: Pick<ExperimentOutcome, "status" | "earlier" | "now">): ExperimentOutcome["status"] | undefined {
  return o.now?.status ?? (o.earlier ? undefined : o.status);
}

/** What a run failed at, one line per reason (said again when `quiet`); skips count when `only` named them. */
export function failureLines(outcomes: readonly ExperimentOutcome[], opts: { quiet: boolean; only: boolean }): string[] {
  const byReason = new Map<string, string[]>();
  for (const o of outcomes) {
    if (!(statusNow(o) === "failed" || (opts.only && statusNow(o) === "skipped"))) continue;
    const [what, reason] = o.now ? [`${o.now.status} (its earlier result is kept)`, o.now.reason] : [o.status, o.reason ?? ""];
    const why = opts.quiet ? `${what}: ${reason}` : `${what} (the reason is above)`;
    byReason.set(why, [...(byReason.get(why) ?? []), o.id]);
  }
  return [...byReason].map(([why, ids]) => `${ids.join(", ")} ${why}`);
}

/** Everything step 3 writes, computed. */
export type Assessment = ReturnType<typeof assess>;

export function assess(
  loaded: LoadedBenchmark,
  records: readonly ExperimentRecord[],
  opts: { repeat?: number; seed?: number; replay?: string; replayFile?: string; official?: boolean; promptSet?: string; embedNaming?: string; pricesFile?: string; promptsDir?: string } = {},
) {
  const bench = loaded.benchmark;
  const outcomes = records.map(outcomeOf);
  const ran = records.filter((r) => r.status === "ok");
  const perQuery = new Map(ran.map((r) => [r.experiment.id, r.samples[0].perQuery]));
  const notRun = new Map(outcomes.filter((o) => o.status !== "ok").map((o) => [o.id, `${o.status}: ${o.reason}`]));
  // Sample 0 stands for the experiment, as in per-query.csv; a run reporting no timing counts wall time online.
  const usages: MethodUsage[] = ran.map((r) => {
    const s = r.samples[0];
    const cost = s.result.run.cost ?? { online: { ...zeroWork(), seconds: s.seconds }, corpus: zeroWork() };
    return { method: r.experiment.id, queries: bench.queries.length, cost, seconds: cost.online.seconds, corpusSeconds: cost.corpus.seconds };
  });
  // When REACT-BM25 ran: the paper's round table and the appendix C.4 diagnostic.
  const reactRun = ran.map((r) => r.samples[0].result.run).find(isReactRun);
  const react = reactRun && reactAnalysis(reactRun, bench.qrels);
  // The paper's 20 tests always (missing ones enter Holm as p = 1), plus each experiment vs BM25-GREEKSTEMMER.
  const significance = significanceReport(perQuery, bench.qrels, { swaps: 100_000, seed: 42, notRun });
  return {
    outcomes,
    perQuery,
    significance,
    // Which parts of the run's setup were the authors' own: all (`--official`), prompts, serving, test stream, list.
    authorsSetup: {
      official: opts.official === true,
      prompts: opts.promptSet === "official",
      serving: opts.embedNaming === "authors",
      significance: significance.paper.authorsStream,
      experiments: outcomes.every((o) => !o.beyond),
    },
    cost: costTable(usages, loadPrices(opts.pricesFile)),
    reproduction: reproductionTable(outcomes, datasetLabel(loaded), loaded.origin === "hf"),
    react,
    table1: datasetStats(bench),
    table6: areaStats(bench),
    llm: llmMetadata(new Map(outcomes.flatMap((o) => (o.info ? [[o.id, o.info] as const] : []))), opts),
  };
}

/** REACT-BM25's round table (react-rounds.csv) and the gold retrieved but never kept (react-missed.csv). */
export interface ReactAnalysis {
  rounds: (ReactRoundRow & { missedGoldPairs: number; missedGoldQueries: number })[];
  missed: MissedGold;
  missedByFirstRound: MissedFirstRoundRow[];
  react: ReactRunResult;
}

/**
 * The REACT-BM25 tables of a run, at the paper's snapshot rounds (1, 2, 3, 5, 10) by default or every round with
 * `rounds: "all"`; undefined for a run that is not REACT-BM25's.
 *
 * @example
 * const run = await (await createRetriever("react-bm25", bench)).retrieve(bench.queries, 100);
 * const a = reactAnalysis(run, bench.qrels, { rounds: "all" });
 * a?.rounds.map((r) => [r.round, r.keptRecall100, r.candidateRecall100]);
 * a?.react.traces.get(bench.queries[0].id)?.rounds[0].planner.query;
 */
export function reactAnalysis(run: Run, qrels: ReadonlyMap<QueryId, ReadonlySet<DocId>>, opts: { rounds?: readonly number[] | "all" } = {}): ReactAnalysis | undefined {
  if (!isReactRun(run)) return undefined;
  const react = run.react;
  const every = Array.from({ length: react.rounds }, (_, i) => i + 1);
  const rows = reactRoundTable(react, qrels, opts.rounds === "all" ? every : opts.rounds);
  const missed = reactMissedGold(new Map([...react.traces].map(([q, t]) => [q, t.rounds])), qrels, rows.map((r) => r.round));
  const byRound = new Map(missed.rounds.map((m) => [m.round, m]));
  return {
    rounds: rows.map((r) => ({ ...r, missedGoldPairs: byRound.get(r.round)?.missedGoldPairs ?? 0, missedGoldQueries: byRound.get(r.round)?.missedGoldQueries ?? 0 })),
    missed,
    missedByFirstRound: missedGoldByFirstRound(missed.pairs, missed.lastRound),
    react,
  };
}

function outcomeOf(r: ExperimentRecord): ExperimentOutcome {
  const base = {
    id: r.experiment.id,
    title: r.experiment.title,
    section: r.experiment.section,
    ...(r.experiment.beyond ? { beyond: r.experiment.beyond } : {}),
    ranAt: r.ranAt,
    ...(r.earlier ? { earlier: true } : {}),
    ...(r.now ? { now: r.now } : {}),
  };
  if (r.status !== "ok") return { ...base, status: r.status, reason: r.reason, ...(r.brief ? { brief: r.brief } : {}) };
  const means = r.samples.map((s) => s.mean);
  const mean = meanOf(means);
  const { run, details } = r.samples[0].result;
  const info = run.info;
  return {
    ...base,
    status: "ok",
    seconds: r.seconds,
    mean,
    sd: means.length > 1 ? sdOf(means) : undefined,
    samples: means.length,
    setup: describeRun(info),
    provenance: provenanceOf(info),
    standIn: provenanceOf(info).some((p) => p.standIn),
    ...(info ? { info } : {}),
    ...(run.cost ? { work: run.cost } : {}),
    details,
  };
}

/** Sample sd (n − 1) per metric: the N runs are a few draws of the LLM's randomness, not all of it. */
function sdOf(rows: readonly MetricValues[]): MetricValues {
  return Object.fromEntries(METRICS.map((m) => [m, describe(rows.map((r) => r[m])).sd])) as MetricValues;
}

/** What a run's numbers are on, in words, for the reproduction table. */
function datasetLabel(loaded: LoadedBenchmark): string {
  const n = loaded.benchmark.queries.length - unjudgedQueries(loaded.benchmark).length;
  if (loaded.origin === "hf") return `hf (${n} public queries)`;
  if (loaded.origin === "sample") return `sample (demo set, ${n} queries; not comparable)`;
  return `${loaded.dir.split(/[\\/]/).filter(Boolean).pop()} (${n} queries; not comparable)`;
}
