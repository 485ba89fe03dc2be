/**
 * Plotly figure specs for the report and the notebooks: pure functions from rows (as read back
 * from the CSV/JSON files `gbr reproduce` and `gbr compare` write) to `{ data, layout }`
 * objects in plotly.js 3 conventions (`layout.title` is `{ text }`, never a bare string). No
 * DOM, no plotly import: the specs are plain JSON, drawn in a page with
 * `Plotly.newPlot(div, fig.data, fig.layout)` or shown in JupyterLab as
 * `application/vnd.plotly.v1+json`.
 *
 * Rows are accepted loosely (`Record<string, unknown>`): the string records of lib/report/csv.ts,
 * dataframe rows, or hand-made objects with numbers all work; an empty cell means "no value".
 */
import { formatFixed } from "./format";
import type { Metric } from "../eval/metrics";
import { toNumber } from "./csv";

/** A row of any of our tables, keyed by column name. */
export type RowLike = Readonly<Record<string, unknown>>;
/** One plotly trace (plain JSON). */
export type Trace = Record<string, unknown>;
/** A plotly layout; the title is always the plotly.js 3 object form. */
export interface Layout {
  title: { text: string; [key: string]: unknown };
  [key: string]: unknown;
}
/** A plotly figure spec. */
export interface Figure {
  data: Trace[];
  layout: Layout;
}

const FONT = { family: "system-ui, -apple-system, 'Segoe UI', Roboto, 'Noto Sans', Arial, sans-serif", size: 13 };
const fmt4 = (x: number): string => formatFixed(x, 4);

function baseLayout(title: string, extra: Record<string, unknown> = {}): Layout {
  return {
    title: { text: title, x: 0, xref: "container", xanchor: "left", pad: { l: 14 }, font: { size: 16 } },
    font: FONT,
    paper_bgcolor: "white",
    plot_bgcolor: "white",
    margin: { l: 60, r: 30, t: 60, b: 60 },
    ...extra,
  };
}

function axis(title: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { title: { text: title }, automargin: true, gridcolor: "#e5e7eb", zerolinecolor: "#9ca3af", ...extra };
}

// ---------------------------------------------------------------------------------------------
// Results

/**
 * Horizontal bars of one metric per experiment (experiments that ran, in the rows' order,
 * top to bottom), labelled with the value to 4 decimals, with ± sd error bars when any
 * experiment was run more than once (`samples` > 1 and an `sd <metric>` column; those bars
 * form a second trace, the only one with `error_x`).
 *
 * @example
 * const fig = metricBarChart(await readCsv("outputs/sample/summary.csv"), "Recall@100");
 * fig.data[0].y; // ["bm25-greekstemmer", "bm25-grnlp", …]
 * Plotly.newPlot(div, fig.data, fig.layout);
 */
export function metricBarChart(summaryRows: readonly RowLike[], metric: Metric = "Recall@100"): Figure {
  const rows = summaryRows.filter((r) => (r.status === undefined || r.status === "ok") && toNumber(r[metric]) !== undefined);
  const names = rows.map((r) => plotlyText(String(r.experiment ?? "")));
  const values = rows.map((r) => toNumber(r[metric])!);
  const sds = rows.map((r) => ((toNumber(r.samples) ?? 1) > 1 ? toNumber(r[`sd ${metric}`]) : undefined));
  const hasSd = sds.some((s) => s !== undefined);
  // Repeated experiments get their own trace with error bars: plotly draws a cap even for a
  // null or zero error, so single-sample bars stay in a trace without error_x. Both traces
  // share the category axis (overlay: one bar per row, in the rows' order).
  const bars = (idx: number[], withSd: boolean): Trace => {
    const trace: Trace = {
      type: "bar",
      orientation: "h",
      name: withSd ? `${metric} (mean ± sd)` : metric,
      y: idx.map((i) => names[i]),
      x: idx.map((i) => values[i]),
      text: idx.map((i) => (withSd ? `${fmt4(values[i])} ± ${fmt4(sds[i]!)}` : fmt4(values[i]))),
      textposition: "inside",
      // The whisker sits at the bar's end: keep the label at the other end.
      insidetextanchor: withSd ? "start" : "end",
      textfont: { color: "white" },
      marker: { color: withSd ? "#1e40af" : "#2563eb" },
      hovertemplate: `%{y}<br>${metric} %{x:.4f}${withSd ? " ± %{error_x.array:.4f}" : ""}<extra></extra>`,
    };
    if (withSd) trace.error_x = { type: "data", array: idx.map((i) => sds[i]!), visible: true, color: "#111827", thickness: 1.5, width: 6 };
    return trace;
  };
  const all = names.map((_, i) => i);
  const data = hasSd ? [bars(all.filter((i) => sds[i] === undefined), false), bars(all.filter((i) => sds[i] !== undefined), true)] : [bars(all, false)];
  const top = Math.max(1, ...values.map((v, i) => v + (sds[i] ?? 0)));
  return {
    data,
    layout: baseLayout(`${metric} by experiment${hasSd ? " (mean ± sd over samples)" : ""}`, {
      barmode: "overlay",
      xaxis: axis(metric, { range: [0, top * 1.02] }),
      yaxis: axis("", { autorange: "reversed", type: "category", categoryorder: "array", categoryarray: names, ticks: "outside", ticklen: 6, tickcolor: "rgba(0,0,0,0)" }),
      height: 120 + 26 * Math.max(1, names.length),
      showlegend: false,
      margin: { l: 20, r: 30, t: 50, b: 50 },
    }),
  };
}

