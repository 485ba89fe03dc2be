/** Figures of the benchmark itself (notebook 01): how long its texts are. */
import { median } from "simple-statistics";
import { axis, baseLayout, LEGEND, plotlyText, type Figure, type Trace } from "./figure-style";

export interface LengthSeries {
  /** What is counted, plural: "articles", "questions". */
  name: string;
  lengths: readonly number[];
}

function niceWidth(raw: number): number {
  if (!(raw > 1)) return 1;
  const p = 10 ** Math.floor(Math.log10(raw));
  const f = raw / p;
  return (f <= 1 ? 1 : f <= 2 ? 2 : f <= 5 ? 5 : 10) * p;
}

/** About `target` equal bins; past the 99th percentile, when the longest is over twice it, one `overflow` bar. */
export function lengthBins(values: readonly number[], target = 30) {
  const sorted = values.filter((v) => Number.isFinite(v)).sort((a, b) => a - b);
  if (!sorted.length) return { start: 0, size: 1, counts: [] as number[] };
  const min = sorted[0];
  const max = sorted[sorted.length - 1];
  const p99 = sorted[Math.min(sorted.length - 1, Math.floor(0.99 * sorted.length))];
  const cap = max > 2 * p99 ? p99 : max;
  const size = niceWidth((cap - min) / target);
  const start = Math.floor(min / size) * size;
  const counts = new Array<number>(Math.floor((cap - start) / size) + 1).fill(0);
  let over = 0;
  for (const v of sorted) {
    const i = Math.floor((v - start) / size);
    if (i < counts.length) counts[i]++;
    else over++;
  }
  return { start, size, counts, ...(over ? { overflow: { from: start + counts.length * size, count: over, max } } : {}) };
}

const COLORS = ["#2563eb", "#d97706", "#0f766e", "#7c3aed"];
const n0 = (v: number) => v.toLocaleString("en-US");

/** Histograms of text lengths, a panel per series with its own bins and axis (questions and articles share no scale). */
export function lengthHistograms(series: readonly LengthSeries[], unit = "words"): Figure {
  const gap = 0.16;
  const h = (1 - gap * Math.max(0, series.length - 1)) / Math.max(1, series.length);
  const data: Trace[] = [];
  const layout: Record<string, unknown> = {};
  series.forEach((s, k) => {
    const bins = lengthBins(s.lengths);
    const suffix = k === 0 ? "" : String(k + 1);
    const color = COLORS[k % COLORS.length];
    const mid = s.lengths.length ? median([...s.lengths]) : NaN;
    const name = plotlyText(s.name);
    data.push({
      type: "bar",
      name,
      xaxis: `x${suffix}`,
      yaxis: `y${suffix}`,
      x: bins.counts.map((_, i) => bins.start + (i + 0.5) * bins.size),
      y: bins.counts,
      width: bins.counts.map(() => bins.size),
      customdata: bins.counts.map((_, i) => (bins.size === 1 ? n0(bins.start + i) : `${n0(bins.start + i * bins.size)}–${n0(bins.start + (i + 1) * bins.size - 1)}`)),
      marker: { color, line: { color: "white", width: 0.5 } },
      showlegend: false,
      hovertemplate: `%{customdata} ${unit}: %{y} ${name}<extra></extra>`,
    });
    if (bins.overflow) {
      const o = bins.overflow;
      const label = `${n0(o.count)} ${s.name} of ${n0(o.from)} to ${n0(o.max)} ${unit}, in one bar`;
      data.push({
        type: "bar",
        name: plotlyText(label),
        xaxis: `x${suffix}`,
        yaxis: `y${suffix}`,
        x: [o.from + 0.5 * bins.size],
        y: [o.count],
        width: [bins.size],
        text: [`≥ ${n0(o.from)}`],
        textposition: "outside",
        cliponaxis: false,
        marker: { color: "#d1d5db", pattern: { shape: "/", fgcolor: color, size: 6 }, line: { color, width: 1 } },
        hovertemplate: `${plotlyText(label)}<extra></extra>`,
      });
    }
    const top = 1 - k * (h + gap);
    const end = bins.start + (bins.counts.length + (bins.overflow ? 1 : 0)) * bins.size;
    layout[`xaxis${suffix}`] = axis(plotlyText(`${s.name}: length in ${unit}${Number.isFinite(mid) ? ` (median ${n0(mid)})` : ""}`), {
      anchor: `y${suffix}`,
      range: [bins.start, end],
    });
    layout[`yaxis${suffix}`] = axis(plotlyText(`number of ${s.name}`), { anchor: `x${suffix}`, domain: [Math.max(0, top - h), top], rangemode: "tozero" });
  });
  const legend = data.some((t) => t.showlegend !== false);
  return {
    data,
    layout: baseLayout(plotlyText(`Length of the texts in ${unit}, each kind with its own bins`), {
      ...layout,
      bargap: 0,
      height: 140 + 240 * Math.max(1, series.length) + (legend ? 30 : 0),
      showlegend: legend,
      ...(legend ? { legend: LEGEND } : {}),
    }),
  };
}
