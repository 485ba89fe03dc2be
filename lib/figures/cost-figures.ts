/** Quality against what each method spends per query; the cost axis shows only what is known and comparable. */
import { paretoFront, qualityCostData, type CostMeasure } from "../eval/quality-cost";
import { axis, baseLayout, emptyFigure, experimentColours, fittedRange, legendHeight, LEGEND, noteAbovePlot, plotlyText, powerOfTen, ROLE_COLOURS, wrapPlotlyText, type Figure, type Layout, type RowLike, type Trace } from "./figure-style";
import { formatFixed } from "../util/format-fixed";
import { markedName, rowMarks, type RowMarks } from "./labels";

const MEASURES: Record<CostMeasure, { title: string; axis: string }> = {
  usd: { title: "API-equivalent cost per query", axis: "API-equivalent cost per query (USD)" },
  tokens: { title: "model tokens per query", axis: "model tokens per query (LLM input + output, embedding)" },
  calls: { title: "model calls per query", axis: "model calls per query (chat, embedding and rerank requests)" },
  seconds: { title: "wall time per query", axis: "wall time per query (seconds, this run on this machine)" },
};

export interface CostAxis {
  type: "linear" | "log";
  /** plotly's range (log10 units on a log axis). */
  range: [number, number];
  /** Where a value is drawn: itself, or on a log axis, 0 at `zeroAt`, apart from the rest. */
  at: (value: number) => number;
  tickvals?: number[];
  ticktext?: string[];
  /** On a log axis with zeros: where 0 is drawn, and the dotted line that sets it apart. */
  zeroAt?: number;
  breakAt?: number;
}

/** Linear when the costs above 0 lie within a factor of 100, else log with 0 drawn apart at the left edge. */
export function costAxis(values: readonly number[]): CostAxis {
  const positive = values.filter((v) => v > 0 && Number.isFinite(v));
  const max = Math.max(0, ...positive);
  const min = positive.length ? Math.min(...positive) : 0;
  if (!positive.length || max / min < 100) return { type: "linear", range: max > 0 ? [-0.04 * max, 1.12 * max] : [-0.001, 0.01], at: (v) => v };
  const lo = Math.log10(min);
  const hi = Math.log10(max);
  const zero = values.some((v) => v === 0);
  const zeroLog = lo - 0.8;
  const decades: number[] = [];
  for (let k = Math.ceil(lo - 1e-9); k <= Math.floor(hi + 1e-9); k++) decades.push(k);
  return {
    type: "log",
    range: [(zero ? zeroLog : lo) - 0.3, hi + 0.3],
    at: (v) => (v > 0 ? v : 10 ** zeroLog),
    tickvals: [...(zero ? [10 ** zeroLog] : []), ...decades.map((k) => 10 ** k)],
    ticktext: [...(zero ? ["0"] : []), ...decades.map(powerOfTen)],
    ...(zero ? { zeroAt: 10 ** zeroLog, breakAt: 10 ** ((zeroLog + lo) / 2) } : {}),
  };
}

const FALLBACK_NOTE: Record<Exclude<CostMeasure, "usd">, string> = {
  tokens: "No method has an API-equivalent cost above 0 (the price table gives its models none): x is the model tokens each spends per query.",
  calls: "No method has an API-equivalent cost or a token count above 0: x is the model requests each makes per query.",
  seconds: "No method calls a model (all run locally), so none has a cost: x is the wall time per query on this machine, in this run.",
};

