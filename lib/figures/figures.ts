/** Plotly figure specs for report and notebooks: loosely typed rows (empty cell = no value) → plotly.js 3 JSON. */
import type { BootstrapInterval } from "../eval/bootstrap";
import { resolveMetric, type MetricName } from "../eval/metric-names";
import { formatFixed } from "../util/format-fixed";
import { sweepHeatmap as sweepGrid, type SweepChoice, type SweepResult } from "../eval/sweep-result";
import { correlationHeatmap, perQueryChart, rankDistributionChart, winLossChart } from "./analysis-figures";
import { toNumber } from "../util/csv";
import { qualityCostScatter } from "./cost-figures";
import { lengthHistograms } from "./dataset-figures";
import { axis, baseLayout, emptyFigure, experimentColours, fmt4, legendHeight, LEGEND, plotlyText, ROLE_COLOURS, shortLabel, wrapPlotlyText, type Figure, type RowLike, type Trace } from "./figure-style";
import { NO_AREA } from "../types";
import { areaLabel, BEYOND_LABEL, markedName, ORACLE_LABEL, rowMarks, STAND_IN_LABEL, TUNED_LABEL, type RowMarks, type TuningKind } from "./labels";

/** Top of a 0-based metric axis: max + 15% (an nDCG@10 of 0.04 is a bar, not a sliver), capped at 1 but ≥ max. */
export function valueAxisTop(max: number): number {
  if (!(max > 0) || !Number.isFinite(max)) return 1;
  return Math.max(max, Math.min(1, max * 1.15));
}

const STAND_IN_PATTERN = { shape: "/", fgcolor: "#374151", size: 7, solidity: 0.25 };

export interface MetricBarOptions {
  marks?: RowMarks;
  /** Bootstrap interval of each experiment's mean (`metricIntervals`): drawn as whiskers, in place of the sd. */
  intervals?: ReadonlyMap<string, BootstrapInterval>;
}

type Whisker = "interval" | "sd" | "none";
const WHISKER = { type: "data", visible: true, color: "#111827", thickness: 1.5, width: 6 };

