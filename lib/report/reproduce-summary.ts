/**
 * What `gbr reproduce` prints when it is done: the dataset's tables, the results of the
 * experiments that ran, those that did not (grouped by reason) and where the files are.
 */
import type { LoadedBenchmark } from "../data/source";
import { METRICS } from "../eval/metrics";
import type { ExperimentOutcome, ReproduceResult } from "../experiments/reproduce";
import { formatFixed } from "./format";
import { formatStats } from "./stats-text";
import { formatTable } from "./text-table";

/**
 * The text summary of a reproduce.
 *
 * @example
 * io.stdout(formatReproduceSummary(loaded, await reproduce(loaded, { outRoot: "outputs" })));
 */
export function formatReproduceSummary(loaded: LoadedBenchmark, result: ReproduceResult): string {
  const bench = loaded.benchmark;
  const { table1, table6 } = result.assessment;
  const ok = result.outcomes.filter((o) => o.status === "ok");
  return (
    (loaded.fallback ? `NOTE: the benchmark could not be loaded from the Hugging Face Hub; these numbers are on the bundled demo set, not the benchmark.\n\n` : "") +
    formatStats(bench.name, table1, table6) +
    `\nResults — ${bench.name} (${bench.queries.length} queries)\n` +
    formatTable(["experiment", ...METRICS, "seconds"], ok.map((o) => [o.id, ...METRICS.map((m) => formatFixed(o.mean![m], 4)), o.seconds!.toFixed(2)])) +
    formatNotRun(result.outcomes) +
    `\nWritten to ${result.outDir}/ (runs/, summary.csv, per-query.csv, table1.csv, table6.csv, qrels.txt, reproduction.csv, metadata.json)\n`
  );
}

/**
 * Experiments that did not run, grouped by reason so that nine presets without a server take
 * one paragraph, not nine.
 */
function formatNotRun(outcomes: readonly ExperimentOutcome[]): string {
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
