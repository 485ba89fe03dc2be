/** Figures sized for a paper: a layout over each figure's own so that, printed at its width, no text is under 8 pt. */
import { isNoteAbovePlot, legendHeight, shortLabel, wrapPlotlyText, type Figure, type Layout } from "./figure-style";

export type PaperWidth = "column" | "page" | number;

/** Inches of the named widths: ACM's column is 3.33 in, IEEE's 3.5 in (ACL's 3.03 in: ask for 3); text about 7 in. */
export const PAPER_INCHES: Readonly<Record<"column" | "page", number>> = { column: 3.3, page: 7 };

/** Plotly's sizes are CSS pixels: 96 to the inch, so 1 px prints as 0.75 pt at the figure's width. */
export const PX_PER_INCH = 96;

/** The smallest text a figure may print at (points): the usual floor of journal and conference guidelines. */
export const MIN_FONT_PT = 8;

export const PRINT_DPI = 300;

/** Fonts with the metrics of Helvetica, found on every system (Liberation Sans and Nimbus Sans on Linux). */
const PAPER_FONT_FAMILY = "Helvetica, Arial, 'Liberation Sans', 'Nimbus Sans', 'DejaVu Sans', sans-serif";

const MAX_HEIGHT_IN = 9;

export function paperInches(width: PaperWidth): number {
  const inches = typeof width === "number" ? width : PAPER_INCHES[width];
  if (!(Number.isFinite(inches) && inches >= 1 && inches <= 20)) throw new RangeError(`a figure width must be from 1 to 20 inches, got ${width}`);
  return inches;
}

const LINE = 1.3;

const px = (pt: number) => (pt * PX_PER_INCH) / 72;

/** Pixels of one line of legend entries, and of the legend: entries side by side as far as they fit the width. */
function legendPixels(names: readonly string[], width: number, font: number): number {
  if (!names.length) return 0;
  const lines = names.map((n) => n.split("<br>"));
  const entry = Math.max(...lines.map((ls) => 40 + 0.55 * font * Math.max(...ls.map((l) => l.length))));
  const perRow = Math.max(1, Math.floor(width / entry));
  let px = 10;
  for (let i = 0; i < lines.length; i += perRow) px += Math.max(...lines.slice(i, i + perRow).map((ls) => ls.length)) * font * LINE + 6;
  return Math.ceil(px);
}

/** The category axes of a layout (its own `type: "category"`), each with the categories its traces draw, in order. */
function categoryAxes(fig: Figure): { key: string; letter: "x" | "y"; categories: string[] }[] {
  const found: { key: string; letter: "x" | "y"; categories: string[] }[] = [];
  for (const [key, value] of Object.entries(fig.layout)) {
    const m = /^([xy])axis(\d*)$/.exec(key);
    const ax = value as Record<string, unknown> | undefined;
    if (!m || ax?.type !== "category") continue;
    const letter = m[1] as "x" | "y";
    const ref = `${letter}${m[2]}`;
    const seen = new Set<string>(Array.isArray(ax.categoryarray) ? (ax.categoryarray as unknown[]).map(String) : []);
    for (const t of fig.data) if ((t[`${letter}axis`] ?? letter) === ref && Array.isArray(t[letter])) for (const v of t[letter] as unknown[]) seen.add(String(v));
    found.push({ key, letter, categories: [...seen] });
  }
  return found;
}

