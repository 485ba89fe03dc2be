/** Plotly specs of the error analysis and per-query statistics (lib/eval/error-analysis.ts, statistics.ts). */
import type { QueryId, QueryMeta } from "../types";
import type { Metric, MetricValues } from "../eval/metrics";
import { resolveMetric, type MetricName } from "../eval/metric-names";
import type { RankDistribution, WinLoss } from "../eval/error-analysis";
import type { RunCorrelation } from "../eval/statistics";
import { axis, baseLayout, fmt4, LEGEND, noteAbovePlot, plotlyText, wrapPlotlyText, type Figure } from "./figure-style";
import { formatFixed } from "../util/format-fixed";
import { areaLabel } from "./labels";

const WIN = "#15803d";
const TIE = "#9ca3af";
const LOSS = "#b91c1c";

/** Wins, ties and losses of A against B as stacked shares: one bar for all questions, then one per area. */
export function winLossChart(w: WinLoss, a: string, b: string): Figure {
  const groups = [{ group: "all questions", ...w.total }, ...(w.byArea ?? []).map((g) => ({ ...g, group: areaLabel(g.group) }))];
  const labels = groups.map((g) => plotlyText(`${g.group} (${g.queries})`));
  const part = (name: string, color: string, count: (g: (typeof groups)[number]) => number) => ({
    type: "bar",
    orientation: "h",
    name: plotlyText(name),
    y: labels,
    x: groups.map((g) => (g.queries ? count(g) / g.queries : 0)),
    customdata: groups.map(count),
    marker: { color },
    hovertemplate: `%{y}: %{customdata} questions (%{x:.0%})<extra>${plotlyText(name)}</extra>`,
  });
  return {
    data: [part(`${a} better`, WIN, (g) => g.wins), part("tie", TIE, (g) => g.ties), part(`${b} better`, LOSS, (g) => g.losses)],
    layout: baseLayout(plotlyText(`${a} against ${b}, per question (${w.metric})`), {
      barmode: "stack",
      height: 140 + 34 * groups.length,
      xaxis: axis("share of the questions", { range: [0, 1], tickformat: ".0%" }),
      yaxis: axis("", { autorange: "reversed" }),
      legend: LEGEND,
    }),
  };
}

/** Share of questions per rank bucket of the first relevant article, as grouped bars, one colour per run. */
export function rankDistributionChart(dist: RankDistribution): Figure {
  return {
    data: dist.runs.map((r) => ({
      type: "bar",
      name: plotlyText(r.name),
      x: dist.buckets.map(plotlyText),
      y: r.counts.map((c) => (r.queries ? c / r.queries : 0)),
      customdata: r.counts,
      hovertemplate: `rank %{x}: %{customdata} questions (%{y:.1%})<extra>${plotlyText(r.name)}</extra>`,
    })),
    layout: baseLayout("Rank of the first relevant article", {
      barmode: "group",
      height: 420,
      xaxis: axis("rank of the first gold article", { type: "category" }),
      yaxis: axis("share of the questions", { tickformat: ".0%", rangemode: "tozero" }),
      legend: LEGEND,
    }),
  };
}

/** Most distinct values either method's per-question scores may take for them to be drawn as counts. */
const MAX_DISCRETE_VALUES = 12;

/** "counts" when both scores take few values and questions share a point (a 0/1 Recall@100), else "points". */
export function perQueryView(pairs: readonly (readonly [number, number])[], maxValues = MAX_DISCRETE_VALUES): "counts" | "points" {
  const xs = new Set(pairs.map((p) => p[0]));
  const ys = new Set(pairs.map((p) => p[1]));
  const spots = new Set(pairs.map(([x, y]) => `${x} ${y}`)).size;
  return xs.size <= maxValues && ys.size <= maxValues && spots < pairs.length ? "counts" : "points";
}

type Shared = ReturnType<typeof sharedScores>;

function sharedScores(a: ReadonlyMap<QueryId, MetricValues>, b: ReadonlyMap<QueryId, MetricValues>, metric: Metric, meta?: ReadonlyMap<QueryId, QueryMeta>) {
  const queries = [...a.keys()].filter((q) => b.has(q));
  return { queries, x: queries.map((q) => a.get(q)![metric]), y: queries.map((q) => b.get(q)![metric]), area: queries.map((q) => areaLabel(meta?.get(q)?.area)) };
}

const valueLabel = (v: number) => formatFixed(v, 4).replace(/\.?0+$/, "") || "0";