/**
 * Grouped bars: the mean of `metric` per legal area (x, with its number of queries), one bar
 * per experiment. Per-query rows of every sample are averaged together. `experiments` picks
 * and orders the bars (default: every experiment in the rows, in order of appearance).
 *
 * @example
 * const perQuery = await readCsv("outputs/sample/per-query.csv");
 * const fig = areaBreakdownChart(perQuery, ["bm25-greekstemmer", "lsi"], "Recall@100");
 * fig.data.length; // 2 (one trace per experiment)
 */
export function areaBreakdownChart(perQueryRows: readonly RowLike[], experiments?: readonly string[], metric: Metric = "Recall@100"): Figure {
  const areaOf = (r: RowLike) => String(r.area ?? "").trim() || "(no area)";
  const chosen = experiments && experiments.length ? [...experiments] : [...new Set(perQueryRows.map((r) => String(r.experiment ?? "")))];
  const areas = [...new Set(perQueryRows.map(areaOf))].sort((a, b) => a.localeCompare(b));
  const queriesPerArea = new Map<string, Set<string>>();
  for (const r of perQueryRows) {
    const a = areaOf(r);
    if (!queriesPerArea.has(a)) queriesPerArea.set(a, new Set());
    queriesPerArea.get(a)!.add(String(r.query ?? ""));
  }
  const labels = areas.map((a) => plotlyText(`${a} (${queriesPerArea.get(a)?.size ?? 0})`));
  const sums = new Map<string, { sum: number; n: number }>();
  for (const r of perQueryRows) {
    const v = toNumber(r[metric]);
    if (v === undefined) continue;
    const key = `${String(r.experiment ?? "")}\u0000${areaOf(r)}`;
    const s = sums.get(key) ?? { sum: 0, n: 0 };
    s.sum += v;
    s.n++;
    sums.set(key, s);
  }
  const data: Trace[] = chosen.map((exp) => ({
    type: "bar",
    name: plotlyText(exp),
    x: labels,
    y: areas.map((a) => {
      const s = sums.get(`${exp}\u0000${a}`);
      return s && s.n ? s.sum / s.n : null;
    }),
    hovertemplate: `${plotlyText(exp)}<br>%{x}<br>${metric} %{y:.4f}<extra></extra>`,
  }));
  return {
    data,
    layout: baseLayout(`${metric} by legal area (queries per area in brackets)`, {
      barmode: "group",
      xaxis: axis("legal area"),
      yaxis: axis(`mean ${metric}`, { range: [0, 1.02] }),
      legend: { orientation: "h", x: 0, xanchor: "left", y: -0.22, yanchor: "top" },
      height: 460 + 22 * Math.ceil(chosen.length / 3),
      margin: { l: 60, r: 30, t: 60, b: 40 },
    }),
  };
}

// ---------------------------------------------------------------------------------------------
// BM25 sweep

/** A setting of the sweep and its value. */
export interface SweepPoint {
  k1: number;
  b: number;
  value: number;
}

/** The sweep as written to sweep.json: z rows by b, columns by k1 (null where no setting). */
export interface SweepJson {
  k1s: readonly number[];
  bs: readonly number[];
  z: readonly (readonly (number | null)[])[];
  metric?: string;
  best?: SweepPoint;
  default?: SweepPoint;
  cv?: unknown;
}

