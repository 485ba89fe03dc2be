import { promises as fs } from "node:fs";
import path from "node:path";
import type { LoadedBenchmark } from "../data/source";
import { DownloadError } from "../data/download";
import { writeJsonRun, writeTrec } from "../data/runs";
import { writeTrecQrels } from "../data/qrels";
import { areaStats, datasetStats } from "../data/stats";
import { evaluate, meanOf, METRICS, type MetricValues } from "../eval/metrics";
import { formatFixed } from "../eval/format";
import { formatTable, toCsv } from "../report/text-table";
import { formatStats } from "../report/stats-text";
import { EXPERIMENTS, SkipExperiment, type Experiment } from "./registry";
import { reproductionTable } from "./paper";
import { compareRuns, PAPER_TESTS } from "../eval/significance";
import { EmbeddingError } from "../dense/types";
import { ChatError } from "../llm/types";
import { loadPromptSet, PromptError } from "../llm/prompts";
import { reactRoundTable, type ReactRunResult } from "../llm/react";
import { costTable, loadPrices, type MethodUsage } from "../eval/cost";
import { createRetriever, supportsFeedback, type RetrieverOptions } from "../retrievers";
import { rrf } from "../fusion/rrf";
import type { Benchmark, Query, Retriever, Run } from "../types";

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
  /** What the experiment reported about itself (parameters, resources). */
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
  for (const [i, exp] of selected.entries()) {
    const base = { id: exp.id, title: exp.title, section: exp.section };
    const tag = `[${i + 1}/${selected.length}] ${exp.id}`;
    const samples = exp.needs.includes("llm") ? repeat : 1;
    log(`${tag} …`);
    const t0 = performance.now();
    try {
      const means: MetricValues[] = [];
      let details: Record<string, unknown> | undefined;
      for (let s = 0; s < samples; s++) {
        const variant = samples > 1 ? { sample: s, seed: seed + s } : undefined;
        const ctx = { loaded, log, run: (name: string) => shared.run(name, variant), queriesOf: (name: string) => shared.queriesOf(name, variant) };
        const result = await exp.run(ctx);
        details = result.details;
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
      }
      const seconds = (performance.now() - t0) / 1000;
      const mean = meanOf(means);
      const sd = samples > 1 ? sdOf(means, mean) : undefined;
      outcomes.push({ ...base, status: "ok", seconds, mean, sd, samples, details });
      const usage = await shared.usage(exp.id, bench.queries.length, seconds / samples);
      if (usage) costs.push(usage);
      log(`${tag}: Recall@100 ${formatFixed(mean["Recall@100"], 4)}${sd ? ` ± ${formatFixed(sd["Recall@100"], 4)}` : ""} in ${seconds.toFixed(1)} s`);
      const react = await shared.reactResult(exp.id);
      if (react) {
        const rows = reactRoundTable(react, bench.qrels);
        await fs.writeFile(path.join(outDir, "react-rounds.csv"), toCsv(Object.keys(rows[0] ?? {}), rows.map((r) => Object.values(r))));
      }
    } catch (err) {
      const skipped = isUnavailable(err);
      const reason = (err as Error).message;
      outcomes.push({ ...base, status: skipped ? "skipped" : "failed", reason });
      log(`${tag}: ${skipped ? "skipped" : "FAILED"}: ${reason}`);
    }
  }
  const significance = significanceTests(perQueryByExperiment, bench);
  if (significance) await fs.writeFile(path.join(outDir, "significance.json"), JSON.stringify(significance, null, 2) + "\n");
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
  ]);
  await fs.writeFile(
    path.join(outDir, "summary.csv"),
    toCsv(["experiment", "section", "status", ...METRICS, "samples", ...METRICS.map((m) => `sd ${m}`), "seconds", "reason"], summaryRows),
  );
  await fs.writeFile(path.join(outDir, "per-query.csv"), toCsv(["experiment", "sample", "query", "area", ...METRICS], perQueryRows));
  const t1 = datasetStats(bench);
  const t6 = areaStats(bench);
  await fs.writeFile(path.join(outDir, "table1.csv"), toCsv(Object.keys(t1), [Object.values(t1)]));
  const t6Columns = ["area", "queries", "goldArticles", "relevantPerQuery", "medianGoldWords"] as const;
  await fs.writeFile(path.join(outDir, "table6.csv"), toCsv([...t6Columns], t6.map((r) => t6Columns.map((c) => r[c]))));
  await writeTrecQrels(path.join(outDir, "qrels.txt"), bench.qrels);
  const label = datasetLabel(loaded);
  const llmMeta = llmMetadata(outcomes, opts);
  const repro = reproductionTable(outcomes, label, llmMeta && { model: llmMeta.model as string | null, prompts: (llmMeta.prompts as { name: string }).name });
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
 * Which model, prompt set (with its source and per-prompt sha256) and sampling produced the
 * LLM rows, so a reader can tell a run on the project's prompts from one on the official ones.
 */