/** The figure laid out for print: text wrapped to the width, none under 8 pt, a height that holds it all. */
export function paperFigure(fig: Figure, opts: { width?: PaperWidth; title?: boolean } = {}) {
  const inches = paperInches(opts.width ?? "page");
  const width = Math.round(inches * PX_PER_INCH);
  // 11 px is 8.25 pt: the floor with a little room; across the page there is room for 9 pt.
  const font = inches < 5 ? 11 : 12;
  const own = fig.layout as Layout;
  const ownHeight = typeof own.height === "number" && own.height > 0 ? own.height : 450;
  const keepTitle = opts.title !== false && Boolean(own.title?.text);
  const titleFont = font + 1;
  const chars = (size: number) => Math.floor((width - 8) / (0.55 * size));
  // One size for the whole title: a size a figure gives part of it (a smaller second line) is the screen's.
  const titleText = String(own.title?.text ?? "").replace(/font-size:\s*[\d.]+px;?/g, "");
  // Notes above the plot join the title, which spans the figure (anchored at the plot, they ran past its edge).
  const given = (own.annotations ?? []) as Record<string, unknown>[];
  const noteText = given.filter(isNoteAbovePlot).map((a) => String(a.text ?? "").replace(/<br\s*\/?>/gi, " ")).join(" ");
  const titleLines = [...(keepTitle ? wrapPlotlyText(titleText, chars(titleFont)) : []), ...(noteText ? wrapPlotlyText(`<span style="color:#4b5563">${noteText}</span>`, chars(titleFont)) : [])];
  const titleHeight = titleLines.length ? Math.ceil(titleLines.length * titleFont * LINE) + 12 : 0;
  // A legend entry is one line that plotly never wraps: a long name would run off the figure's edge.
  const nameChars = Math.floor((width - 50) / (0.55 * font));
  const data = fig.data.map((trace) => {
    let t = trace;
    if (typeof t.name === "string" && t.showlegend !== false) t = { ...t, name: wrapPlotlyText(t.name, nameChars).join("<br>") };
    // Cells that write their numbers need no colour bar (a third of a column); another has its title along it.
    if (t.colorbar && t.showscale !== false) {
      const bar = t.colorbar as Record<string, unknown> & { title?: { text?: string } };
      t = t.texttemplate ? { ...t, showscale: false } : { ...t, colorbar: { ...bar, thickness: 10, title: { ...bar.title, text: shortLabel(String(bar.title?.text ?? "").replace(/<br\s*\/?>/gi, " "), 40, 1), side: "right" } } };
    }
    if (t.type === "heatmap" && t.texttemplate) t = { ...t, textfont: { ...(t.textfont as object), size: font } };
    return t;
  });
  const legendNames = own.showlegend === false ? [] : data.filter((t) => t.showlegend !== false && typeof t.name === "string" && t.name).map((t) => String(t.name));
  const legend = own.legend && legendNames.length > (own.showlegend === true ? 0 : 1) ? legendPixels(legendNames, width, font) : 0;
  const ownLegend = legend ? legendHeight(fig.data.filter((t) => t.showlegend !== false && typeof t.name === "string" && t.name).map((t) => String(t.name))) : 0;
  const axes: Record<string, unknown> = {};
  let rowsNeed = 0;
  for (const { key, letter, categories } of categoryAxes(fig)) {
    const ax = own[key] as Record<string, unknown>;
    const ticks = Array.isArray(ax.tickvals) && Array.isArray(ax.ticktext) ? new Map((ax.tickvals as unknown[]).map((v, i) => [String(v), String((ax.ticktext as unknown[])[i])])) : undefined;
    const labels = categories.map((c) => ticks?.get(c) ?? c);
    const plotWidth = width * ((own.yaxis as { type?: unknown } | undefined)?.type === "category" ? 0.5 : 0.8);
    const share = fig.data.some((t) => t.type === "heatmap" && t.texttemplate) ? 0.3 : 0.4;
    const room = letter === "y" ? Math.floor((width * share) / (0.55 * font)) : Math.floor(plotWidth / Math.max(1, categories.length) / (0.55 * font)) - 1;
    // Short words that do not fit side by side (metric names) stand upright; longer ones are wrapped, level.
    const upright = letter === "x" && labels.some((l) => l.length > room) && labels.every((l) => l.length <= 12 && !l.includes(" "));
    const text = upright ? labels : labels.map((l) => shortLabel(l, Math.max(6, room), 4));
    axes[key] = { ...ax, tickmode: "array", tickvals: categories, ticktext: text, automargin: true, ...(letter === "x" ? { tickangle: upright ? -90 : 0 } : {}) };
    if (letter === "y") rowsNeed = Math.max(rowsNeed, text.reduce((sum, t) => sum + t.split("<br>").length * font * LINE + 8, 0));
  }
  const ownTop = Number((own.margin as { t?: number } | undefined)?.t ?? 60);
  const plot = Math.max(width * 0.4, rowsNeed, ((ownHeight - ownTop - ownLegend) * font) / 13);
  for (const [key, value] of Object.entries(own)) {
    const m = /^([xy])axis\d*$/.exec(key);
    const title = (value as { title?: { text?: unknown } } | undefined)?.title;
    if (!m || typeof title?.text !== "string" || !title.text) continue;
    const ax = (axes[key] ?? value) as Record<string, unknown>;
    const room = Math.floor(((m[1] === "x" ? 0.9 * width : 0.9 * plot) - 20) / (0.55 * font));
    axes[key] = { ...ax, title: { ...title, text: wrapPlotlyText(title.text, room).join("<br>") } };
  }
  // Room under the plot for the x axis' labels and title (automargin takes it from the plot otherwise).
  const axisRoom = 3 * font * LINE;
  const height = Math.round(Math.min(MAX_HEIGHT_IN * PX_PER_INCH, titleHeight + 6 + plot + axisRoom + legend + 4));
  const layout: Layout = {
    ...own,
    ...axes,
    // A title of several lines anchored at the top still starts half a line above the edge (measured in Chromium).
    title: titleLines.length
      ? {
          ...own.title,
          text: titleLines.join("<br>"),
          font: { size: titleFont },
          x: 0,
          xref: "container",
          xanchor: "left",
          y: 1,
          yref: "container",
          yanchor: "top",
          pad: { l: 2, t: 4 + (titleLines.length > 1 ? 0.6 * titleFont * LINE : 0) },
        }
      : { text: "" },
    annotations: given.filter((a) => !isNoteAbovePlot(a)),
    font: { family: PAPER_FONT_FAMILY, size: font, color: "#000000" },
    width,
    height,
    autosize: false,
    margin: { l: 4, r: 10, t: titleHeight + 6, b: 4, pad: 0 },
    // A bar's inside label that would shrink below the floor is left out (the axis still tells the value).
    uniformtext: { minsize: Math.ceil(px(MIN_FONT_PT)), mode: "hide" },
  };
  return { figure: { data, layout }, width, height };
}