/**
 * Heatmap of the BM25 tuning sweep (x = k1, y = b, colour = mean metric; the axes are
 * categorical because the grids are not evenly spaced: 1.5 and 0.75 sit between grid steps),
 * with the best setting (star) and rank_bm25's default (cross) marked.
 *
 * @example
 * const sweep = JSON.parse(await fs.readFile("outputs/sample/sweep.json", "utf8"));
 * const fig = sweepHeatmap(sweep);
 * fig.data[0].type; // "heatmap"
 */
export function sweepHeatmap(sweep: SweepJson): Figure {
  const metric = sweep.metric ?? "Recall@100";
  const label = (v: number) => String(v);
  const data: Trace[] = [
    {
      type: "heatmap",
      name: metric,
      x: sweep.k1s.map(label),
      y: sweep.bs.map(label),
      z: sweep.z.map((row) => row.map((v) => (typeof v === "number" && Number.isFinite(v) ? v : null))),
      colorscale: "Viridis",
      colorbar: { title: { text: metric }, thickness: 14 },
      hovertemplate: `k1 %{x}<br>b %{y}<br>${metric} %{z:.4f}<extra></extra>`,
    },
  ];
  const mark = (p: SweepPoint | undefined, name: string, symbol: string) => {
    if (!p) return;
    data.push({
      type: "scatter",
      mode: "markers",
      name: `${name}: k1 ${p.k1}, b ${p.b} (${fmt4(p.value)})`,
      x: [label(p.k1)],
      y: [label(p.b)],
      marker: { symbol, size: 14, color: "white", line: { color: "black", width: 2 } },
      hovertemplate: `${name}<br>k1 %{x}, b %{y}<br>${metric} ${fmt4(p.value)}<extra></extra>`,
    });
  };
  mark(sweep.best, "best", "star");
  mark(sweep.default, "default", "x");
  return {
    data,
    layout: baseLayout(`BM25 sweep: mean ${metric} over k1 × b`, {
      xaxis: axis("k1", { type: "category" }),
      yaxis: axis("b", { type: "category" }),
      legend: { orientation: "h", x: 0, xanchor: "left", y: -0.18, yanchor: "top" },
      height: 520,
    }),
  };
}

// ---------------------------------------------------------------------------------------------
// REACT rounds

/**
 * REACT-BM25 by round: Recall@100 of the observer-kept ranking against candidate-pool recall
 * (gold found anywhere among the candidates retrieved so far), the gap being what the observer
 * dropped. Rows as in react-rounds.csv.
 *
 * @example
 * const fig = reactRoundsChart([
 *   { round: 1, keptRecall100: 0.45, candidateRecall100: 0.59 },
 *   { round: 10, keptRecall100: 0.67, candidateRecall100: 0.77 },
 * ]);
 * fig.data.map((t) => t.name); // ["observer-kept Recall@100", "candidate-pool recall"]
 */
export function reactRoundsChart(rows: readonly RowLike[]): Figure {
  const sorted = rows
    .map((r) => ({ round: toNumber(r.round), kept: toNumber(r.keptRecall100), pool: toNumber(r.candidateRecall100) }))
    .filter((r): r is { round: number; kept: number | undefined; pool: number | undefined } => r.round !== undefined)
    .sort((a, b) => a.round - b.round);
  const rounds = sorted.map((r) => r.round);
  const line = (name: string, ys: (number | undefined)[], color: string, dash: string): Trace => ({
    type: "scatter",
    mode: "lines+markers",
    name,
    x: rounds,
    y: ys.map((v) => (v === undefined ? null : v)),
    line: { color, dash, width: 2.5 },
    marker: { size: 8, color },
    hovertemplate: `round %{x}<br>${name} %{y:.4f}<extra></extra>`,
  });
  return {
    data: [
      line("observer-kept Recall@100", sorted.map((r) => r.kept), "#2563eb", "solid"),
      line("candidate-pool recall", sorted.map((r) => r.pool), "#d97706", "dash"),
    ],
    layout: baseLayout("REACT-BM25: observer-kept vs candidate-pool recall by round", {
      xaxis: axis("round", { tickmode: "array", tickvals: rounds }),
      yaxis: axis("recall", { range: [0, 1.02] }),
      legend: TOP_LEGEND,
      height: 420,
      margin: { l: 60, r: 30, t: 90, b: 60 },
    }),
  };
}

