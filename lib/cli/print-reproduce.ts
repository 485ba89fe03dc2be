/** What `gbr reproduce` prints when done: tables, results, what did not run (by reason), where the files are. */
import path from "node:path";
import type { LoadedBenchmark } from "../data/source";
import { METRICS } from "../eval/metrics";
import type { ExperimentOutcome, ReproduceResult } from "../experiments/reproduce";
import { statusNow } from "../experiments/assess";
import { formatFixed } from "../util/format-fixed";
import { formatTable } from "../util/text-table";
import { printable } from "../util/printable";
import { renderPaperTable, type PaperFormat } from "../eval/results-table";
import { resultsTable } from "../experiments/results-table";
import { notEvaluatedNote, unjudgedQueries } from "../types";

/** The summary; with a paper format its results table is tables.tex's or tables.md's, the rest unchanged. */
export function formatReproduceSummary(loaded: LoadedBenchmark, result: ReproduceResult, opts: { format?: "text" | PaperFormat } = {}): string {
  const bench = loaded.benchmark;
  const ok = result.outcomes.filter((o) => o.status === "ok");
  const count = (status: string) => result.outcomes.filter((o) => statusNow(o) === status).length;
  const [ran, skipped, failed] = [count("ok"), count("skipped"), count("failed")];
  const kept = result.outcomes.filter((o) => o.earlier).length;
  const standIn = ok.some((o) => o.standIn) ? `NOTE: rows marked [stand-in] ${STAND_IN_NOTE}\n` : "";
  const notes = datasetStatus(loaded) + standIn;
  const name = (o: ExperimentOutcome) => `${o.id}${o.standIn ? " [stand-in]" : ""}${o.earlier ? " [earlier]" : ""}`;
  const format = opts.format ?? "text";
  const unjudged = unjudgedQueries(bench).length;
  // The paper table carries its own notes (oracle, stand-in) and caption.
  const results =
    format === "text"
      ? formatTable(["experiment", ...METRICS, "seconds"], ok.map((o) => [name(o), ...METRICS.map((m) => formatFixed(o.mean![m], 4)), o.seconds!.toFixed(2)])) +
        (ok.some((o) => o.id.startsWith("oracle:")) ? "oracle: rows are tuned for Recall@100 on the test queries: an upper bound for Recall@100 only; cite the tuned: rows (5-fold cross-validated).\n" : "")
      : ok.length
        ? `\n${renderPaperTable(resultsTable(loaded, result.assessment), format)}`
        : "(no experiment ran: no table)\n";
  return (
    `Results — ${bench.name} (${bench.queries.length} queries, ${bench.docs.length} articles; the paper's Tables 1 and 6 of them: table1.csv, table6.csv)\n` +
    (unjudged ? `${notEvaluatedNote(unjudged)} (searched, in the run files; the metrics are over the other ${bench.queries.length - unjudged})\n` : "") +
    results +
    (ok.some((o) => o.earlier) ? `[earlier]: kept from an earlier run into ${result.outDir} (not run this time); summary.csv's ranAt says when each row ran.\n` : "") +
    formatNotRun(result.outcomes) +
    `\n${notes || `Dataset: ${bench.name} (${loaded.origin}).\n`}` +
    `Written to ${result.outDir}/: ${result.files.join(", ")}\n` +
    `${ran} ran, ${skipped} skipped, ${failed} failed${kept ? `; ${kept} kept from an earlier run (--replace starts the folder again)` : ""}` +
    `${failed ? " (see the reasons above; the exit code is 1)" : ""}.\n` +
    `Next: npx gbr report --out ${path.dirname(result.outDir)} (one HTML page with every table and figure), or open ${path.join(result.outDir, "summary.csv")}.\n`
  );
}

const STAND_IN_NOTE = "came from the project's own test doubles (local stand-ins for the model servers): they show the mechanics, not retrieval quality.";

/** What the numbers are on, when that needs saying: the demo set standing in for the benchmark. */
function datasetStatus(loaded: LoadedBenchmark): string {
  if (loaded.fallback) return `NOTE: the benchmark could not be loaded from the Hugging Face Hub; these numbers are on the bundled demo set, not the benchmark.\n`;
  if (loaded.origin === "sample") return `NOTE: these numbers are on the bundled demo set (made up for testing), not the benchmark.\n`;
  return "";
}

/** Experiments that did not run, grouped by reason so that nine presets without a server take one paragraph. */
function formatNotRun(outcomes: readonly ExperimentOutcome[]): string {
  const notRun = outcomes.filter((o) => o.status !== "ok" || o.now);
  if (notRun.length === 0) return "";
  // One line per reason, with the setting that enables them; summary.csv lists every experiment.
  const groups = new Map<string, string[]>();
  for (const o of notRun) {
    const key = o.now ? `${o.now.status} now (the earlier result is kept): ${o.now.reason}` : `${o.status}: ${o.brief ?? o.reason}`;
    groups.set(key, [...(groups.get(key) ?? []), o.id]);
  }
  const parts = [...groups].map(([why, ids]) => `  ${printable(`${someOf(ids)} — ${why}`)}`);
  return `\nNot run (${notRun.length}):\n${parts.join("\n")}\n`;
}

/** The first ids of a list, as many as fit in about 70 characters (at least one), and how many more. */
function someOf(ids: readonly string[]): string {
  let n = 1;
  while (n < ids.length && ids.slice(0, n + 1).join(", ").length <= 70) n++;
  return ids.slice(0, n).join(", ") + (n < ids.length ? ` and ${ids.length - n} more` : "");
}