/** Quality against cost per query, the Pareto front dashed; methods without a known cost named, not drawn at 0. */
export function qualityCostScatter(
  summaryRows: readonly RowLike[],
  costRows: readonly RowLike[],
  quality: "Recall@100" | "nDCG@10" = "Recall@100",
  opts: { marks?: RowMarks } = {},
): Figure {
  const marks = opts.marks ?? rowMarks(summaryRows);
  const { measure, points, unknown, unpriced } = qualityCostData(summaryRows, costRows, quality);
  const names = (ids: readonly string[]) => plotlyText(ids.length > 6 ? `${ids.slice(0, 6).join(", ")} and ${ids.length - 6} more` : ids.join(", "));
  if (!measure) {
    const why = unknown.length ? `${unknown.length} method${unknown.length === 1 ? "" : "s"} (${names(unknown)}): API-equivalent cost, model calls, tokens and wall time all 0 or not recorded.` : "No method ran with a quality to plot.";
    return emptyFigure(`${quality} vs cost per query: no cost is known`, wrapPlotlyText(`Nothing to put on a cost axis. ${why}`).join("<br>"), { height: 260 });
  }
  const spec = MEASURES[measure];
  const x = costAxis(points.map((p) => p.cost));
  const front = paretoFront(points);
  const onFront = new Set(front.map((p) => p.name));
  const colour = experimentColours(summaryRows.filter((r) => r.status === undefined || r.status === "ok").map((r) => String(r.experiment ?? "")), marks);
  const data: Trace[] = points.map((p) => {
    const name = plotlyText(markedName(p.name, marks));
    const c = marks.standIn(p.name) ? ROLE_COLOURS.standIn : colour(p.name);
    return {
      type: "scatter",
      mode: "markers",
      name,
      x: [x.at(p.cost)],
      y: [p.quality],
      // The hover reads the value itself: on a log axis a free method is drawn apart, not at its x.
      customdata: [p.costText],
      cliponaxis: false,
      marker: { size: 11, symbol: onFront.has(p.name) ? "circle" : "circle-open", color: c, line: { width: 2, color: c } },
      hovertemplate: `${name}<br>%{customdata}<br>${quality} %{y:.4f}<extra></extra>`,
    };
  });
  data.push({
    type: "scatter",
    mode: "lines",
    name: "Pareto front",
    x: front.map((p) => x.at(p.cost)),
    y: front.map((p) => p.quality),
    line: { color: "#111827", dash: "dash", width: 1.5, shape: "hv" },
    hoverinfo: "skip",
  });
  const notes: string[] = [];
  if (measure !== "usd") notes.push(...wrapPlotlyText(FALLBACK_NOTE[measure]));
  const unrecorded = unknown.filter((id) => !unpriced.includes(id));
  if (unrecorded.length) notes.push(...wrapPlotlyText(`Not drawn, no known ${spec.title}: ${names(unrecorded)}.`));
  if (unpriced.length) notes.push(...wrapPlotlyText(`Not drawn, as cross-encoder rerank requests have no price or token count: ${names(unpriced)}.`));
  const [lo, hi] = fittedRange(points.map((p) => p.quality));
  const layout: Layout = baseLayout(`${quality} vs ${spec.title} (Pareto front dashed, its methods filled)`, {
    xaxis: axis(x.type === "log" ? `${spec.axis}; log scale${x.zeroAt !== undefined ? ", 0 drawn apart at the left" : ""}` : spec.axis, {
      type: x.type,
      range: x.range,
      // Decimals on a linear axis: plotly's default reads $0.0004 as "400µ".
      ...(x.tickvals ? { tickmode: "array", tickvals: x.tickvals, ticktext: x.ticktext } : { exponentformat: "none" }),
    }),
    // A scatter reads by position, not length, so its axis need not start at 0; the title says so when it does not.
    yaxis: axis(lo > 0 ? `${quality} (axis from ${formatFixed(lo, 2)}, not 0)` : quality, { range: [lo, hi] }),
    legend: LEGEND,
    height: 420 + 18 * notes.length + legendHeight(data.map((t) => String(t.name))),
    ...noteAbovePlot(notes, 60),
  });
  if (x.breakAt !== undefined) {
    layout.shapes = [{ type: "line", xref: "x", yref: "paper", x0: x.breakAt, x1: x.breakAt, y0: 0, y1: 1, line: { color: "#9ca3af", dash: "dot", width: 1 } }];
  }
  return { data, layout };
}
