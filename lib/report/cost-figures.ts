/** Quality against what each method spends per query; the cost axis shows only what is known and comparable. */
import { toNumber } from "../util/csv";
import { axis, baseLayout, experimentColours, fittedRange, legendHeight, LEGEND, noteAbovePlot, plotlyText, powerOfTen, ROLE_COLOURS, wrapPlotlyText, type Figure, type Layout, type RowLike, type Trace } from "./figure-style";
import { formatFixed } from "../util/format-fixed";
import { markedName, rowMarks, type RowMarks } from "./labels";

/** A method placed by cost (to minimise) and quality (to maximise). */
export interface QualityCostPoint {
  name: string;
  cost: number;
  quality: number;
}

/** What the cost of a point counts, chosen by `costMeasure`. */
export type CostMeasure = "usd" | "tokens" | "calls" | "seconds";

/** A point of cost.csv's data: its cost under `measure`, and that cost in words with its unit. */
export interface MeasuredPoint extends QualityCostPoint {
  measure: CostMeasure;
  costText: string;
}

/** Two significant digits, no trailing zeros; whole numbers from 100 on (toPrecision would print 1.5e+2). */
const short = (v: number) => (v === 0 ? "0" : v >= 100 ? Math.round(v).toLocaleString("en-US") : v.toPrecision(2).replace(/(\.\d*?)0+(e|$)/, "$1$2").replace(/\.(e|$)/, "$1"));

const MEASURES: Record<CostMeasure, { title: string; axis: string; text: (v: number) => string }> = {
  usd: { title: "API-equivalent cost per query", axis: "API-equivalent cost per query (USD)", text: (v) => `$${short(v)} per query` },
  tokens: { title: "model tokens per query", axis: "model tokens per query (LLM input + output, embedding)", text: (v) => `${Math.round(v)} tokens per query` },
  calls: { title: "model calls per query", axis: "model calls per query (chat, embedding and rerank requests)", text: (v) => `${formatFixed(v, 2).replace(/\.?0+$/, "")} calls per query` },
  seconds: { title: "wall time per query", axis: "wall time per query (seconds, this run on this machine)", text: (v) => `${short(v)} s per query` },
};

/** The words for a cost under a measure, e.g. "$0.00019 per query", "2 calls per query". */
export function costText(value: number, measure: CostMeasure): string {
  return MEASURES[measure].text(value);
}

/**
 * A method's cost.csv row under a measure, or undefined when not known: no row, an empty cell, or a part without a
 * price (cross-encoder rerank requests have neither a price nor a token count, so a run with rerank pairs has
 * neither a USD nor a token total comparable with the others).
 */
export function costValue(row: RowLike | undefined, measure: CostMeasure): number | undefined {
  if (!row) return undefined;
  const unpriced = (toNumber(row.rerankPairsPerQuery) ?? 0) > 0;
  if (measure === "usd") return unpriced ? undefined : toNumber(row.costPerQuery);
  if (measure === "tokens") {
    const llm = toNumber(row.llmTokensPerQuery);
    const embedding = toNumber(row.embeddingTokensPerQuery);
    return unpriced || llm === undefined || embedding === undefined ? undefined : llm + embedding;
  }
  return toNumber(measure === "calls" ? row.callsPerQuery : row.secondsPerQuery);
}

/**
 * What to put on the cost axis: API-equivalent USD when some method costs more than 0, else tokens, else model calls;
 * wall time only when no method calls a model (local compute, comparable within one run; with model calls, answers
 * replayed from the cache take no time). Undefined when every known value is 0: an axis of zeros says nothing.
 */
export function costMeasure(costRows: readonly RowLike[]): CostMeasure | undefined {
  for (const m of ["usd", "tokens", "calls", "seconds"] as const) if (costRows.some((r) => (costValue(r, m) ?? 0) > 0)) return m;
  return undefined;
}

interface QualityCostData {
  measure: CostMeasure | undefined;
  points: MeasuredPoint[];
  /** Methods that ran with a quality but no known cost under the measure: not drawn, named in a note. */
  unknown: string[];
  /** Of those, the ones whose cost has an unpriced part (rerank pairs). */
  unpriced: string[];
}