function llmMetadata(outcomes: readonly ExperimentOutcome[], opts: ReproduceOptions): Record<string, unknown> | null {
  const ran = outcomes.filter((o) => o.status === "ok" && EXPERIMENTS.find((e) => e.id === o.id)?.needs.includes("llm"));
  if (ran.length === 0) return null;
  const o = opts.retrieverOptions ?? {};
  let prompts: Record<string, unknown> = { name: o.promptSet ?? "project" };
  try {
    const set = loadPromptSet(o.promptSet ?? "project");
    prompts = { name: set.name, source: set.source, commit: set.commit ?? null, sha256: set.sha256 };
  } catch {
    // The experiments ran, so the set loaded then; keep the name alone if it cannot be read now.
  }
  return {
    model: o.llm ?? process.env.GBR_CHAT_MODEL ?? null,
    prompts,
    replay: o.replay ?? "use",
    replayFile: process.env.GBR_REPLAY_FILE ?? null,
    repeat: opts.repeat ?? 1,
    seed: (opts.repeat ?? 1) > 1 ? (opts.seed ?? 42) : null,
    rounds: o.rounds ?? 10,
    experiments: ran.map((r) => r.id),
  };
}

/**
 * The paper's 20 significance tests (Holm over the 20) when their runs exist; otherwise, so a
 * run without LLM or embedding providers still shows which differences hold, every other
 * experiment against BM25-GREEKSTEMMER on the same four metrics (Holm over those).
 */