const plural = (n: number, one: string, many = `${one}s`) => `${n.toLocaleString("en-US")} ${n === 1 ? one : many}`;

const topNote = (text: string) => noteAbovePlot(wrapPlotlyText(text));

/** Each question a point (A's score, B's) coloured by area, both axes 0 to 1; above the diagonal favours B. */
function scatterOf(s: Shared, metric: Metric, nameA: string, nameB: string): Figure {
  const areas = [...new Set(s.area)].sort();
  const same = s.queries.filter((_, i) => s.x[i] === s.y[i]).length;
  // Questions drawn exactly on top of another: the markers are translucent, so a stack reads darker.
  const hidden = s.queries.length - new Set(s.queries.map((_, i) => `${s.x[i]} ${s.y[i]}`)).size;
  const note = `${plural(s.queries.length, "question")}, one point each${hidden ? `; ${plural(hidden, "question")} on the same spot as another (darker where points stack)` : ""}; above the diagonal ${plural(s.queries.filter((_, i) => s.y[i] > s.x[i]).length, "question")} where ${nameB} does better`;
  return {
    data: [
      ...areas.map((area) => {
        const idx = s.queries.map((_, i) => i).filter((i) => s.area[i] === area);
        return {
          type: "scatter",
          mode: "markers",
          name: plotlyText(`${area} (${idx.length})`),
          x: idx.map((i) => s.x[i]),
          y: idx.map((i) => s.y[i]),
          text: idx.map((i) => plotlyText(s.queries[i])),
          // Points at 0 or 1 sit on the axis lines whole, not cut in half.
          cliponaxis: false,
          marker: { size: 8, opacity: 0.5 },
          hovertemplate: `%{text}<br>${plotlyText(nameA)}: %{x:.4f}<br>${plotlyText(nameB)}: %{y:.4f}<extra>${plotlyText(area)}</extra>`,
        };
      }),
      { type: "scatter", mode: "lines", x: [0, 1], y: [0, 1], line: { color: "#6b7280", dash: "dot", width: 1 }, hoverinfo: "skip", showlegend: false },
    ],
    layout: baseLayout(plotlyText(`${metric} per question: ${nameA} (x) and ${nameB} (y); ${same} of ${s.queries.length} on the diagonal`), {
      height: 540,
      xaxis: axis(plotlyText(`${nameA}, ${metric}`), { range: [0, 1], constrain: "domain" }),
      yaxis: axis(plotlyText(`${nameB}, ${metric}`), { range: [0, 1], scaleanchor: "x", constrain: "domain" }),
      ...topNote(plotlyText(note)),
      legend: LEGEND,
    }),
  };
}

