/** The look every figure shares (fonts, titles, axes, the bottom legend) and the types of a plotly spec. */
import { formatFixed } from "../util/format-fixed";
import type { RowLike } from "../util/csv";
export type { RowLike };
export type Trace = Record<string, unknown>;
/** A plotly layout; the title is always the plotly.js 3 object form. */
export type Layout = { title: { text: string; [key: string]: unknown }; [key: string]: unknown };
export type Figure = { data: Trace[]; layout: Layout };

const FONT = { family: "system-ui, -apple-system, 'Segoe UI', Roboto, 'Noto Sans', Arial, sans-serif", size: 13 };
export const fmt4 = (x: number): string => formatFixed(x, 4);

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

export function powerOfTen(k: number): string {
  return k === 0 ? "1" : k === 1 ? "10" : `10<sup>${k < 0 ? "\u2212" : ""}${Math.abs(k)}</sup>`;
}

const visibleLength = (s: string) => s.replace(/&[a-z#0-9]+;/gi, "x").replace(/<[^>]*>/g, "").length;

/** Plotly's pseudo-HTML in lines of at most `max` visible characters (plotly wraps no title); long words cut after `:+/-_`. */
export function wrapPlotlyText(text: string, max = 110): string[] {
  // A space inside a tag (<span style="…">) is no place to break: held as U+0000 until the lines are made.
  const held = text.replace(/<[^>]*>/g, (tag) => tag.replace(/ /g, "\u0000"));
  const lines: string[] = [];
  for (const given of held.split(/<br\s*\/?>/i)) {
    let line = "";
    for (const word of given.split(" ").flatMap((w) => cutWord(w, max))) {
      if (line && visibleLength(line) + 1 + visibleLength(word) > max) {
        lines.push(line);
        line = word;
      } else line = line ? `${line} ${word}` : word;
    }
    lines.push(line);
  }
  return lines.map((l) => l.replace(/\u0000/g, " "));
}

/** A word longer than `max` in pieces of at most `max` cut after `:+/-_` (none inside a tag or an entity). */
function cutWord(word: string, max: number): string[] {
  if (visibleLength(word) <= max || /[<&]/.test(word)) return [word];
  const pieces: string[] = [];
  for (const part of word.split(/(?<=[:+/_-])/)) {
    const last = pieces.length - 1;
    if (last >= 0 && pieces[last].length + part.length <= max) pieces[last] += part;
    else pieces.push(part);
  }
  return pieces;
}

/** A label in at most `lines` lines of `max` characters, its end cut with "…" (the hover has it whole). */
export function shortLabel(text: string, max: number, lines: number): string {
  const cut = (line: string) => {
    // Visible characters one by one (an entity is one), to cut none in half.
    const units = line.match(/&[a-z#0-9]+;|<[^>]*>|[\s\S]/giu) ?? [];
    let out = "";
    let n = 0;
    for (const u of units) {
      if (!u.startsWith("<")) n++;
      if (n > max - 1) break;
      out += u;
    }
    return `${out.trimEnd()}…`;
  };
  const wrapped = wrapPlotlyText(text, max).map((l) => (visibleLength(l) > max ? cut(l) : l));
  if (wrapped.length <= lines) return wrapped.join("<br>");
  const kept = wrapped.slice(0, lines);
  kept[lines - 1] = visibleLength(kept[lines - 1]) >= max ? cut(kept[lines - 1]) : `${kept[lines - 1]}…`;
  return kept.join("<br>");
}

/** Colours that mean one role in every figure: the oracle upper bound, the cross-validated row, stand-ins, plain results. */
export const ROLE_COLOURS = { oracle: "#d97706", tuned: "#0f766e", standIn: "#9ca3af", result: "#334155" } as const;

const EXPERIMENT_PALETTE = ["#2563eb", "#dc2626", "#7c3aed", "#16a34a", "#db2777", "#92400e", "#0e7490", "#4d7c0f", "#9d174d", "#1e3a8a"];

/** Each experiment's colour, the same in every figure: its role's, else the palette in the order of `ids`. */
export function experimentColours(ids: readonly string[], marks: { tuning(id: string): "oracle" | "tuned" | undefined }): (id: string) => string {
  const plain = [...new Set(ids)].filter((id) => !marks.tuning(id));
  return (id) => {
    const kind = marks.tuning(id);
    if (kind) return ROLE_COLOURS[kind];
    const k = plain.indexOf(id);
    return EXPERIMENT_PALETTE[(k < 0 ? plain.length : k) % EXPERIMENT_PALETTE.length];
  };
}

/** A note on the plot's top edge, below the title (lines wrapped by the caller), and the margin it needs. */
export function noteAbovePlot(lines: readonly string[], top = 66): { annotations?: Record<string, unknown>[]; margin: Record<string, number> } {
  const margin = { l: 60, r: 30, t: top + 18 * lines.length, b: 60 };
  if (!lines.length) return { margin };
  const note = { text: lines.join("<br>"), xref: "paper", yref: "paper", x: 0, y: 1, xanchor: "left", yanchor: "bottom", yshift: 6, align: "left", showarrow: false, font: { size: 12, color: "#4b5563" } };
  return { annotations: [note], margin };
}

export function emptyFigure(title: string, message: string, extra: Record<string, unknown> = {}): Figure {
  const annotations = [{ text: message, showarrow: false, xref: "paper", yref: "paper", x: 0.5, y: 0.5 }];
  return { data: [], layout: baseLayout(title, { xaxis: { visible: false }, yaxis: { visible: false }, annotations, ...extra }) };
}

export function isNoteAbovePlot(a: Record<string, unknown>): boolean {
  return a.yref === "paper" && typeof a.y === "number" && a.y >= 1 && a.yanchor === "bottom";
}
