/** The look every figure shares (fonts, titles, axes, the bottom legend) and the types of a plotly spec. */
import { formatFixed } from "./format";

/** A row of any of our tables, keyed by column name. */
export type RowLike = Readonly<Record<string, unknown>>;
/** One plotly trace (plain JSON). */
export type Trace = Record<string, unknown>;
/** A plotly layout; the title is always the plotly.js 3 object form. */
export interface Layout {
  title: { text: string; [key: string]: unknown };
  [key: string]: unknown;
}
export interface Figure {
  data: Trace[];
  layout: Layout;
}

const FONT = { family: "system-ui, -apple-system, 'Segoe UI', Roboto, 'Noto Sans', Arial, sans-serif", size: 13 };
/** A metric value as the figures print it: four decimals, rounded half to even. */
export const fmt4 = (x: number): string => formatFixed(x, 4);

/** The layout every figure starts from: the title at the top left, the house font, white. */
export function baseLayout(title: string, extra: Record<string, unknown> = {}): Layout {
  return {
    title: { text: title, x: 0, xref: "container", xanchor: "left", pad: { l: 14 }, font: { size: 16 } },
    font: FONT,
    paper_bgcolor: "white",
    plot_bgcolor: "white",
    margin: { l: 60, r: 30, t: 60, b: 60 },
    ...extra,
  };
}

/** An axis with a title, room for its labels and light grid lines. */
export function axis(title: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { title: { text: title }, automargin: true, gridcolor: "#e5e7eb", zerolinecolor: "#9ca3af", ...extra };
}

/** Bottom legend placed against the container, so plotly reserves it a margin (at y < 0 it hits long tick labels). */
export const LEGEND = { orientation: "h", x: 0, xref: "paper", xanchor: "left", y: 0, yref: "container", yanchor: "bottom", traceorder: "normal" };

/** For plotly's pseudo-HTML text: `&<>` as entities, `%{` broken up, so `a<b>` or `x%{y}` shows as written. */
export function plotlyText(s: string): string {
  return s.replace(/[&<>]/g, (c) => (c === "&" ? "&amp;" : c === "<" ? "&lt;" : "&gt;")).replace(/%\{/g, "%&#123;");
}

/** Plotly's pseudo-HTML as plain text (an image's alternative text): breaks as spaces, tags dropped, `plotlyText`'s entities read back. */
export function plotlyPlain(s: string): string {
  const ENTITIES: Record<string, string> = { lt: "<", gt: ">", amp: "&", "#123": "{" };
  return s
    .replace(/<br\s*\/?>/gi, " ")
    .replace(/<[^>]*>/g, "")
    .replace(/&(lt|gt|amp|#123);/g, (_m, e: string) => ENTITIES[e]);
}

/** Pixels a bottom legend of these names takes: one row if it fits, else a grid (7 px a char of the 13 px font). */
export function legendHeight(names: readonly string[], width = 1000): number {
  if (!names.length) return 0;
  const widths = names.map((n) => 40 + 7 * n.replace(/&[a-z#0-9]+;/gi, "x").length);
  const total = widths.reduce((a, b) => a + b, 0);
  const perRow = total <= width ? names.length : Math.max(1, Math.floor(width / Math.max(...widths)));
  return 22 * Math.ceil(names.length / perRow) + 10;
}

/** Metric axis fitted to the values: span ± max(0.02, a tenth), within 0…1.05, from 0 if it would start below 0.1. */
export function fittedRange(values: readonly number[]): [number, number] {
  const finite = values.filter((v) => Number.isFinite(v));
  if (!finite.length) return [0, 1];
  const min = Math.min(...finite);
  const max = Math.max(...finite);
  const pad = Math.max(0.02, 0.1 * (max - min));
  const lo = min - pad < 0.1 ? 0 : min - pad;
  const hi = Math.min(1.05, max + pad);
  return [round4(lo), round4(Math.max(hi, lo + 0.05))];
}

const round4 = (x: number) => Math.round(x * 1e4) / 1e4;

/** 10^k as a log axis' tick label: 1, 10, else 10 with a superscript (a true minus sign). */
export function powerOfTen(k: number): string {
  return k === 0 ? "1" : k === 1 ? "10" : `10<sup>${k < 0 ? "\u2212" : ""}${Math.abs(k)}</sup>`;
}

/**
 * Plotly's pseudo-HTML text cut into lines of at most `max` characters at spaces (plotly wraps neither annotations nor
 * titles; an entity such as `&lt;` counts as one character; a word longer than a line stays whole); lines the text
 * already breaks with `<br>` are kept.
 */
export function wrapPlotlyText(text: string, max = 110): string[] {
  const visible = (s: string) => s.replace(/&[a-z#0-9]+;/gi, "x").replace(/<[^>]*>/g, "").length;
  const lines: string[] = [];
  for (const given of text.split(/<br\s*\/?>/i)) {
    let line = "";
    for (const word of given.split(" ")) {
      if (line && visible(line) + 1 + visible(word) > max) {
        lines.push(line);
        line = word;
      } else line = line ? `${line} ${word}` : word;
    }
    lines.push(line);
  }
  return lines;
}

/** A note between the title and the plot: its lines (wrapped by the caller) standing on the plot's top edge. */
export function noteAbovePlot(lines: readonly string[]): Record<string, unknown> {
  return { text: lines.join("<br>"), xref: "paper", yref: "paper", x: 0, y: 1, xanchor: "left", yanchor: "bottom", yshift: 6, align: "left", showarrow: false, font: { size: 12, color: "#4b5563" } };
}

/** Whether an annotation stands on the plot's top edge, as `noteAbovePlot` places it. */
export function isNoteAbovePlot(a: Record<string, unknown>): boolean {
  return a.yref === "paper" && typeof a.y === "number" && a.y >= 1 && a.yanchor === "bottom";
}