/** Questions per pair of values (A's on x, B's on y), each cell counted: 4,000 questions at (1, 1) are not one point. */
function countsOf(s: Shared, metric: Metric, nameA: string, nameB: string): Figure {
  const n = s.queries.length;
  // One value list for both axes, so the diagonal of the grid is the diagonal of equal scores.
  const values = [...new Set([...s.x, ...s.y])].sort((p, q) => p - q);
  // Two values that print alike would merge into one category: then they print in full.
  const short = values.map(valueLabel);
  const labels = new Set(short).size === short.length ? short : values.map(String);
  const at = new Map(values.map((v, i) => [v, i]));
  const cells = values.map(() => values.map(() => ({ count: 0, areas: new Map<string, number>() })));
  s.queries.forEach((_, i) => {
    const cell = cells[at.get(s.y[i])!][at.get(s.x[i])!];
    cell.count++;
    cell.areas.set(s.area[i], (cell.areas.get(s.area[i]) ?? 0) + 1);
  });
  // One question of 4,355 is not "0.0%".
  const pct = (c: number) => (c > 0 && (100 * c) / n < 0.05 ? "<0.1%" : `${formatFixed((100 * c) / Math.max(1, n), 1)}%`);
  const byArea = (m: Map<string, number>) => (m.size > 1 ? `<br>${[...m].sort((p, q) => q[1] - p[1]).map(([area, c]) => `${plotlyText(area)} ${c}`).join(", ")}` : "");
  const same = values.reduce((t, _, i) => t + cells[i][i].count, 0);
  const above = s.queries.filter((_, i) => s.y[i] > s.x[i]).length;
  const note = `${plural(n, "question")} in ${plural(values.length, "value")} per method; ${plural(same, "question")} on the diagonal (the same score), ${plural(above, "question")} above it (${nameB} better), ${plural(n - same - above, "question")} below (${nameA} better)`;
  return {
    data: [
      {
        type: "heatmap",
        name: "questions",
        x: labels,
        y: labels,
        z: cells.map((row) => row.map((c) => (c.count ? c.count : null))),
        text: cells.map((row) => row.map((c) => (c.count ? `${c.count.toLocaleString("en-US")}<br>(${pct(c.count)})` : ""))),
        texttemplate: "%{text}",
        customdata: cells.map((row) => row.map((c) => `${plural(c.count, "question")} (${pct(c.count)})${byArea(c.areas)}`)),
        zmin: 0,
        // Light for few, dark for many (plotly's own "Blues" runs the other way).
        colorscale: [[0, "#eff6ff"], [1, "#1e3a8a"]],
        colorbar: { title: { text: "questions", side: "right" }, thickness: 14 },
        xgap: 2,
        ygap: 2,
        hovertemplate: `${plotlyText(nameA)} %{x}, ${plotlyText(nameB)} %{y}:<br>%{customdata}<extra></extra>`,
      },
    ],
    layout: baseLayout(plotlyText(`${metric} per question: ${nameA} (x) against ${nameB} (y), questions per pair of scores`), {
      height: Math.min(720, Math.max(460, 220 + 70 * values.length)),
      // Category axes: one column per value taken, so no axis runs past the metric's 0…1.
      xaxis: axis(plotlyText(`${nameA}, ${metric}`), { type: "category", categoryorder: "array", categoryarray: labels, constrain: "domain" }),
      yaxis: axis(plotlyText(`${nameB}, ${metric}`), { type: "category", categoryorder: "array", categoryarray: labels, scaleanchor: "x", constrain: "domain" }),
      shapes: [{ type: "line", xref: "x", yref: "y", x0: -0.5, y0: -0.5, x1: values.length - 0.5, y1: values.length - 0.5, line: { color: "#6b7280", dash: "dot", width: 1 } }],
      ...topNote(plotlyText(note)),
    }),
  };
}

/** Two methods' per-question scores as `perQueryView` decides: counts when the scores take few values, else points. */
export function perQueryChart(
  a: ReadonlyMap<QueryId, MetricValues>,
  b: ReadonlyMap<QueryId, MetricValues>,
  name: MetricName,
  nameA: string,
  nameB: string,
  meta?: ReadonlyMap<QueryId, QueryMeta>,
): Figure {
  const metric = resolveMetric(name);
  const s = sharedScores(a, b, metric, meta);
  const view = perQueryView(s.x.map((x, i) => [x, s.y[i]] as const));
  return (view === "counts" ? countsOf : scatterOf)(s, metric, nameA, nameB);
}

/** Spearman's rho between every pair of runs' per-query scores: high rho, the same questions are hard. */
export function correlationHeatmap(rows: readonly RunCorrelation[], name: MetricName): Figure {
  const metric = resolveMetric(name);
  const names = [...new Set(rows.flatMap((r) => [r.a, r.b]))];
  const rho = (x: string, y: string) => (x === y ? 1 : rows.find((r) => (r.a === x && r.b === y) || (r.a === y && r.b === x))?.rho ?? NaN);
  const z = names.map((y) => names.map((x) => rho(x, y)));
  return {
    data: [
      {
        type: "heatmap",
        x: names.map(plotlyText),
        y: names.map(plotlyText),
        z: z.map((row) => row.map((v) => (Number.isNaN(v) ? null : v))),
        text: z.map((row) => row.map((v) => (Number.isNaN(v) ? "n/a" : fmt4(v)))),
        texttemplate: "%{text}",
        zmin: -1,
        zmax: 1,
        colorscale: "RdBu",
        reversescale: true,
        hovertemplate: "%{y} / %{x}: rho %{text}<extra></extra>",
      },
    ],
    layout: baseLayout(`Spearman correlation of per-question ${metric}`, {
      height: 200 + 36 * names.length,
      // A blank cell would read as a missing run; say why rho has no value.
      ...(z.some((row) => row.some(Number.isNaN)) ? topNote(`n/a: no rho, as one of the two runs has the same ${metric} on every question (or they share fewer than two)`) : {}),
      xaxis: axis("", { type: "category", tickangle: -30 }),
      yaxis: axis("", { type: "category", autorange: "reversed" }),
    }),
  };
}