function qualityCostData(summaryRows: readonly RowLike[], costRows: readonly RowLike[], quality: string, measure?: CostMeasure): QualityCostData {
  const byMethod = new Map(costRows.map((r) => [String(r.method ?? ""), r]));
  const ran = summaryRows
    .filter((r) => r.status === undefined || r.status === "ok")
    .map((r) => ({ name: String(r.experiment ?? ""), quality: toNumber(r[quality]), row: byMethod.get(String(r.experiment ?? "")) }))
    .filter((r): r is { name: string; quality: number; row: RowLike | undefined } => r.quality !== undefined);
  const m = measure ?? costMeasure(ran.flatMap((r) => (r.row ? [r.row] : [])));
  const points: MeasuredPoint[] = [];
  const unknown: string[] = [];
  const unpriced: string[] = [];
  for (const r of ran) {
    const cost = m && costValue(r.row, m);
    if (m && cost !== undefined) points.push({ name: r.name, cost, quality: r.quality, measure: m, costText: costText(cost, m) });
    else {
      unknown.push(r.name);
      if ((toNumber(r.row?.rerankPairsPerQuery) ?? 0) > 0) unpriced.push(r.name);
    }
  }
  return { measure: m, points, unknown, unpriced };
}

/** The points none dominates (costs no more, scores no less, better in one), by cost then quality; ties all kept. */
export function paretoFront<P extends QualityCostPoint>(points: readonly P[]): P[] {
  const dominated = (p: P) =>
    points.some((q) => q.cost <= p.cost && q.quality >= p.quality && (q.cost < p.cost || q.quality > p.quality));
  return points.filter((p) => !dominated(p)).sort((a, b) => a.cost - b.cost || a.quality - b.quality);
}

/** Each method that ran, by mean `quality` and its cost under `measure` (default: `costMeasure`'s choice). */
export function qualityCostPoints(summaryRows: readonly RowLike[], costRows: readonly RowLike[], quality: "Recall@100" | "nDCG@10" = "Recall@100", measure?: CostMeasure): MeasuredPoint[] {
  return qualityCostData(summaryRows, costRows, quality, measure).points;
}

/**
 * The methods on the quality–cost Pareto front, cheapest first, each with its cost in words (`costText`); the cost
 * is what the figure's x axis shows (USD when any method costs anything), empty when no cost is known.
 *
 * @example
 * const f = resultFrames(result);
 * qualityCostFront(frameRows(f.summary), f.cost ? frameRows(f.cost) : [], "Recall@100").map((p) => `${p.name} ${p.costText}`);
 */
export function qualityCostFront(summaryRows: readonly RowLike[], costRows: readonly RowLike[], quality: "Recall@100" | "nDCG@10" = "Recall@100"): MeasuredPoint[] {
  return paretoFront(qualityCostPoints(summaryRows, costRows, quality));
}

/** A cost axis: where a value is drawn, and the plotly axis that reads it. */
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

/**
 * Linear from 0 when the costs above 0 lie within a factor of 100; otherwise log (a linear axis would draw a
 * $0.000001 method on top of a free one), with 0, which a log axis has not, drawn apart at the left edge.
 */
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

/** Why the axis is not USD, in words. */
const FALLBACK_NOTE: Record<Exclude<CostMeasure, "usd">, string> = {
  tokens: "No method has an API-equivalent cost above 0 (the price table gives its models none): x is the model tokens each spends per query.",
  calls: "No method has an API-equivalent cost or a token count above 0: x is the model requests each makes per query.",
  seconds: "No method calls a model (all run locally), so none has a cost: x is the wall time per query on this machine, in this run.",
};

/**
 * Quality against cost per query, one marker per method in its colour (filled on the Pareto front, which is dashed),
 * named in the legend (labels beside points would overprint where methods cost alike). The x axis is
 * `costMeasure`'s choice and says what it counts; methods without a known cost are named in a note, not drawn at 0;
 * with no cost known at all the figure says so and draws no axis.
 */
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
    return {
      data: [],
      layout: baseLayout(`${quality} vs cost per query: no cost is known`, {
        xaxis: { visible: false },
        yaxis: { visible: false },
        height: 260,
        annotations: [{ text: wrapPlotlyText(`Nothing to put on a cost axis. ${why}`).join("<br>"), showarrow: false, xref: "paper", yref: "paper", x: 0.5, y: 0.5 }],
      }),
    };
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
  const top = 60 + 18 * notes.length;
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
    margin: { l: 60, r: 30, t: top, b: 60 },
  });
  if (notes.length) {
    layout.annotations = [noteAbovePlot(notes)];
  }
  if (x.breakAt !== undefined) {
    layout.shapes = [{ type: "line", xref: "x", yref: "paper", x0: x.breakAt, x1: x.breakAt, y0: 0, y1: 1, line: { color: "#9ca3af", dash: "dot", width: 1 } }];
  }
  return { data, layout };
}
