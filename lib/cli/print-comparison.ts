/** The `gbr compare` text: a ranx-style table with superscripts for significant wins, a legend, the tests. */
import type { Metric, MetricValues } from "../eval/metrics";
import type { Comparison } from "../eval/compare-runs";
import { formatFixed } from "../util/format-fixed";
import { formatTable } from "../util/text-table";
import { LETTERS, rowLabels, significanceLetters } from "../util/paper-tables";

/** Unicode superscripts of rowLabels' letters (a … z without q, which Unicode lacks). */
const SUPERSCRIPTS: Record<string, string> = Object.fromEntries([...LETTERS].map((c, i) => [c, "ᵃᵇᶜᵈᵉᶠᵍʰⁱʲᵏˡᵐⁿᵒᵖʳˢᵗᵘᵛʷˣʸᶻ"[i]]));

/** Options of `formatComparison` (swaps, seed and queries only feed the legend). */
export interface ComparisonTableOptions {
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
  const labels = rowLabels(runs.length);
  const ascii = labels.some((l) => l.length > 1);
  const letters = significanceLetters(
    runs.map((r, i) => ({ name: r.name, label: labels[i] })),
    metrics,
    runs.map((r) => metrics.map((m) => r.mean[m])),
    comparison.tests,
    alpha,
  );
  const marks = (beaten: string[]) => {
    if (!beaten.length) return "";
    return ascii ? ` [${beaten.join(",")}]` : beaten.map((l) => SUPERSCRIPTS[l]).join("");
  };
  const rows = runs.map((r, i) => [labels[i], r.name, ...metrics.map((m, j) => formatFixed(r.mean[m], 4) + marks(letters[i][j]))]);
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
    formatTable(["#", "run", ...metrics], rows),
    legend,
    streamNote(opts.seed ?? 42, comparison.tests.length),
    "",
    formatTable(["a", "b", "metric", "delta", "p", "pHolm"], testRows),
  ].join("\n");
}