// ---------------------------------------------------------------------------------------------
// Quality vs cost

/** A method placed by cost (to minimise) and quality (to maximise). */
export interface QualityCostPoint {
  name: string;
  cost: number;
  quality: number;
}

/**
 * The Pareto front: the points no other point dominates (costs no more and scores no less,
 * and is strictly better in one of the two), sorted by cost, then quality, ascending. Equal
 * points are all kept.
 *
 * @example
 * paretoFront([
 *   { name: "bm25", cost: 0, quality: 0.36 },
 *   { name: "reform-bm25", cost: 0.002, quality: 0.6 },
 *   { name: "worse", cost: 0.003, quality: 0.5 },
 * ]).map((p) => p.name); // ["bm25", "reform-bm25"]
 */
export function paretoFront<P extends QualityCostPoint>(points: readonly P[]): P[] {
  const dominated = (p: P) =>
    points.some((q) => q.cost <= p.cost && q.quality >= p.quality && (q.cost < p.cost || q.quality > p.quality));
  return points.filter((p) => !dominated(p)).sort((a, b) => a.cost - b.cost || a.quality - b.quality);
}

/**
 * Quality (mean `quality` metric, Recall@100 or nDCG@10, from summary rows) against
 * API-equivalent cost per query (cost.csv's `costPerQuery`, joined on experiment = method),
 * one marker per method, with the Pareto front (maximise quality, minimise cost) drawn as a
 * dashed line through its labelled members. Methods missing from either table are left out.
 *
 * @example
 * const fig = qualityCostScatter(summaryRows, costRows, "Recall@100");
 * fig.data.at(-1)!.name; // "Pareto front"
 */
export function qualityCostScatter(summaryRows: readonly RowLike[], costRows: readonly RowLike[], quality: "Recall@100" | "nDCG@10" = "Recall@100"): Figure {
  const cost = new Map<string, number>();
  for (const r of costRows) {
    const c = toNumber(r.costPerQuery);
    if (c !== undefined) cost.set(String(r.method ?? ""), c);
  }
  const points: (QualityCostPoint & { seconds?: number })[] = [];
  for (const r of summaryRows) {
    if (r.status !== undefined && r.status !== "ok") continue;
    const name = String(r.experiment ?? "");
    const q = toNumber(r[quality]);
    const c = cost.get(name);
    if (q === undefined || c === undefined) continue;
    points.push({ name, cost: c, quality: q });
  }
  const front = paretoFront(points);
  const onFront = new Set(front.map((p) => p.name));
  const data: Trace[] = points.map((p) => ({
    type: "scatter",
    mode: "markers",
    name: plotlyText(p.name),
    x: [p.cost],
    y: [p.quality],
    marker: { size: 11, symbol: onFront.has(p.name) ? "circle" : "circle-open", line: { width: 2 } },
    hovertemplate: `${plotlyText(p.name)}<br>cost/query $%{x:.6f}<br>${quality} %{y:.4f}<extra></extra>`,
  }));
  // Methods at the same spot on the front share one label (one name per line) instead of
  // printing their names over each other.
  const spots: { cost: number; quality: number; names: string[] }[] = [];
  for (const p of front) {
    const last = spots[spots.length - 1];
    if (last && last.cost === p.cost && last.quality === p.quality) last.names.push(p.name);
    else spots.push({ cost: p.cost, quality: p.quality, names: [p.name] });
  }
  data.push({
    type: "scatter",
    mode: "lines+text",
    name: "Pareto front",
    x: spots.map((p) => p.cost),
    y: spots.map((p) => p.quality),
    // En spaces keep each line of the label clear of its marker.
    text: spots.map((p) => p.names.map((n) => `\u2002\u2002${plotlyText(n)}`).join("<br>")),
    textposition: "middle right",
    cliponaxis: false,
    line: { color: "#111827", dash: "dash", width: 1.5, shape: "hv" },
    hoverinfo: "skip",
  });
  const maxCost = Math.max(0, ...points.map((p) => p.cost));
  const layout = baseLayout(`${quality} vs API-equivalent cost per query (Pareto front dashed)`, {
    xaxis: axis("cost per query (USD)", { range: maxCost > 0 ? [-0.04 * maxCost, 1.12 * maxCost] : [-0.001, 0.01] }),
    yaxis: axis(quality, { range: [0, 1.08] }),
    legend: { orientation: "h", x: 0, xanchor: "left", y: -0.2, yanchor: "top" },
    height: 480 + 22 * Math.ceil(points.length / 3),
  });
  if (points.length && maxCost === 0) {
    layout.annotations = [
      { text: "every method here costs nothing per query (local models only)", xref: "paper", yref: "paper", x: 1, y: 0.02, xanchor: "right", showarrow: false, font: { color: "#6b7280" } },
    ];
  }
  return { data, layout };
}

