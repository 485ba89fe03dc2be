import { promises as fs } from "node:fs";
import path from "node:path";
import type { LoadedBenchmark } from "../data/source";
import { DownloadError } from "../data/download";
import { writeJsonRun, writeTrec } from "../data/runs";
import { writeTrecQrels } from "../data/qrels";
import { areaStats, datasetStats } from "../data/stats";
import { evaluate, meanOf, METRICS, type MetricValues } from "../eval/metrics";
import { formatFixed } from "../report/format";
import { formatTable, toCsv } from "../report/text-table";
import { formatStats } from "../report/stats-text";
import { EXPERIMENTS, SkipExperiment, type Experiment } from "./registry";
import { reproductionTable } from "./paper";
import { significanceReport } from "../eval/significance";
import { MISSED_GOLD_COLUMNS, reactMissedGold } from "../eval/react-missed";
import { describeRun } from "./setup";
import { zeroWork } from "../util/run-cost";
import { EmbeddingError } from "../dense/types";
import { ChatError } from "../llm/types";
import { loadPromptSet, PromptError } from "../llm/prompts";
import { isReactRun, reactRoundTable, type ReactRunResult } from "../llm/react";
import { costTable, loadPrices, type MethodUsage } from "../eval/cost";
import { createRetriever, supportsFeedback, type RetrieverOptions } from "../retrievers";
import { rrf } from "../fusion/rrf";
import { indexCorpus, type IndexedCorpus } from "../sparse/bm25-retriever";
import { createTokenizer } from "../text/registry";
import type { Benchmark, LlmRunInfo, Retriever, Run, RunCost, RunInfo } from "../types";

export interface ReproduceOptions {
  /** Output root; results go to `<outRoot>/<dataset>/`. */
  outRoot: string;
  /** Experiment ids to run (default: all). */
  only?: string[];
  log?: (message: string) => void;
  experiments?: readonly Experiment[];
  /** Options passed to every retriever (LLM model, replay mode, prompt set, REACT rounds …). */
  retrieverOptions?: RetrieverOptions;
  /** Runs of each LLM experiment (samples 0..repeat-1 with seeds seed..seed+repeat-1); default 1. */
  repeat?: number;
  /** First provider seed for repeats (default 42). */
  seed?: number;
}

export interface ExperimentOutcome {
  id: string;
  title: string;
  section: string;
  status: "ok" | "skipped" | "failed";
  reason?: string;
  seconds?: number;
  mean?: MetricValues;
  /** Standard deviation over repeated samples (LLM experiments with --repeat N > 1). */
  sd?: MetricValues;
  samples?: number;
  /** What produced the run, recorded while it ran (parameters as sent, models, prompts, parser). */
  info?: RunInfo;
  /** `info` in one line (the setup column of summary.csv and reproduction.csv). */
  setup?: string;
  /** What the experiment adds about itself beyond the run (e.g. the tuning sweep's best setting). */
  details?: Record<string, unknown>;
}

export interface ReproduceResult {
  outDir: string;
  outcomes: ExperimentOutcome[];
  summaryText: string;
}

/**
 * Folder name for a loaded benchmark: hf, sample, or the BEIR folder's name, followed by the
 * queries file's name when one replaced the source's queries (so runs on different query sets
 * of one corpus do not overwrite each other).
 */
function datasetName(loaded: LoadedBenchmark): string {
  const base = loaded.origin === "dir" ? path.basename(loaded.dir) : loaded.origin;
  return loaded.queriesFile ? `${base}--${path.basename(loaded.queriesFile).replace(/\.jsonl?$/, "")}` : base;
}

/**
 * Runs every selected experiment on a loaded benchmark and writes, under
 * `<outRoot>/<dataset>/`: runs/<id>.trec and .json, summary.csv, per-query.csv,
 * table1.csv, table6.csv, qrels.txt and metadata.json. An experiment that cannot run here
 * (a resource offline, a provider not configured) is listed as skipped with the reason; one
 * that fails is listed as failed; neither stops the others.
 *
 * @example
 * const loaded = await loadBenchmark("sample");
 * const { outcomes } = await reproduce(loaded, { outRoot: "outputs" });
 */
