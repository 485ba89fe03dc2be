/** Plotly figure specs for report and notebooks: loosely typed rows (empty cell = no value) → plotly.js 3 JSON. */
import { resolveMetric, type MetricName } from "../eval/metric-names";
import { sweepHeatmap as sweepGrid, type SweepResult } from "../eval/sweep-result";
import { correlationHeatmap, perQueryChart, perQueryCounts, perQueryScatter, rankDistributionChart, winLossChart } from "./analysis-figures";
import { toNumber } from "./csv";
import { qualityCostScatter } from "./cost-figures";
import { lengthHistograms } from "./dataset-figures";
export { plotlyText, fittedRange, type Figure, type Layout, type RowLike, type Trace } from "./figure-style";
export { costAxis, costMeasure, costText, costValue, paretoFront, qualityCostFront, qualityCostPoints, qualityCostScatter, type CostAxis, type CostMeasure, type MeasuredPoint, type QualityCostPoint } from "./cost-figures";
import { axis, baseLayout, fmt4, legendHeight, LEGEND, plotlyText, type Figure, type RowLike, type Trace } from "./figure-style";
import { areaLabel, BEYOND_LABEL, markedName, NO_AREA, ORACLE_LABEL, rowMarks, STAND_IN_LABEL, TUNED_LABEL, type RowMarks, type TuningKind } from "./labels";

/** Top of a 0-based metric axis: max + 15% (an nDCG@10 of 0.04 is a bar, not a sliver), capped at 1 but ≥ max. */
export function valueAxisTop(max: number): number {
  if (!(max > 0) || !Number.isFinite(max)) return 1;
  return Math.max(max, Math.min(1, max * 1.15));
}

/** Stand-in bars: grey and hatched, whatever kind of row they are. */
const STAND_IN_PATTERN = { shape: "/", fgcolor: "#374151", size: 7, solidity: 0.25 };

function marksOf(rows: readonly RowLike[], given: RowMarks | undefined): RowMarks {
  return given ?? rowMarks(rows);
}

/** Options of the figures that show experiments. */
export interface FigureMarks {
  /** Tuning and stand-in marks per experiment (default: read from the rows given). */
  marks?: RowMarks;
}

// Results ---------------------------------------------------------------------------------------

/** Bars of one metric per experiment that ran, ± sd when repeated; oracle, tuned and stand-in rows get own traces. */
export function metricBarChart(summaryRows: readonly RowLike[], name: MetricName = "Recall@100", opts: FigureMarks = {}): Figure {
  const metric = resolveMetric(name);
  const marks = marksOf(summaryRows, opts.marks);
  const rows = summaryRows.filter((r) => (r.status === undefined || r.status === "ok") && toNumber(r[metric]) !== undefined);
  const ids = rows.map((r) => String(r.experiment ?? ""));
  const names = ids.map((id) => plotlyText(marks.beyond(id) !== undefined ? `${id} [${BEYOND_LABEL}]` : id));
  const values = rows.map((r) => toNumber(r[metric])!);
  const sds = rows.map((r) => ((toNumber(r.samples) ?? 1) > 1 ? toNumber(r[`sd ${metric}`]) : undefined));
  const hasSd = sds.some((s) => s !== undefined);
  const kinds = ids.map((id): TuningKind | "result" => marks.tuning(id) ?? "result");
  const standIn = ids.map((id) => marks.standIn(id));
  // Repeated experiments get their own trace: plotly draws a cap even for a null or zero error.
  const bars = (idx: number[], withSd: boolean, kind: TuningKind | "result", stand: boolean): Trace => {
    const label = [kind === "oracle" ? ORACLE_LABEL : kind === "tuned" ? `tuned: ${TUNED_LABEL}` : "", stand ? `${STAND_IN_LABEL} (test doubles: mechanics, not results)` : ""].filter(Boolean).join(", ");
    const name = label ? `${label}${withSd ? " (mean ± sd)" : ""}` : withSd ? `${metric} (mean ± sd)` : metric;
    const color = stand ? "#d1d5db" : kind === "oracle" ? "#d97706" : kind === "tuned" ? "#0f766e" : withSd ? "#1e40af" : "#2563eb";
    const trace: Trace = {
      type: "bar",
      orientation: "h",
      name,
      y: idx.map((i) => names[i]),
      x: idx.map((i) => values[i]),
      text: idx.map((i) => (withSd ? `${fmt4(values[i])} ± ${fmt4(sds[i]!)}` : fmt4(values[i]))),
      // Inside when it fits, else past the bar's end: a 0.0168 or 0 bar keeps a readable value (inside, plotly
      // would shrink or hide it, and a 0 would look like a missing row).
      textposition: "auto",
      textangle: 0,
      // The whisker sits at the bar's end: keep the label at the other end.
      insidetextanchor: withSd ? "start" : "end",
      insidetextfont: { color: stand ? "#111827" : "white" },
      outsidetextfont: { color: "#111827" },
      cliponaxis: false,
      marker: stand ? { color, pattern: STAND_IN_PATTERN, line: { color: "#6b7280", width: 1 } } : { color },
      hovertemplate: `%{y}<br>${metric} %{x:.4f}${withSd ? " ± %{error_x.array:.4f}" : ""}${label ? `<br>${label}` : ""}<extra></extra>`,
    };
    if (withSd) trace.error_x = { type: "data", array: idx.map((i) => sds[i]!), visible: true, color: "#111827", thickness: 1.5, width: 6 };
    return trace;
  };
  const data: Trace[] = [];
  for (const withSd of [false, true]) {
    for (const kind of ["result", "tuned", "oracle"] as const) {
      for (const stand of [false, true]) {
        const idx = ids.map((_, i) => i).filter((i) => (sds[i] !== undefined) === withSd && kinds[i] === kind && standIn[i] === stand);
        if (idx.length) data.push(bars(idx, withSd, kind, stand));
      }
    }
  }
  if (!data.length) data.push(bars([], false, "result", false));
  // plotly draws no text for a bar of length 0: its value is written beside the axis, or the row reads as missing.
  const zeros = ids.map((_, i) => i).filter((i) => values[i] === 0);
  if (zeros.length) {
    data.push({ type: "scatter", mode: "text", name: `${metric} of 0`, x: zeros.map(() => 0), y: zeros.map((i) => names[i]), text: zeros.map(() => fmt4(0)), textposition: "middle right", textfont: { color: "#111827" }, cliponaxis: false, showlegend: false, hoverinfo: "skip" });
  }
  // A legend only when the bars are not all plain results (the error-bar trace explains itself).
  const legend = kinds.some((k) => k !== "result") || standIn.some(Boolean);
  const top = valueAxisTop(Math.max(0, ...values.map((v, i) => v + (sds[i] ?? 0))));
  return {
    data,
    layout: baseLayout(`${metric} by experiment${hasSd ? " (mean ± sd over samples)" : ""}`, {
      barmode: "overlay",
      xaxis: axis(metric, { range: [0, top] }),
      yaxis: axis("", { autorange: "reversed", type: "category", categoryorder: "array", categoryarray: names, ticks: "outside", ticklen: 6, tickcolor: "rgba(0,0,0,0)" }),
      // The category labels take their width out of the plot area, which the legend wraps in.
      height: 120 + 26 * Math.max(1, names.length) + (legend ? legendHeight(data.filter((t) => t.showlegend !== false).map((t) => String(t.name)), 1040 - 7 * Math.max(0, ...ids.map((id) => id.length))) : 0),
      showlegend: legend,
      ...(legend ? { legend: LEGEND } : {}),
      margin: { l: 20, r: 30, t: 50, b: 50 },
    }),
  };
}