/** Bars of one metric per experiment that ran; whiskers: the bootstrap interval when given, else ± sd when repeated. */
export function metricBarChart(summaryRows: readonly RowLike[], name: MetricName = "Recall@100", opts: MetricBarOptions = {}): Figure {
  const metric = resolveMetric(name);
  const marks = opts.marks ?? rowMarks(summaryRows);
  const rows = summaryRows.filter((r) => (r.status === undefined || r.status === "ok") && toNumber(r[metric]) !== undefined);
  const ids = rows.map((r) => String(r.experiment ?? ""));
  const names = ids.map((id) => plotlyText(marks.beyond(id) !== undefined ? `${id} [${BEYOND_LABEL}]` : id));
  const values = rows.map((r) => toNumber(r[metric])!);
  const sds = rows.map((r) => ((toNumber(r.samples) ?? 1) > 1 ? toNumber(r[`sd ${metric}`]) : undefined));
  const cis = ids.map((id) => opts.intervals?.get(id));
  const whiskers = ids.map((_, i): Whisker => (cis[i] ? "interval" : sds[i] !== undefined ? "sd" : "none"));
  const kinds = ids.map((id): TuningKind | "result" => marks.tuning(id) ?? "result");
  const standIn = ids.map((id) => marks.standIn(id));
  const label = (i: number) => (sds[i] !== undefined ? `${fmt4(values[i])} ± ${fmt4(sds[i]!)}` : fmt4(values[i]));
  // Each kind of whisker gets its own trace: plotly draws a cap even for a null or zero error.
  const bars = (idx: number[], whisker: Whisker, kind: TuningKind | "result", stand: boolean): Trace => {
    const withSd = whisker === "sd";
    const labelText = [kind === "oracle" ? ORACLE_LABEL : kind === "tuned" ? `tuned: ${TUNED_LABEL}` : "", stand ? `${STAND_IN_LABEL} (test doubles: mechanics, not results)` : ""].filter(Boolean).join(", ");
    const name = labelText ? `${labelText}${withSd ? " (mean ± sd)" : ""}` : withSd ? `${metric} (mean ± sd)` : metric;
    const color = stand ? "#d1d5db" : kind === "result" ? ROLE_COLOURS.result : ROLE_COLOURS[kind];
    const hoverCi = whisker === "interval" ? `<br>%{customdata[2]}: %{customdata[0]:.4f} to %{customdata[1]:.4f}%{customdata[3]}` : "";
    const trace: Trace = {
      type: "bar",
      orientation: "h",
      name,
      y: idx.map((i) => names[i]),
      x: idx.map((i) => values[i]),
      text: idx.map(label),
      textposition: "auto",
      textangle: 0,
      // The whisker sits at the bar's end: keep the label at the other end.
      insidetextanchor: whisker === "none" ? "end" : "start",
      insidetextfont: { color: stand ? "#111827" : "white" },
      outsidetextfont: { color: "#111827" },
      cliponaxis: false,
      marker: stand ? { color, pattern: STAND_IN_PATTERN, line: { color: "#6b7280", width: 1 } } : { color },
      hovertemplate: `%{y}<br>${metric} %{x:.4f}${withSd ? " ± %{error_x.array:.4f} (sd over samples)" : ""}${hoverCi}${labelText ? `<br>${labelText}` : ""}<extra></extra>`,
    };
    if (withSd) trace.error_x = { ...WHISKER, array: idx.map((i) => sds[i]!) };
    if (whisker === "interval") {
      // Relative to the bar's end; a repeated run's interval is sample 0's, which may sit off its mean: no negative arm.
      trace.error_x = {
        ...WHISKER,
        symmetric: false,
        array: idx.map((i) => Math.max(0, cis[i]!.upper - values[i])),
        arrayminus: idx.map((i) => Math.max(0, values[i] - cis[i]!.lower)),
      };
      trace.customdata = idx.map((i) => [
        cis[i]!.lower,
        cis[i]!.upper,
        `${formatFixed(100 * cis[i]!.level, 0)}% bootstrap interval of the mean`,
        sds[i] !== undefined ? `<br>mean over samples, ± ${fmt4(sds[i]!)} sd; the interval is sample 0's (mean ${fmt4(cis[i]!.mean)})` : "",
      ]);
    }
    return trace;
  };
  const data: Trace[] = [];
  for (const whisker of ["none", "interval", "sd"] as const) {
    for (const kind of ["result", "tuned", "oracle"] as const) {
      for (const stand of [false, true]) {
        const idx = ids.map((_, i) => i).filter((i) => whiskers[i] === whisker && kinds[i] === kind && standIn[i] === stand);
        if (idx.length) data.push(bars(idx, whisker, kind, stand));
      }
    }
  }
  if (!data.length) data.push(bars([], "none", "result", false));
  // plotly draws no text for a bar of length 0: its value is written beside the axis, or the row reads as missing.
  const zeros = ids.map((_, i) => i).filter((i) => values[i] === 0);
  if (zeros.length) {
    data.push({ type: "scatter", mode: "text", name: `${metric} of 0`, x: zeros.map(() => 0), y: zeros.map((i) => names[i]), text: zeros.map(() => fmt4(0)), textposition: "middle right", textfont: { color: "#111827" }, cliponaxis: false, showlegend: false, hoverinfo: "skip" });
  }
  const legend = kinds.some((k) => k !== "result") || standIn.some(Boolean);
  const ends = values.map((v, i) => (whiskers[i] === "interval" ? Math.max(v, cis[i]!.upper) : v + (whiskers[i] === "sd" ? sds[i]! : 0)));
  const top = valueAxisTop(Math.max(0, ...ends));
  // The title says what the whiskers are, in the figure itself (an exported SVG has no caption).
  const shown = cis.filter((c): c is BootstrapInterval => c !== undefined);
  const repeatedWithCi = ids.some((_, i) => whiskers[i] === "interval" && sds[i] !== undefined);
  const lines = [`${metric} by experiment${whiskers.includes("sd") ? " (mean ± sd over samples)" : ""}`];
  if (shown.length) {
    const { level, resamples } = shown[0];
    lines.push(
      plotlyText(
        `whiskers: ${formatFixed(100 * level, 0)}% bootstrap interval of the mean over queries, ${resamples.toLocaleString("en-US")} resamples` +
          (repeatedWithCi ? " (sample 0 of repeated runs; ± in the label: sd over samples)" : ""),
      ),
    );
  }
  const title = lines.map((l, i) => (i ? `<span style="font-size:13px;color:#4b5563">${l}</span>` : l)).join("<br>");
  return {
    data,
    layout: baseLayout(title, {
      barmode: "overlay",
      xaxis: axis(metric, { range: [0, top] }),
      yaxis: axis("", { autorange: "reversed", type: "category", categoryorder: "array", categoryarray: names, ticks: "outside", ticklen: 6, tickcolor: "rgba(0,0,0,0)" }),
      // The category labels take their width out of the plot area, which the legend wraps in.
      height: 120 + 20 * (lines.length - 1) + 26 * Math.max(1, names.length) + (legend ? legendHeight(data.filter((t) => t.showlegend !== false).map((t) => String(t.name)), 1040 - 7 * Math.max(0, ...ids.map((id) => id.length))) : 0),
      showlegend: legend,
      ...(legend ? { legend: LEGEND } : {}),
      margin: { l: 20, r: 30, t: 50 + 20 * (lines.length - 1), b: 50 },
    }),
  };
}