export async function reproduce(loaded: LoadedBenchmark, opts: ReproduceOptions): Promise<ReproduceResult> {
  const log = opts.log ?? (() => {});
  const bench = loaded.benchmark;
  const outDir = path.join(opts.outRoot, datasetName(loaded));
  await fs.mkdir(path.join(outDir, "runs"), { recursive: true });
  const all = opts.experiments ?? EXPERIMENTS;
  const unknown = (opts.only ?? []).filter((id) => !all.some((e) => e.id === id));
  if (unknown.length) throw new Error(`unknown experiment id(s): ${unknown.join(", ")}; known: ${all.map((e) => e.id).join(", ")}`);
  const selected = opts.only ? all.filter((e) => opts.only!.includes(e.id)) : all;

  log(`dataset ${bench.name} (${loaded.origin}): ${bench.docs.length} articles, ${bench.queries.length} queries -> ${outDir}`);
  const repeat = opts.repeat ?? 1;
  const seed = opts.seed ?? 42;
  const shared = sharedRuns(bench, { log, ...opts.retrieverOptions });
  const outcomes: ExperimentOutcome[] = [];
  const perQueryRows: unknown[][] = [];
  const costs: MethodUsage[] = [];
  const perQueryByExperiment = new Map<string, Map<string, MetricValues>>();
  const runInfos = new Map<string, RunInfo>();
  for (const [i, exp] of selected.entries()) {
    const base = { id: exp.id, title: exp.title, section: exp.section };
    const tag = `[${i + 1}/${selected.length}] ${exp.id}`;
    const samples = exp.needs.includes("llm") ? repeat : 1;
    log(`${tag} …`);
    const t0 = performance.now();
    try {
      const means: MetricValues[] = [];
      let details: Record<string, unknown> | undefined;
      let info: RunInfo | undefined;
      let cost: RunCost | undefined;
      let timing = { online: 0, corpus: 0 };
      for (let s = 0; s < samples; s++) {
        const variant = samples > 1 ? { sample: s, seed: seed + s } : undefined;
        const started = performance.now();
        const result = await exp.run({ loaded, log, run: (name: string) => shared.run(name, variant).then((t) => t.run), corpus: shared.corpus });
        const wall = (performance.now() - started) / 1000;
        details = result.details;
        if (s === 0) {
          // Sample 0 stands for the experiment in the record, as in per-query.csv and cost.csv
          // (the other samples differ only by their seed, which metadata.json's llm.seed gives).
          info = result.run.info;
          cost = result.run.cost;
          // A shared run's own timing (retrieval apart from building the index or embedding the
          // corpus); other experiments (the tuning sweep) count their whole wall time.
          timing = (await shared.timing(exp.id, variant)) ?? { online: wall, corpus: 0 };
        }
        for (const [file, value] of Object.entries(result.artifacts ?? {})) {
          await fs.writeFile(path.join(outDir, file), JSON.stringify(value, null, 2) + "\n");
        }
        const file = samples > 1 ? `${exp.id}.s${s}` : exp.id;
        await writeTrec(path.join(outDir, "runs", `${file}.trec`), result.run, exp.id);
        await writeJsonRun(path.join(outDir, "runs", `${file}.json`), result.run);
        const { mean, perQuery } = evaluate(result.run.rankings, bench.qrels);
        means.push(mean);
        if (s === 0) perQueryByExperiment.set(exp.id, perQuery);
        for (const [qid, m] of perQuery) perQueryRows.push([exp.id, s, qid, bench.meta.get(qid)?.area ?? "", ...METRICS.map((k) => m[k])]);
        if (s === 0 && isReactRun(result.run)) await writeReactTables(outDir, result.run.react, bench);
      }
      const seconds = (performance.now() - t0) / 1000;
      const mean = meanOf(means);
      const sd = samples > 1 ? sdOf(means, mean) : undefined;
      outcomes.push({ ...base, status: "ok", seconds, mean, sd, samples, setup: describeRun(info), ...(info ? { info } : {}), details });
      if (info) runInfos.set(exp.id, info);
      costs.push({ method: exp.id, queries: bench.queries.length, cost: cost ?? { online: zeroWork(), corpus: zeroWork() }, seconds: timing.online, corpusSeconds: timing.corpus });
      log(`${tag}: Recall@100 ${formatFixed(mean["Recall@100"], 4)}${sd ? ` ± ${formatFixed(sd["Recall@100"], 4)}` : ""} in ${seconds.toFixed(1)} s`);
    } catch (err) {
      const skipped = isUnavailable(err);
      const reason = (err as Error).message;
      outcomes.push({ ...base, status: skipped ? "skipped" : "failed", reason });
      log(`${tag}: ${skipped ? "skipped" : "FAILED"}: ${reason}`);
    }
  }
  // The paper's 20 tests always (missing ones enter Holm as p = 1), and every experiment against
  // BM25-GREEKSTEMMER as a family of its own.
  const notRun = new Map(outcomes.filter((o) => o.status !== "ok").map((o) => [o.id, `${o.status}: ${o.reason}`]));
  const significance = significanceReport(perQueryByExperiment, bench.qrels, { swaps: 100_000, seed: 42, notRun });
  await fs.writeFile(path.join(outDir, "significance.json"), JSON.stringify(significance, null, 2) + "\n");
  if (costs.length) {
    const rows = costTable(costs, loadPrices());
    await fs.writeFile(path.join(outDir, "cost.csv"), toCsv(Object.keys(rows[0]), rows.map((r) => Object.values(r))));
  }

  const summaryRows = outcomes.map((o) => [
    o.id,
    o.section,
    o.status,
    ...METRICS.map((m) => o.mean?.[m] ?? ""),
    o.samples ?? "",
    ...METRICS.map((m) => o.sd?.[m] ?? ""),
    o.seconds ?? "",
    o.reason ?? "",
    o.setup ?? "",
  ]);
  await fs.writeFile(
    path.join(outDir, "summary.csv"),
    toCsv(["experiment", "section", "status", ...METRICS, "samples", ...METRICS.map((m) => `sd ${m}`), "seconds", "reason", "setup"], summaryRows),
  );
  await fs.writeFile(path.join(outDir, "per-query.csv"), toCsv(["experiment", "sample", "query", "area", ...METRICS], perQueryRows));
  const t1 = datasetStats(bench);
  const t6 = areaStats(bench);
  await fs.writeFile(path.join(outDir, "table1.csv"), toCsv(Object.keys(t1), [Object.values(t1)]));
  const t6Columns = ["area", "queries", "goldArticles", "relevantPerQuery", "medianGoldWords"] as const;
  await fs.writeFile(path.join(outDir, "table6.csv"), toCsv([...t6Columns], t6.map((r) => t6Columns.map((c) => r[c]))));
  await writeTrecQrels(path.join(outDir, "qrels.txt"), bench.qrels);
  const label = datasetLabel(loaded);
  const llmMeta = llmMetadata(runInfos, opts);
  const repro = reproductionTable(outcomes, label);
  await fs.writeFile(path.join(outDir, "reproduction.csv"), toCsv(Object.keys(repro[0]), repro.map((r) => Object.values(r))));
  const metadata = {
    dataset: bench.name,
    origin: loaded.origin,
    fallback: loaded.fallback ?? null,
    source: loaded.dir,
    revision: bench.revision ?? null,
    articles: bench.docs.length,
    queries: bench.queries.length,
    createdAt: new Date().toISOString(),
    node: process.version,
    llm: llmMeta,
    experiments: outcomes,
  };
  await fs.writeFile(path.join(outDir, "metadata.json"), JSON.stringify(metadata, null, 2) + "\n");

  const ok = outcomes.filter((o) => o.status === "ok");
  let summaryText =
    (loaded.fallback ? `NOTE: the benchmark could not be loaded from the Hugging Face Hub; these numbers are on the bundled demo set, not the benchmark.\n\n` : "") +
    formatStats(bench.name, t1, t6) +
    `\nResults — ${bench.name} (${bench.queries.length} queries)\n` +
    formatTable(["experiment", ...METRICS, "seconds"], ok.map((o) => [o.id, ...METRICS.map((m) => formatFixed(o.mean![m], 4)), o.seconds!.toFixed(2)]));
  summaryText += formatNotRun(outcomes);
  summaryText += `\nWritten to ${outDir}/ (runs/, summary.csv, per-query.csv, table1.csv, table6.csv, qrels.txt, reproduction.csv, metadata.json)\n`;
  return { outDir, outcomes, summaryText };
}

