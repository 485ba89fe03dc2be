/** The `gbr compare` text: a ranx-style table with superscripts for significant wins, a legend, the tests. */
import type { Metric, MetricValues } from "../eval/metrics";
import type { Comparison } from "../eval/compare-runs";
import { ADJUSTED_P, correct, CORRECTION_NAMES, TEST_NAMES, type Correction, type PairedTestName } from "../eval/paired-tests";
import { formatFixed } from "../util/format-fixed";
import { formatTable } from "../util/text-table";
import { comparisonPaperTable, renderText } from "../eval/results-table";

/** How `compareRuns` drew its flips, in words (the comparison's record of its stream and order). */
export function streamNote(seed: number | bigint, tests: number): string {
  return `Flips: numpy default_rng(${seed}), one stream for the ${tests} tests in the order listed (pairs as given, each pair's metrics as given), queries in qrels order.`;
}

/** Runs labelled a, b, c …, each value followed by the runs it beats (corrected p < 0.05); past 25 runs, in brackets. */
export function formatComparison(
  runs: readonly { name: string; mean: MetricValues }[],
  comparison: Comparison,
  metrics: readonly Metric[],
  opts: { swaps: number; seed: number | bigint; queries: number; test?: PairedTestName; correction?: Correction },
): string {
  const { swaps, seed, queries, test = "randomization", correction = "holm" } = opts;
  const table = comparisonPaperTable(runs, comparison, metrics, opts);
  const pDigits = test === "randomization" ? Math.max(4, Math.ceil(Math.log10(swaps + 1))) : 5;
  const flips = test === "randomization" ? `${swaps.toLocaleString("en-US")} random sign flips, seed ${seed}, ` : "";
  const key = ADJUSTED_P[correction];
  const over = key ? `${CORRECTION_NAMES[correction]} over all ${comparison.tests.length} tests` : "no correction";
  const what = `two-sided ${TEST_NAMES[test]}, ${flips}${queries} queries, ${over}`;
  const below = key ? `p_${key.slice(1)} < 0.05` : "p < 0.05";
  const legend = runs.length > 25
    ? `[x,y]: significantly better than runs x and y (${what}; ${below}).`
    : `Superscripts: significantly better than the run with that label (${what}; ${below}).`;
  const adjusted = correct(comparison.tests.map((t) => t.p), correction);
  const testRows = comparison.tests.map((t, i) => [t.a, t.b, t.metric, formatFixed(t.delta, 4), ...[t.p, ...(key ? [adjusted[i]] : [])].map((p) => formatFixed(p, pDigits))]);
  const tests = formatTable(["a", "b", "metric", "delta", "p", ...(key ? [key] : [])], testRows);
  return [renderText(table), legend, ...(test === "randomization" ? [streamNote(seed, comparison.tests.length)] : []), "", tests].join("\n");
}