function significanceTests(perQuery: ReadonlyMap<string, Map<string, MetricValues>>, bench: Benchmark) {
  const paperPairs = PAPER_TESTS.pairs.filter(([a, b]) => perQuery.has(a) && perQuery.has(b));
  const baseline = "bm25-greekstemmer";
  const pairs: [string, string][] = paperPairs.length
    ? paperPairs.map(([a, b]) => [a, b])
    : [...perQuery.keys()].filter((id) => id !== baseline && perQuery.has(baseline)).map((id) => [id, baseline]);
  if (pairs.length === 0) return undefined;
  const names = [...new Set(pairs.flat())];
  const runs = names.map((name) => ({ name, perQuery: perQuery.get(name)! }));
  const { tests } = compareRuns(runs, bench.qrels, { pairs, metrics: [...PAPER_TESTS.metrics], swaps: 100_000, seed: 42 });
  return { scope: paperPairs.length ? "paper" : `against ${baseline}`, swaps: 100_000, seed: 42, tests };
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

/**
 * Memoised retrievers and runs for one reproduce: each retriever is built (indexed, embedded,
 * fitted) once, each run computed once, and composites reuse their parts. A failure is
 * memoised too, so every experiment that depends on an unavailable retriever reports the same
 * reason without retrying it. LLM samples (--repeat) are separate variants of a retriever.
 */
function sharedRuns(bench: Benchmark, options: RetrieverOptions) {
  const retrievers = new Map<string, Promise<Retriever>>();
  const runs = new Map<string, Promise<Run>>();
  const keyOf = (name: string, v: Variant) => (v ? `${name}#${v.sample}` : name);
  const retriever = (name: string, v: Variant): Promise<Retriever> => {
    const key = keyOf(name, v);
    let r = retrievers.get(key);
    if (!r) retrievers.set(key, (r = createRetriever(name, bench, { ...options, ...v })));
    return r;
  };
  const run = (name: string, v?: Variant): Promise<Run> => {
    const key = keyOf(name, v);
    let r = runs.get(key);
    if (r) return r;
    if (name.startsWith("rrf:")) {
      const parts = name.slice(4).split("+");
      r = Promise.all(parts.map((p) => run(p, v))).then((rs) => rrf(rs));
    } else if (name.startsWith("prf:")) {
      r = retriever(name.slice(4), v).then((inner) => {
        if (!supportsFeedback(inner)) throw new Error(`'${inner.name}' has no pseudo-relevance feedback`);
        return inner.retrieveWithFeedback(bench.queries, 100);
      });
    } else {
      r = retriever(name, v).then((x) => x.retrieve(bench.queries, 100));
    }
    runs.set(key, r);
    return r;
  };
  /** The built retrievers an experiment's run drew on (composites resolved to their parts). */
  const partsOf = (name: string): string[] =>
    name.startsWith("rrf:") ? name.slice(4).split("+").flatMap(partsOf) : name.startsWith("prf:") ? partsOf(name.slice(4)) : [name];
  /**
   * What an experiment spent, from the usage its retrievers counted (LLM calls and tokens,
   * embedding requests and tokens); undefined for methods that call no provider.
   */
  const usage = async (name: string, queries: number, seconds: number): Promise<MethodUsage | undefined> => {
    const u: MethodUsage = { method: name, queries, llm: { calls: 0, input: 0, output: 0 }, embedding: { calls: 0, tokens: 0 }, seconds, corpus: {} };
    let any = false;
    for (const part of partsOf(name)) {
      const r = (await retrievers.get(part)?.catch(() => undefined)) as (Retriever & { usage?: Record<string, unknown>; corpusUsage?: Record<string, number> }) | undefined;
      const x = r?.usage;
      if (!x) continue;
      any = true;
      if (typeof x.calls === "number") {
        const corpus = r.corpusUsage ?? { calls: 0, input: 0, output: 0 };
        u.llm.calls += (x.calls as number) - (corpus.calls ?? 0);
        u.llm.input += (x.input as number) - (corpus.input ?? 0);
        u.llm.output += (x.output as number) - (corpus.output ?? 0);
        u.llm.model = x.model as string | undefined;
        u.corpus!.llmInput = (u.corpus!.llmInput ?? 0) + (corpus.input ?? 0);
        u.corpus!.llmOutput = (u.corpus!.llmOutput ?? 0) + (corpus.output ?? 0);
      }
      if (typeof x.queryRequests === "number") {
        u.embedding.calls += x.queryRequests as number;
        u.embedding.tokens += x.queryTokens as number;
        u.corpus!.embeddingTokens = (u.corpus!.embeddingTokens ?? 0) + (x.documentTokens as number);
      }
    }
    return any ? u : undefined;
  };
  /** The full REACT result (all rounds) when the experiment ran react-bm25. */
  const reactResult = async (name: string): Promise<ReactRunResult | undefined> => {
    if (name !== "react-bm25") return undefined;
    const r = (await retrievers.get(name)?.catch(() => undefined)) as { last?: ReactRunResult } | undefined;
    return r?.last;
  };
  /** The queries a retriever searched with, when it records them (reform: keeps its rewrites). */
  const queriesOf = async (name: string, v?: Variant): Promise<Query[] | undefined> => {
    const r = (await retrievers.get(keyOf(name, v))?.catch(() => undefined)) as { lastQueries?: Query[] } | undefined;
    return r?.lastQueries;
  };
  return { run, usage, reactResult, queriesOf };
}