/**
 * The REACT tables of a run: react-rounds.csv (the paper's round table, rounds 1, 2, 3, 5, 10, with
 * the appendix C.4 diagnostic: gold articles some round retrieved that the observer never kept,
 * as pairs and queries) and react-missed.csv (those pairs after the last round).
 */
async function writeReactTables(outDir: string, react: ReactRunResult, bench: Benchmark): Promise<void> {
  const rows = reactRoundTable(react, bench.qrels);
  const missed = reactMissedGold(new Map([...react.traces].map(([q, t]) => [q, t.rounds])), bench.qrels, rows.map((r) => r.round));
  const byRound = new Map(missed.rounds.map((m) => [m.round, m]));
  const table = rows.map((r) => ({ ...r, missedGoldPairs: byRound.get(r.round)?.missedGoldPairs ?? 0, missedGoldQueries: byRound.get(r.round)?.missedGoldQueries ?? 0 }));
  await fs.writeFile(path.join(outDir, "react-rounds.csv"), toCsv(Object.keys(table[0] ?? {}), table.map((r) => Object.values(r))));
  await fs.writeFile(path.join(outDir, "react-missed.csv"), toCsv([...MISSED_GOLD_COLUMNS], missed.pairs.map((p) => MISSED_GOLD_COLUMNS.map((c) => p[c]))));
}

