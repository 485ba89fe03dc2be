/** The `gbr compare` text: a ranx-style table with superscripts for significant wins, a legend, the tests. */
import type { Metric, MetricValues } from "../eval/metrics";
import type { Comparison } from "../eval/compare-runs";
import { formatFixed } from "../util/format-fixed";
import { formatTable } from "../util/text-table";
import { comparisonPaperTable, renderText } from "../eval/results-table";

/** Options of `formatComparison` (swaps, seed and queries only feed the legend). */
interface ComparisonTableOptions {
  /** Family-wise level for the superscripts (default 0.05). */
  alpha?: number;
  swaps?: number;
  seed?: number | bigint;
  queries?: number;
}

/** How `compareRuns` drew its flips, in words (the comparison's record of its stream and order). */
export function streamNote(seed: number | bigint, tests: number): string {
  return `Flips: numpy default_rng(${seed}), one stream for the ${tests} tests in the order listed (pairs as given, each pair's metrics as given), queries in qrels order.`;
}

/** Runs labelled a, b, c …, each value followed by the runs it beats (p_Holm < α); past 25 runs, in brackets. */
export function formatComparison(
  runs: readonly { name: string; mean: MetricValues }[],
  comparison: Comparison,
  metrics: readonly Metric[],
  opts: ComparisonTableOptions = {},
): string {
  const alpha = opts.alpha ?? 0.05;
  const swaps = opts.swaps ?? 100_000;
  const table = comparisonPaperTable(runs, comparison, metrics, { swaps, seed: opts.seed ?? 42, queries: opts.queries ?? 0, alpha });
  const ascii = runs.length > 25;
  const pDigits = Math.max(4, Math.ceil(Math.log10(swaps + 1)));
  const what = [
    `two-sided paired randomization test, ${swaps.toLocaleString("en-US")} random sign flips`,
    opts.seed !== undefined ? `seed ${opts.seed}` : "",
    opts.queries !== undefined ? `${opts.queries} queries` : "",
    `Holm over all ${comparison.tests.length} tests`,
  ]
    .filter(Boolean)
    .join(", ");
  const legend = ascii
    ? `[x,y]: significantly better than runs x and y (${what}; p_Holm < ${alpha}).`
    : `Superscripts: significantly better than the run with that label (${what}; p_Holm < ${alpha}).`;
  const testRows = comparison.tests.map((t) => [t.a, t.b, t.metric, formatFixed(t.delta, 4), formatFixed(t.p, pDigits), formatFixed(t.pHolm, pDigits)]);
  return [
    renderText(table),
    legend,
    streamNote(opts.seed ?? 42, comparison.tests.length),
    "",
    formatTable(["a", "b", "metric", "delta", "p", "pHolm"], testRows),
  ].join("\n");
}