/** Mean `metric` per experiment and area (as `areaLabel` names it) over per-query rows, blank cells left out. */
export function areaMeans(perQueryRows: readonly RowLike[], metric: string): (experiment: string, area: string) => number | undefined {
  const sums = new Map<string, { sum: number; n: number }>();
  for (const r of perQueryRows) {
    const v = toNumber(r[metric]);
    if (v === undefined) continue;
    const key = `${String(r.experiment ?? "")}\u0000${areaLabel(r.area)}`;
    const s = sums.get(key) ?? { sum: 0, n: 0 };
    s.sum += v;
    s.n++;
    sums.set(key, s);
  }
  return (experiment, area) => {
    const s = sums.get(`${experiment}\u0000${area}`);
    return s && s.n ? s.sum / s.n : undefined;
  };
}

/** Grouped bars of mean `metric` per legal area, one per experiment (samples averaged); stand-ins hatched. */
export function areaBreakdownChart(perQueryRows: readonly RowLike[], experiments?: readonly string[], name: MetricName = "Recall@100", opts: { marks?: RowMarks } = {}): Figure {
  const metric = resolveMetric(name);
  const marks = opts.marks ?? rowMarks(perQueryRows);
  const areaOf = (r: RowLike) => areaLabel(r.area);
  const chosen = experiments && experiments.length ? [...experiments] : [...new Set(perQueryRows.map((r) => String(r.experiment ?? "")))];
  const areas = [...new Set(perQueryRows.map(areaOf))].sort((a, b) => a.localeCompare(b));
  // Data without areas has nothing to break down: a chart of one "(no area)" bar per run would only repeat the means.
  if (areas.length === 1 && areas[0] === NO_AREA) {
    return emptyFigure(`${metric} by legal area: the data has no legal areas`, "No query has a legal area (meta.jsonl), so there is nothing to break down.");
  }
  const queries = areas.map((a) => new Set(perQueryRows.filter((r) => areaOf(r) === a).map((r) => String(r.query ?? ""))).size);
  const labels = areas.map((a, i) => plotlyText(`${a} (${queries[i]})`));
  // An area's name can run to 120 characters: the tick shows its count and its start, the hover all.
  const ticks = areas.map((a, i) => `(${queries[i]})<br>${shortLabel(plotlyText(a), 24, 2)}`);
  const colour = experimentColours([...new Set(perQueryRows.map((r) => String(r.experiment ?? "")))], marks);
  const mean = areaMeans(perQueryRows, metric);
  let max = 0;
  const data: Trace[] = chosen.map((exp) => {
    const name = plotlyText(markedName(exp, marks));
    const y = areas.map((a) => mean(exp, a) ?? null);
    for (const v of y) if (v !== null && v > max) max = v;
    const trace: Trace = { type: "bar", name, x: labels, y, marker: { color: colour(exp) }, hovertemplate: `${name}<br>%{x}<br>${metric} %{y:.4f}<extra></extra>` };
    // Hatched in the trace's own colour, so stand-ins stay told apart from each other.
    if (marks.standIn(exp)) trace.marker = { color: colour(exp), pattern: { shape: "/", size: 7, solidity: 0.45 }, line: { width: 1 } };
    return trace;
  });
  return {
    data,
    layout: baseLayout(`${metric} by legal area (queries per area in brackets)`, {
      barmode: "group",
      xaxis: axis("legal area", { type: "category", tickmode: "array", tickvals: labels, ticktext: ticks }),
      yaxis: axis(`mean ${metric}`, { range: [0, valueAxisTop(max)] }),
      legend: LEGEND,
      height: 400 + legendHeight(data.map((t) => String(t.name))),
      margin: { l: 60, r: 30, t: 60, b: 40 },
    }),
  };
}