/** Grouped bars of mean `metric` per legal area, one per experiment (samples averaged); stand-ins hatched. */
export function areaBreakdownChart(perQueryRows: readonly RowLike[], experiments?: readonly string[], name: MetricName = "Recall@100", opts: FigureMarks = {}): Figure {
  const metric = resolveMetric(name);
  const marks = marksOf(perQueryRows, opts.marks);
  const areaOf = (r: RowLike) => areaLabel(r.area);
  const chosen = experiments && experiments.length ? [...experiments] : [...new Set(perQueryRows.map((r) => String(r.experiment ?? "")))];
  const areas = [...new Set(perQueryRows.map(areaOf))].sort((a, b) => a.localeCompare(b));
  // Data without areas has nothing to break down: a chart of one "(no area)" bar per run would only repeat the means.
  if (areas.length === 1 && areas[0] === NO_AREA) {
    return {
      data: [],
      layout: baseLayout(`${metric} by legal area: the data has no legal areas`, {
        xaxis: { visible: false },
        yaxis: { visible: false },
        annotations: [{ text: "No query has a legal area (meta.jsonl), so there is nothing to break down.", showarrow: false, xref: "paper", yref: "paper", x: 0.5, y: 0.5 }],
      }),
    };
  }
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
  let max = 0;
  const data: Trace[] = chosen.map((exp) => {
    const name = plotlyText(markedName(exp, marks));
    const y = areas.map((a) => {
      const s = sums.get(`${exp}\u0000${a}`);
      return s && s.n ? s.sum / s.n : null;
    });
    for (const v of y) if (v !== null && v > max) max = v;
    const trace: Trace = { type: "bar", name, x: labels, y, hovertemplate: `${name}<br>%{x}<br>${metric} %{y:.4f}<extra></extra>` };
    // Hatched in the trace's own colour, so stand-ins stay told apart from each other.
    if (marks.standIn(exp)) trace.marker = { pattern: { shape: "/", size: 7, solidity: 0.45 }, line: { width: 1 } };
    return trace;
  });
  return {
    data,
    layout: baseLayout(`${metric} by legal area (queries per area in brackets)`, {
      barmode: "group",
      xaxis: axis("legal area"),
      yaxis: axis(`mean ${metric}`, { range: [0, valueAxisTop(max)] }),
      legend: LEGEND,
      height: 400 + legendHeight(data.map((t) => String(t.name))),
      margin: { l: 60, r: 30, t: 60, b: 40 },
    }),
  };
}

