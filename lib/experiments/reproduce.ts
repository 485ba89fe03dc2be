import { promises as fs } from "node:fs";
import path from "node:path";
import type { LoadedBenchmark } from "../data/source";
import { DownloadError } from "../data/download";
import { writeJsonRun, writeTrec } from "../data/runs";
import { writeTrecQrels } from "../data/qrels";
import { areaStats, datasetStats } from "../data/stats";
import { evaluate, METRICS, type MetricValues } from "../eval/metrics";
import { formatFixed } from "../eval/format";
import { formatTable, toCsv } from "../report/text-table";
import { formatStats } from "../report/stats-text";
import { EXPERIMENTS, SkipExperiment, type Experiment } from "./registry";
import { EmbeddingError } from "../dense/types";
import { createRetriever, supportsFeedback } from "../retrievers";
import { rrf } from "../fusion/rrf";
import type { Benchmark, Retriever, Run } from "../types";

export interface ReproduceOptions {
  /** Output root; results go to `<outRoot>/<dataset>/`. */
  outRoot: string;
  /** Experiment ids to run (default: all). */
  only?: string[];
  log?: (message: string) => void;
  experiments?: readonly Experiment[];
}

export interface ExperimentOutcome {
  id: string;
  title: string;
  section: string;
  status: "ok" | "skipped" | "failed";
  reason?: string;
  seconds?: number;
  mean?: MetricValues;
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
  const runs = sharedRuns(bench, log);
  const outcomes: ExperimentOutcome[] = [];
  const perQueryRows: unknown[][] = [];
  for (const [i, exp] of selected.entries()) {
    const base = { id: exp.id, title: exp.title, section: exp.section };
    log(`[${i + 1}/${selected.length}] ${exp.id} …`);
    const t0 = performance.now();
    try {
      const { run, details } = await exp.run({ loaded, log, run: runs.run });
      const seconds = (performance.now() - t0) / 1000;
      await writeTrec(path.join(outDir, "runs", `${exp.id}.trec`), run, exp.id);
      await writeJsonRun(path.join(outDir, "runs", `${exp.id}.json`), run);
      const { mean, perQuery } = evaluate(run.rankings, bench.qrels);
      for (const [qid, m] of perQuery) perQueryRows.push([exp.id, qid, bench.meta.get(qid)?.area ?? "", ...METRICS.map((k) => m[k])]);
      outcomes.push({ ...base, status: "ok", seconds, mean, details });
      log(`[${i + 1}/${selected.length}] ${exp.id}: Recall@100 ${formatFixed(mean["Recall@100"], 4)} in ${seconds.toFixed(1)} s`);
    } catch (err) {
      const skipped = isUnavailable(err);
      const reason = (err as Error).message;
      outcomes.push({ ...base, status: skipped ? "skipped" : "failed", reason });
      log(`[${i + 1}/${selected.length}] ${exp.id}: ${skipped ? "skipped" : "FAILED"}: ${reason}`);
    }
  }

  const summaryRows = outcomes.map((o) => [o.id, o.section, o.status, ...METRICS.map((m) => o.mean?.[m] ?? ""), o.seconds ?? "", o.reason ?? ""]);
  await fs.writeFile(path.join(outDir, "summary.csv"), toCsv(["experiment", "section", "status", ...METRICS, "seconds", "reason"], summaryRows));
  await fs.writeFile(path.join(outDir, "per-query.csv"), toCsv(["experiment", "query", "area", ...METRICS], perQueryRows));
  const t1 = datasetStats(bench);
  const t6 = areaStats(bench);
  await fs.writeFile(path.join(outDir, "table1.csv"), toCsv(Object.keys(t1), [Object.values(t1)]));
  const t6Columns = ["area", "queries", "goldArticles", "relevantPerQuery", "medianGoldWords"] as const;
  await fs.writeFile(path.join(outDir, "table6.csv"), toCsv([...t6Columns], t6.map((r) => t6Columns.map((c) => r[c]))));
  await writeTrecQrels(path.join(outDir, "qrels.txt"), bench.qrels);
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
  summaryText += `\nWritten to ${outDir}/ (runs/, summary.csv, per-query.csv, table1.csv, table6.csv, qrels.txt, metadata.json)\n`;
  return { outDir, outcomes, summaryText };
}

/** Resources that are simply not here (offline tables, unconfigured providers): skip, not fail. */
function isUnavailable(err: unknown): boolean {
  return (
    err instanceof SkipExperiment ||
    (err instanceof DownloadError && err.code === "OFFLINE") ||
    (err instanceof EmbeddingError && err.code === "NOT_CONFIGURED")
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
 * Memoised retrievers and runs for one reproduce: each retriever is built (indexed, embedded,
 * fitted) once, each run computed once, and composites reuse their parts. A failure is
 * memoised too, so every experiment that depends on an unavailable retriever reports the same
 * reason without retrying it.
 */
function sharedRuns(bench: Benchmark, log: (m: string) => void) {
  const retrievers = new Map<string, Promise<Retriever>>();
  const runs = new Map<string, Promise<Run>>();
  const retriever = (name: string): Promise<Retriever> => {
    let r = retrievers.get(name);
    if (!r) retrievers.set(name, (r = createRetriever(name, bench, { log })));
    return r;
  };
  const run = (name: string): Promise<Run> => {
    let r = runs.get(name);
    if (r) return r;
    if (name.startsWith("rrf:")) {
      const parts = name.slice(4).split("+");
      r = Promise.all(parts.map(run)).then((rs) => rrf(rs));
    } else if (name.startsWith("prf:")) {
      r = retriever(name.slice(4)).then((inner) => {
        if (!supportsFeedback(inner)) throw new Error(`'${inner.name}' has no pseudo-relevance feedback`);
        return inner.retrieveWithFeedback(bench.queries, 100);
      });
    } else {
      r = retriever(name).then((x) => x.retrieve(bench.queries, 100));
    }
    runs.set(name, r);
    return r;
  };
  return { run };
}