export type SweepPoint = Pick<SweepChoice, "k1" | "b" | "value">;

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
  const data: Trace[] = [
    {
      type: "heatmap",
      name: metric,
      x: sweep.k1s.map(String),
      y: sweep.bs.map(String),
      z: sweep.z.map((row) => row.map((v) => (typeof v === "number" && Number.isFinite(v) ? v : null))),
      colorscale: "Viridis",
      colorbar: { title: { text: metric, side: "right" }, thickness: 14 },
      hovertemplate: `k1 %{x}<br>b %{y}<br>${metric} %{z:.4f}<extra></extra>`,
    },
  ];
  const mark = (p: SweepPoint | undefined, name: string, symbol: string) => {
    if (!p) return;
    data.push({
      type: "scatter",
      mode: "markers",
      name: `${name}: k1 ${p.k1}, b ${p.b} (${fmt4(p.value)})`,
      x: [String(p.k1)],
      y: [String(p.b)],
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
      // Black and grey: blue, amber and the other hues name experiments and roles in the other figures.
      line("observer-kept Recall@100", sorted.map((r) => r.kept), "#111827", "solid"),
      line("candidate-pool recall", sorted.map((r) => r.pool), "#6b7280", "dash"),
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

/** A test of a heatmap's family: `gbr compare --json`'s fields, and reproduce's status and missing runs for the paper's. */
export interface HeatmapTest {
  a: string;
  b: string;
  metric: string;
  meanA?: number;
  meanB?: number;
  delta?: number;
  p: number | string;
  pHolm: number | string;
  /** "missing": a run absent, the test not run (reproduce's paper family). */
  status?: string;
  missing?: readonly string[];
}

export interface PValueHeatmapOptions {
  marks?: RowMarks;
  /** The level a cell must be below, after Holm, to pass (default 0.05). */
  alpha?: number;
  /** What the tests are (the title's first line), e.g. "The paper's 20 tests". */
  family?: string;
  /** Sign flips per test, named in the title and colour bar (significance.json's `swaps`). */
  swaps?: number;
}

/** A p-value in few characters: 4 decimals from 0.001, else two significant digits times a power of ten. */
export function pValueText(p: number): string {
  if (p >= 0.001) return formatFixed(p, 4);
  const [mantissa, exponent] = p.toExponential(1).split("e");
  return `${mantissa}×10<sup>${exponent.replace("-", "−")}</sup>`;
}

/** Six significant digits, for the hover: the p as computed, not as rounded for the cell. */
const exactP = (p: number) => (p >= 0.001 ? String(Number(p.toPrecision(6))) : p.toExponential(5).replace(/\.?0+e/, "e"));

function signedDelta(d: number): string {
  return `${d > 0 ? "+" : d < 0 ? "\u2212" : ""}${formatFixed(Math.abs(d), 3)}`;
}

/** A test's difference A − B: its `delta`, else its means' difference, else undefined (not recorded). */
function testDelta(t: Pick<HeatmapTest, "delta" | "meanA" | "meanB">): number | undefined {
  if (typeof t.delta === "number" && Number.isFinite(t.delta)) return t.delta;
  return typeof t.meanA === "number" && typeof t.meanB === "number" ? t.meanA - t.meanB : undefined;
}

/** Tests as a grid, pairs × metrics, each cell Δ over p (Holm): blue a gain, red a loss, pale at or above α. */
export function pValueHeatmap(tests: readonly HeatmapTest[], opts: PValueHeatmapOptions = {}): Figure {
  const alpha = opts.alpha ?? 0.05;
  const standIn = (id: string) => (opts.marks?.standIn(id) ? `${id} [${STAND_IN_LABEL}]` : id);
  const against = tests.length && tests.every((t) => t.b === tests[0].b) ? tests[0].b : undefined;
  const metrics = [...new Set(tests.map((t) => t.metric))];
  // Rows by pair in order of appearance; a pair × metric seen twice opens the pair's next row (#2 …).
  const rows: { label: string; cells: Map<string, HeatmapTest> }[] = [];
  const seen = new Map<string, number[]>();
  for (const t of tests) {
    // Two lines ("A", "vs B"): a pair's label takes half the width, which the cells need.
    const base = against !== undefined ? standIn(t.a) : `${standIn(t.a)}\n vs ${standIn(t.b)}`;
    const indices = seen.get(`${t.a}\u0000${t.b}`) ?? [];
    let row = indices.find((i) => !rows[i].cells.has(t.metric));
    if (row === undefined) {
      row = rows.length;
      rows.push({ label: plotlyText(indices.length ? `${base} #${indices.length + 1}` : base).replace("\n", "<br>"), cells: new Map() });
      indices.push(row);
      seen.set(`${t.a}\u0000${t.b}`, indices);
    }
    rows[row].cells.set(t.metric, t);
  }
  const ran = (t: HeatmapTest | undefined): t is HeatmapTest => t !== undefined && t.status !== "missing" && Number(t.pHolm) > 0 && Number(t.pHolm) <= 1;
  const signed = (t: HeatmapTest | undefined): boolean => ran(t) && testDelta(t) !== undefined;
  const holm = tests.filter(ran).map((t) => Number(t.pHolm));
  // −log10 p from 0 to a power of ten at or beyond the smallest p (at least 3), signed by Δ: losses left, gains right.
  const top = Math.max(3, Math.ceil(-Math.log10(Math.min(1, ...holm))));
  const cut = -Math.log10(alpha);
  const at = (z: number) => (z + top) / (2 * top);
  const grid = <T,>(f: (t: HeatmapTest | undefined, metric: string) => T) => rows.map((r) => metrics.map((m) => f(r.cells.get(m), m)));
  const pass = (t: HeatmapTest | undefined) => ran(t) && Number(t.pHolm) < alpha;
  const flips = opts.swaps !== undefined ? `, ${opts.swaps.toLocaleString("en-US")} sign flips` : "";
  const difference = against !== undefined ? `row minus ${plotlyText(standIn(against))}` : "A minus B (a row: A vs B)";
  const pair = (t: HeatmapTest) => plotlyText(`${standIn(t.a)} vs ${standIn(t.b)}, ${t.metric}`);
  const hover = (t: HeatmapTest) => {
    const d = testDelta(t);
    const means = typeof t.meanA === "number" && typeof t.meanB === "number" ? `<br>mean A ${fmt4(t.meanA)}, mean B ${fmt4(t.meanB)}` : "";
    const delta = d === undefined ? "<br>Δ not recorded: no direction shown" : `<br>Δ (A − B) ${d > 0 ? "+" : ""}${fmt4(d)}: ${d > 0 ? "A gains" : d < 0 ? "A loses" : "no difference"}`;
    return `${pair(t)}<br>p (Holm) ${exactP(Number(t.pHolm))}${pass(t) ? ` &lt; ${alpha}: passes` : ` ≥ ${alpha}: does not pass`}<br>p (uncorrected) ${exactP(Number(t.p))}${means}${delta}`;
  };
  const notRun = (t: HeatmapTest | undefined, metric: string, r: number) =>
    t
      ? `${pair(t)}<br>not run: ${plotlyText((t.missing ?? []).join(", ") || "a run")} absent; counted as p = 1 in Holm`
      : `${rows[r].label.replace("<br>", "")}, ${plotlyText(metric)}<br>not run: no test of this pair on this metric`;
  const cellText = (t: HeatmapTest) => {
    const d = testDelta(t)!;
    const first = pass(t) ? `<b>${signedDelta(d)}\u2009★</b>` : signedDelta(d);
    return `${first}<br>${pValueText(Number(t.pHolm))}`;
  };
  const layer = { type: "heatmap", x: metrics.map(plotlyText), y: rows.map((r) => r.label), texttemplate: "%{text}", hovertemplate: "%{hovertext}<extra></extra>", hoverongaps: false, showscale: false, xgap: 3, ygap: 3 };
  const data: Trace[] = [
    {
      ...layer,
      name: "not run",
      // 1: not run (grey); 0: ran, no direction recorded (light grey).
      z: grid((t) => (signed(t) ? null : ran(t) ? 0 : 1)),
      zmin: 0,
      zmax: 1,
      text: grid((t) => (signed(t) ? "" : ran(t) ? pValueText(Number(t.pHolm)) : "not run")),
      textfont: { color: "#1f2937", size: 12 },
      hovertext: rows.map((r, i) => metrics.map((m) => { const t = r.cells.get(m); return signed(t) ? "" : ran(t) ? hover(t) : notRun(t, m, i); })),
      colorscale: [[0, "#e5e7eb"], [1, "#9ca3af"]],
    },
    {
      ...layer,
      name: "Δ and Holm-corrected p",
      z: grid((t) => (t && signed(t) ? Math.sign(testDelta(t)!) * Math.min(top, -Math.log10(Number(t.pHolm))) : null)),
      zmin: -top,
      zmax: top,
      text: grid((t) => (t && signed(t) ? cellText(t) : "")),
      textfont: { size: 12 },
      hovertext: rows.map((r) => metrics.map((m) => { const t = r.cells.get(m); return t && signed(t) ? hover(t) : ""; })),
      // Pale sand on both sides of 0 up to α, so that the threshold reads as a colour edge.
      colorscale: [
        [0, "#67000d"],
        [at(-cut), "#fc9272"],
        [at(-cut), "#f3ead7"],
        [0.5, "#fbf8f1"],
        [at(cut), "#f3ead7"],
        [at(cut), "#6baed6"],
        [1, "#08306b"],
      ],
    },
  ];
  const shapes = rows.flatMap((r, i) =>
    metrics.flatMap((m, j) => (pass(r.cells.get(m)) ? [{ type: "rect", xref: "x", yref: "y", x0: j - 0.46, x1: j + 0.46, y0: i - 0.44, y1: i + 0.44, line: { color: "#111827", width: 2.5 } }] : [])),
  );
  const grey = rows.some((r) => metrics.some((m) => !ran(r.cells.get(m))));
  const blind = tests.some((t) => ran(t) && !signed(t));
  const lines = [
    ...wrapPlotlyText(plotlyText(opts.family ?? "Paired tests")),
    ...wrapPlotlyText(`Δ = ${difference}, over p (Holm); blue: a gain, red: a loss, deeper as p is smaller, pale: p (Holm) ≥ α`),
    ...wrapPlotlyText(
      `<span style="color:#4b5563">Holm-corrected p of a two-sided paired randomization test${flips}; ★, bold and outlined: p (Holm) &lt; α = ${alpha}` +
        `${grey ? `; grey: not run${tests.some((t) => t.status === "missing") ? " (counted as p = 1 in Holm)" : ""}` : ""}${blind ? "; light grey: Δ not recorded" : ""}</span>`,
    ),
  ];
  // No colour bar: each cell writes its Δ and p, and the title says what the colours are.
  const layout = baseLayout(lines.join("<br>"), {
    xaxis: axis("", { type: "category", showgrid: false, zeroline: false, ticks: "" }),
      yaxis: axis("", { type: "category", autorange: "reversed", categoryorder: "array", categoryarray: rows.map((r) => r.label), showgrid: false, zeroline: false, ticks: "outside", ticklen: 6, tickcolor: "rgba(0,0,0,0)" }),
      shapes,
      height: 110 + 24 * lines.length + (against !== undefined ? 40 : 48) * Math.max(1, rows.length),
      margin: { l: 20, r: 30, t: 30 + 24 * lines.length, b: 40 },
  });
  // From the top edge down: centred in the margin (plotly's default), a title of several lines runs into the grid.
  layout.title = { ...layout.title, y: 1, yref: "container", yanchor: "top", pad: { l: 14, t: 14 } };
  return { data, layout };
}

/**
 * Every figure of the project, by name: each returns a plotly spec for `show.figure`; the report draws the same.
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
  pValueHeatmap,
  qualityCostScatter,
  winLossChart,
  rankDistributionChart,
  correlationHeatmap,
  perQueryChart,
} as const;