// ---------------------------------------------------------------------------------------------
// Significance

/** One paired test as `gbr compare --json` prints it. */
export interface SignificanceTest {
  a: string;
  b: string;
  metric: string;
  meanA?: number;
  meanB?: number;
  delta?: number;
  p: number;
  pHolm: number;
}

/**
 * p-values of paired randomization tests before and after Holm correction, on a log scale,
 * one row per test ("A vs B (metric)"), with the 0.05 level drawn as a dashed line. `title`
 * (plotly text, see `plotlyText`) says which family the tests are, when there are several.
 *
 * @example
 * const { tests } = JSON.parse(await fs.readFile("saved-compare.json", "utf8")); // gbr compare --json
 * const fig = pValueChart(tests);
 * (fig.layout.xaxis as { type: string }).type; // "log"
 * const sig = JSON.parse(await fs.readFile("outputs/sample/significance.json", "utf8")); // gbr reproduce
 * pValueChart(sig.paper.tests.filter((t) => t.status === "computed"), 0.05, "The paper's tests");
 */
export function pValueChart(tests: readonly SignificanceTest[], alpha = 0.05, title = "Paired randomization tests: p before and after Holm correction"): Figure {
  const seen = new Map<string, number>();
  const labels = tests.map((t) => {
    const base = `${t.a} vs ${t.b} (${t.metric})`;
    const n = (seen.get(base) ?? 0) + 1;
    seen.set(base, n);
    return plotlyText(n === 1 ? base : `${base} #${n}`);
  });
  const ps = tests.map((t) => Number(t.p));
  const holm = tests.map((t) => Number(t.pHolm));
  const finite = [...ps, ...holm].filter((v) => Number.isFinite(v) && v > 0);
  const lo = Math.min(alpha, 1e-3, ...finite);
  const marker = (name: string, xs: number[], symbol: string, color: string): Trace => ({
    type: "scatter",
    mode: "markers",
    name,
    x: xs,
    y: labels,
    marker: { symbol, size: 10, color },
    hovertemplate: `%{y}<br>${name} %{x:.5f}<extra></extra>`,
  });
  return {
    data: [marker("p (uncorrected)", ps, "circle", "#2563eb"), marker("p (Holm)", holm, "diamond", "#dc2626")],
    layout: baseLayout(title, {
      xaxis: axis("p-value (log scale)", { type: "log", range: [Math.log10(lo) - 0.3, 0.05] }),
      yaxis: axis("", { autorange: "reversed", type: "category", ticks: "outside", ticklen: 6, tickcolor: "rgba(0,0,0,0)" }),
      // On a log axis, shape coordinates are data values (annotations would want log10).
      shapes: [
        { type: "line", name: `α = ${alpha}`, showlegend: true, xref: "x", yref: "paper", x0: alpha, x1: alpha, y0: 0, y1: 1, line: { color: "#6b7280", dash: "dash", width: 1.5 } },
      ],
      legend: TOP_LEGEND,
      height: 190 + 30 * Math.max(1, labels.length),
      margin: { l: 20, r: 30, t: 90, b: 60 },
    }),
  };
}

/** A legend of a few entries, top right above the plot area (clear of axis titles). */
const TOP_LEGEND = { orientation: "h", x: 1, xanchor: "right", y: 1.02, yanchor: "bottom" };

/**
 * Text for plotly's own text fields (trace names, category labels, point labels, hover
 * templates). Plotly reads them as pseudo-HTML (`<br>`, `<b>`, entities) and hover templates
 * also expand `%{…}`; an experiment named `a<b>` or `x%{y}` must show as written, so `&`, `<`,
 * `>` become entities (which plotly decodes for display) and `%{` is broken up.
 *
 * @example
 * plotlyText("rrf:a+b <test>"); // "rrf:a+b &lt;test&gt;"
 */
export function plotlyText(s: string): string {
  return s.replace(/[&<>]/g, (c) => (c === "&" ? "&amp;" : c === "<" ? "&lt;" : "&gt;")).replace(/%\{/g, "%&#123;");
}