/** Resources that are simply not here (offline tables, unconfigured providers): skip, not fail. */
function isUnavailable(err: unknown): boolean {
  return (
    err instanceof SkipExperiment ||
    (err instanceof DownloadError && err.code === "OFFLINE") ||
    (err instanceof EmbeddingError && err.code === "NOT_CONFIGURED") ||
    (err instanceof ChatError && err.code === "NOT_CONFIGURED") ||
    (err instanceof PromptError && (err as { code?: string }).code === "NOT_PULLED")
  );
}

/**
 * Experiments that did not run, grouped by reason so that nine presets without a server take
 * one paragraph, not nine.
 */
function formatNotRun(outcomes: ExperimentOutcome[]): string {
  const groups = new Map<string, string[]>();
  for (const o of outcomes) {
    if (o.status === "ok") continue;
    const key = `${o.status}: ${o.reason}`;
    groups.set(key, [...(groups.get(key) ?? []), o.id]);
  }
  if (groups.size === 0) return "";
  const parts = [...groups].map(([why, ids]) => `  ${ids.join(", ")}\n    ${why}`);
  return `\nNot run (${outcomes.filter((o) => o.status !== "ok").length}):\n${parts.join("\n")}\n`;
}

/**
 * Which chat models (with their endpoints), prompt set (with its source and the sha256 of every
 * prompt) and parser produced the LLM rows, and the replay and sampling settings: read from the
 * runs' own records, so it says what ran (the default model included), not what was asked for.
 */
function llmMetadata(infos: ReadonlyMap<string, RunInfo>, opts: ReproduceOptions): Record<string, unknown> | null {
  const llm = [...infos].flatMap(([id, info]) => llmInfosOf(info).map((l) => ({ id, l })));
  if (llm.length === 0) return null;
  const distinct = <T>(xs: T[]) => [...new Map(xs.map((x) => [JSON.stringify(x), x])).values()];
  const models = distinct(llm.map(({ l }) => ({ model: l.model, provider: l.provider, endpoint: l.endpoint })));
  const setName = llm[0].l.prompts.name;
  let prompts: Record<string, unknown> = { name: setName, commit: llm[0].l.prompts.commit };
  try {
    const set = loadPromptSet(setName === "official" ? "official" : "project");
    prompts = { name: set.name, source: set.source, commit: set.commit ?? null, sha256: set.sha256 };
  } catch {
    // The experiments ran, so the set loaded then; keep what the runs recorded if it cannot be read now.
  }
  const rounds = distinct([...infos.values()].flatMap((i) => (i.rounds !== undefined ? [i.rounds] : [])));
  return {
    model: models.length === 1 ? models[0].model : models.map((m) => m.model),
    models,
    prompts,
    parser: distinct(llm.map(({ l }) => l.parser)).join(", "),
    replay: opts.retrieverOptions?.replay ?? "use",
    replayFile: process.env.GBR_REPLAY_FILE ?? null,
    repeat: opts.repeat ?? 1,
    seed: (opts.repeat ?? 1) > 1 ? (opts.seed ?? 42) : null,
    rounds: rounds.length === 0 ? null : rounds.length === 1 ? rounds[0] : rounds,
    experiments: distinct(llm.map(({ id }) => id)),
  };
}

/** The LLM records of a run and of the runs it was made from. */
function llmInfosOf(info: RunInfo): LlmRunInfo[] {
  return [...(info.llm ? [info.llm] : []), ...(info.parts ?? []).flatMap(llmInfosOf)];
}

