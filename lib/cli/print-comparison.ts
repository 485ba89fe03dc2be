/** The `gbr compare` text: a ranx-style table with superscripts for significant wins, a legend, the tests. */
import type { Metric, MetricValues } from "../eval/metrics";
import type { Comparison } from "../eval/compare-runs";
import { formatFixed } from "../util/format-fixed";
import { formatTable } from "../util/text-table";
import { comparisonPaperTable, renderText } from "../eval/results-table";

/** How `compareRuns` drew its flips, in words (the comparison's record of its stream and order). */
export function streamNote(seed: number | bigint, tests: number): string {
  return `Flips: numpy default_rng(${seed}), one stream for the ${tests} tests in the order listed (pairs as given, each pair's metrics as given), queries in qrels order.`;
}

/** Runs labelled a, b, c …, each value followed by the runs it beats (p_Holm < 0.05); past 25 runs, in brackets. */
export function formatComparison(
  runs: readonly { name: string; mean: MetricValues }[],
  comparison: Comparison,
  metrics: readonly Metric[],
  opts: { swaps: number; seed: number | bigint; queries: number },
): string {
  const { swaps, seed, queries } = opts;
  const table = comparisonPaperTable(runs, comparison, metrics, opts);
  const pDigits = Math.max(4, Math.ceil(Math.log10(swaps + 1)));
  const flips = `${swaps.toLocaleString("en-US")} random sign flips, seed ${seed}, ${queries} queries`;
  const what = `two-sided paired randomization test, ${flips}, Holm over all ${comparison.tests.length} tests`;
  const legend = runs.length > 25
    ? `[x,y]: significantly better than runs x and y (${what}; p_Holm < 0.05).`
    : `Superscripts: significantly better than the run with that label (${what}; p_Holm < 0.05).`;
  const testRows = comparison.tests.map((t) => [t.a, t.b, t.metric, formatFixed(t.delta, 4), formatFixed(t.p, pDigits), formatFixed(t.pHolm, pDigits)]);
  const tests = formatTable(["a", "b", "metric", "delta", "p", "pHolm"], testRows);
  return [renderText(table), legend, streamNote(seed, comparison.tests.length), "", tests].join("\n");
}
