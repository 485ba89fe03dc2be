/** The paper tables of `gbr eval` and `gbr compare` (reproduce's is experiments/results-table.ts): models to render. */
import type { Metric, MetricValues } from "../eval/metrics";
import type { Comparison } from "../eval/compare-runs";
import { bestPerColumn, rowLabels, significanceLetters, type PaperTable } from "../util/paper-tables";

/** One run's mean metrics: a single row, nothing bold (one row is trivially best), no letters (nothing tested). */
export function evalPaperTable(run: { name: string; mean: MetricValues }, metrics: readonly Metric[], queries: number): PaperTable {
  return {
    rows: [{ name: run.name }],
    metrics: [...metrics],
    values: [metrics.map((m) => run.mean[m])],
    superscripts: [metrics.map(() => [])],
    best: [metrics.map(() => false)],
    caption: `Run ${run.name}: mean over ${queries} ${queries === 1 ? "query" : "queries"}.`,
    label: "tab:gbr-eval",
  };
}

/** What the caption of a comparison says about the tests (the same settings `formatComparison`'s legend states). */
export interface ComparisonCaptionOptions {
  swaps: number;
  seed: number | bigint;
  queries: number;
  /** The --pair pairs when given (else every pair of runs was tested). */
  pairs?: readonly (readonly [string, string])[];
  alpha?: number;
}

/** Runs × metrics as `formatComparison` shows them: letters a, b …, the best of each column bold, ranx superscripts. */
export function comparisonPaperTable(
  runs: readonly { name: string; mean: MetricValues }[],
  comparison: Comparison,
  metrics: readonly Metric[],
  opts: ComparisonCaptionOptions,
): PaperTable {
  const alpha = opts.alpha ?? 0.05;
  const labels = rowLabels(runs.length);
  const values = runs.map((r) => metrics.map((m) => r.mean[m]));
  const rows = runs.map((r, i) => ({ name: r.name, label: labels[i] }));
  const tested = opts.pairs?.length
    ? `the pairs given (${opts.pairs.map(([a, b]) => `${a} vs ${b}`).join(", ")})`
    : "every pair of runs";
  const caption =
    `Runs compared on ${opts.queries} queries. Bold: the best value of each column (tied values all bold). ` +
    `A superscript letter marks a value significantly higher than that of the run with that letter: two-sided paired ` +
    `randomization test (${opts.swaps.toLocaleString("en-US")} random sign flips, numpy seed ${opts.seed}) on ${tested}, ` +
    `Holm correction over all ${comparison.tests.length} tests, corrected p < ${alpha}.`;
  return {
    rows,
    metrics: [...metrics],
    values,
    superscripts: significanceLetters(rows, metrics, values, comparison.tests, alpha),
    best: bestPerColumn(values),
    caption,
    label: "tab:gbr-compare",
  };
}
