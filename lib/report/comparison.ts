/** The `gbr compare` text: a ranx-style table with superscripts for significant wins, a legend, the tests. */
import type { Metric, MetricValues } from "../eval/metrics";
import type { Comparison } from "../eval/compare-runs";
import { formatFixed } from "./format";
import { formatTable } from "./text-table";

/** ranx's superscript alphabet; Unicode has no superscript q, so q is skipped in labels too. */
const LETTERS = "abcdefghijklmnoprstuvwxyz";
const SUPERSCRIPTS = "ᵃᵇᶜᵈᵉᶠᵍʰⁱʲᵏˡᵐⁿᵒᵖʳˢᵗᵘᵛʷˣʸᶻ";

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
  const ascii = runs.length > LETTERS.length;
  const label = (i: number) => (ascii ? spreadsheetLabel(i) : LETTERS[i]);
  const index = new Map(runs.map((r, i) => [r.name, i]));
  // beats[winner][metric] = indices of the runs it beats significantly on that metric
  const beats = runs.map(() => new Map<Metric, number[]>());
  for (const t of comparison.tests) {
    if (!(t.pHolm < alpha) || t.delta === 0) continue;
    const [w, l] = t.delta > 0 ? [t.a, t.b] : [t.b, t.a];
    const wi = index.get(w);
    const li = index.get(l);
    if (wi === undefined || li === undefined) continue;
    const list = beats[wi].get(t.metric) ?? [];
    list.push(li);
    beats[wi].set(t.metric, list);
  }
  const marks = (lost: number[] | undefined) => {
    if (!lost?.length) return "";
    const sorted = [...new Set(lost)].sort((x, y) => x - y);
    return ascii ? ` [${sorted.map(label).join(",")}]` : sorted.map((i) => SUPERSCRIPTS[i]).join("");
  };
  const rows = runs.map((r, i) => [label(i), r.name, ...metrics.map((m) => formatFixed(r.mean[m], 4) + marks(beats[i].get(m)))]);
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

/** a … z, aa, ab … (q included: these labels are never superscripted). */
function spreadsheetLabel(i: number): string {
  let s = "";
  for (let k = i + 1; k > 0; k = Math.floor((k - 1) / 26)) s = String.fromCharCode(97 + ((k - 1) % 26)) + s;
  return s;
}