/** What a run's numbers are on, in words, for the reproduction table. */
function datasetLabel(loaded: LoadedBenchmark): string {
  const n = loaded.benchmark.queries.length;
  if (loaded.origin === "hf") return `hf (${n} public queries)`;
  if (loaded.origin === "sample") return `sample (demo set, ${n} queries; not comparable)`;
  return `${path.basename(loaded.dir)} (${n} queries; not comparable)`;
}

/** Population standard deviation per metric over repeated samples. */
function sdOf(rows: readonly MetricValues[], mean: MetricValues): MetricValues {
  const out = { ...mean };
  for (const m of METRICS) out[m] = Math.sqrt(rows.reduce((acc, r) => acc + (r[m] - mean[m]) ** 2, 0) / rows.length);
  return out;
}

type Variant = { sample: number; seed: number } | undefined;

/** A shared run with the wall time of making it, apart from building its retrievers. */
interface TimedRun {
  run: Run;
  /** Seconds spent retrieving (online). */
  online: number;
  /** Seconds spent building the retrievers it drew on (indexing, embedding or translating the corpus, fitting). */
  corpus: number;
}

/**
 * Memoised retrievers and runs for one reproduce: each retriever is built (indexed, embedded,
 * fitted) once, each run computed once, and composites reuse their parts. A failure is
 * memoised too, so every experiment that depends on an unavailable retriever reports the same
 * reason without retrying it. LLM samples (--repeat) are separate variants of a retriever.
 * Building a retriever is timed apart from retrieving with it: one-time corpus work never
 * counts as per-query time.
 */
function sharedRuns(bench: Benchmark, options: RetrieverOptions) {
  const retrievers = new Map<string, Promise<{ retriever: Retriever; seconds: number }>>();
  const runs = new Map<string, Promise<TimedRun>>();
  const keyOf = (name: string, v: Variant) => (v ? `${name}#${v.sample}` : name);
  const retriever = (name: string, v: Variant) => {
    const key = keyOf(name, v);
    let r = retrievers.get(key);
    if (!r) {
      const t0 = performance.now();
      r = createRetriever(name, bench, { ...options, ...v }).then((retriever) => ({ retriever, seconds: (performance.now() - t0) / 1000 }));
      retrievers.set(key, r);
    }
    return r;
  };
  const timed = async (make: () => Promise<Run> | Run, corpus: number): Promise<TimedRun> => {
    const t0 = performance.now();
    const run = await make();
    return { run, online: (performance.now() - t0) / 1000, corpus };
  };
  const run = (name: string, v?: Variant): Promise<TimedRun> => {
    const key = keyOf(name, v);
    let r = runs.get(key);
    if (r) return r;
    if (name.startsWith("rrf:")) {
      const parts = name.slice(4).split("+");
      r = Promise.all(parts.map((p) => run(p, v))).then((ts) => ({
        run: rrf(ts.map((t) => t.run), { name }),
        online: ts.reduce((a, t) => a + t.online, 0),
        corpus: ts.reduce((a, t) => a + t.corpus, 0),
      }));
    } else if (name.startsWith("prf:")) {
      r = retriever(name.slice(4), v).then(({ retriever: inner, seconds }) => {
        if (!supportsFeedback(inner)) throw new Error(`'${inner.name}' has no pseudo-relevance feedback`);
        return timed(() => inner.retrieveWithFeedback(bench.queries, 100), seconds);
      });
    } else {
      r = retriever(name, v).then(({ retriever: x, seconds }) => timed(() => x.retrieve(bench.queries, 100), seconds));
    }
    runs.set(key, r);
    return r;
  };
  const corpora = new Map<string, Promise<IndexedCorpus>>();
  /** The corpus indexed with a tokenizer, once. */
  const corpus = (tokenizer: string): Promise<IndexedCorpus> => {
    let c = corpora.get(tokenizer);
    if (!c) corpora.set(tokenizer, (c = createTokenizer(tokenizer, options).then((t) => indexCorpus(bench.docs, t))));
    return c;
  };
  /** The online and corpus seconds of a shared run, when `name` is one (undefined for other experiments). */
  const timing = async (name: string, v?: Variant): Promise<{ online: number; corpus: number } | undefined> => {
    const t = await runs.get(keyOf(name, v))?.catch(() => undefined);
    return t && { online: t.online, corpus: t.corpus };
  };
  return { run, timing, corpus };
}