// BM25 sweep ------------------------------------------------------------------------------------

export interface SweepPoint {
  k1: number;
  b: number;
  value: number;
}

/** sweep.json's grid: z rows by b, columns by k1 (null: no setting); best is `oracle` (`best` in old folders). */
export interface SweepJson {
  k1s: readonly number[];
  bs: readonly number[];
  z: readonly (readonly (number | null)[])[];
  metric?: string;
  oracle?: SweepPoint;
  best?: SweepPoint;
  default?: SweepPoint;
  cv?: unknown;
}

/** Heatmap of the sweep (categorical axes: the grids are uneven), oracle starred, rank_bm25's default crossed. */
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
  mark(sweep.oracle ?? sweep.best, ORACLE_LABEL, "star");
  mark(sweep.default, "default", "x");
  return {
    data,
    layout: baseLayout(`BM25 sweep: mean ${metric} over k1 × b`, {
      xaxis: axis("k1", { type: "category" }),
      yaxis: axis("b", { type: "category" }),
      legend: LEGEND,
      height: 540,
    }),
  };
}

// REACT rounds ----------------------------------------------------------------------------------

/** REACT-BM25 by round: observer-kept Recall@100 against candidate-pool recall (the gap: what the observer dropped). */
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
  const max = Math.max(0, ...sorted.flatMap((r) => [r.kept ?? 0, r.pool ?? 0]));
  return {
    data: [
      line("observer-kept Recall@100", sorted.map((r) => r.kept), "#2563eb", "solid"),
      line("candidate-pool recall", sorted.map((r) => r.pool), "#d97706", "dash"),
    ],
    layout: baseLayout("REACT-BM25: observer-kept vs candidate-pool recall by round", {
      xaxis: axis("round", { tickmode: "array", tickvals: rounds }),
      yaxis: axis("recall", { range: [0, valueAxisTop(max)] }),
      legend: LEGEND,
      height: 440,
      margin: { l: 60, r: 30, t: 60, b: 40 },
    }),
  };
}

/** `sweepHeatmap` of a sweep computed in this process (`bm25Sweep`, `tuneBm25`), not read from sweep.json. */
export function tuningHeatmap(sweep: SweepResult, metric: MetricName = sweep.metric): Figure {
  return sweepHeatmap({ ...sweepGrid(sweep, metric), best: sweep.best, default: sweep.default });
}

// Significance ----------------------------------------------------------------------------------

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

/** p before and after Holm per test, log scale, α dashed; `opts.marks` adds "[stand-in]" to stand-in names. */
export function pValueChart(tests: readonly SignificanceTest[], alpha = 0.05, title = "Paired randomization tests: p before and after Holm correction", opts: FigureMarks = {}): Figure {
  const seen = new Map<string, number>();
  // Only stand-ins are marked: names already say oracle:/tuned:, and full words per test would crowd the axis.
  const name = (id: string) => (opts.marks?.standIn(id) ? `${id} [${STAND_IN_LABEL}]` : id);
  const labels = tests.map((t) => {
    const base = `${name(t.a)} vs ${name(t.b)} (${t.metric})`;
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
      // Powers of ten, not SI prefixes: plotly's default reads 1e-5 as "10µ".
      xaxis: axis("p-value (log scale)", { type: "log", range: [Math.log10(lo) - 0.3, 0.05], exponentformat: "power", dtick: 1 }),
      yaxis: axis("", { autorange: "reversed", type: "category", ticks: "outside", ticklen: 6, tickcolor: "rgba(0,0,0,0)" }),
      // On a log axis, shape coordinates are data values (annotations would want log10).
      shapes: [
        { type: "line", name: `α = ${alpha}`, showlegend: true, xref: "x", yref: "paper", x0: alpha, x1: alpha, y0: 0, y1: 1, line: { color: "#6b7280", dash: "dash", width: 1.5 } },
      ],
      legend: LEGEND,
      height: 210 + 30 * Math.max(1, labels.length),
      margin: { l: 20, r: 30, t: 60, b: 40 },
    }),
  };
}

/**
 * Every figure of the project, by name: each returns a plotly spec for `show.figure`; the report draws the same.
 *
 * @example
 * const f = resultFrames(result);
 * show.figure(figures.metricBarChart(frameRows(f.summary), "Recall@100"), { save: "recall100" });
 * show.figure(figures.winLossChart(analysis.winLoss, "lsi", "bm25-greekstemmer"));
 */
export const figures = {
  lengthHistograms,
  metricBarChart,
  areaBreakdownChart,
  sweepHeatmap,
  tuningHeatmap,
  reactRoundsChart,
  pValueChart,
  qualityCostScatter,
  winLossChart,
  rankDistributionChart,
  correlationHeatmap,
  perQueryChart,
  perQueryScatter,
  perQueryCounts,
} as const;
