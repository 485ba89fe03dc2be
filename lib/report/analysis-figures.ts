/** Plotly specs of the error analysis and per-query statistics (lib/eval/error-analysis.ts, statistics.ts). */
import type { QueryId, QueryMeta } from "../types";
import type { MetricValues } from "../eval/metrics";
import { resolveMetric, type MetricName } from "../eval/metric-names";
import type { RankDistribution, WinLoss } from "../eval/error-analysis";
import type { RunCorrelation } from "../eval/statistics";
import { axis, baseLayout, fmt4, LEGEND, plotlyText, type Figure } from "./figure-style";
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

/** Each question as a point (score under A, under B) coloured by area; points above the diagonal favour B. */
export function perQueryScatter(
  a: ReadonlyMap<QueryId, MetricValues>,
  b: ReadonlyMap<QueryId, MetricValues>,
  name: MetricName,
  nameA: string,
  nameB: string,
  meta?: ReadonlyMap<QueryId, QueryMeta>,
): Figure {
  const metric = resolveMetric(name);
  const shared = [...a.keys()].filter((q) => b.has(q));
  const byArea = new Map<string, QueryId[]>();
  for (const q of shared) {
    const area = areaLabel(meta?.get(q)?.area);
    byArea.set(area, [...(byArea.get(area) ?? []), q]);
  }
  const areas = [...byArea.keys()].sort();
  const same = shared.filter((q) => a.get(q)![metric] === b.get(q)![metric]).length;
  return {
    data: [
      ...areas.map((area) => {
        const qs = byArea.get(area)!;
        return {
          type: "scatter",
          mode: "markers",
          name: plotlyText(`${area} (${qs.length})`),
          x: qs.map((q) => a.get(q)![metric]),
          y: qs.map((q) => b.get(q)![metric]),
          text: qs.map(plotlyText),
          marker: { size: 8, opacity: 0.6 },
          hovertemplate: `%{text}<br>${plotlyText(nameA)}: %{x:.4f}<br>${plotlyText(nameB)}: %{y:.4f}<extra>${plotlyText(area)}</extra>`,
        };
      }),
      { type: "scatter", mode: "lines", x: [0, 1], y: [0, 1], line: { color: "#6b7280", dash: "dot", width: 1 }, hoverinfo: "skip", showlegend: false },
    ],
    layout: baseLayout(plotlyText(`${metric} per question: ${nameA} (x) and ${nameB} (y); ${same} of ${shared.length} on the diagonal`), {
      height: 520,
      xaxis: axis(plotlyText(`${nameA}, ${metric}`), { range: [-0.03, 1.03] }),
      yaxis: axis(plotlyText(`${nameB}, ${metric}`), { range: [-0.03, 1.03], scaleanchor: "x" }),
      legend: LEGEND,
    }),
  };
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
        text: z.map((row) => row.map((v) => (Number.isNaN(v) ? "" : fmt4(v)))),
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
      xaxis: axis("", { type: "category", tickangle: -30 }),
      yaxis: axis("", { type: "category", autorange: "reversed" }),
    }),
  };
}
