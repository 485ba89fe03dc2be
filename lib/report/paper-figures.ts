/**
 * Figures sized for a paper: a layout laid over each figure's own (never changing the interactive one) so that, printed
 * one column wide in a two-column paper (3.3 in) or across the page (7 in), no text is smaller than 8 pt.
 */
import { isNoteAbovePlot, wrapPlotlyText, type Figure, type Layout } from "./figure-style";

/** One column of a two-column paper, the whole text width, or a width in inches. */
export type PaperWidth = "column" | "page" | number;

/** Inches of the named widths: ACM's column is 3.33 in, IEEE's 3.5 in (ACL's 3.03 in: ask for 3); text about 7 in. */
export const PAPER_INCHES: Readonly<Record<"column" | "page", number>> = { column: 3.3, page: 7 };

/** Plotly's sizes are CSS pixels: 96 to the inch, so 1 px prints as 0.75 pt at the figure's width. */
export const PX_PER_INCH = 96;

/** The smallest text a figure may print at (points): the usual floor of journal and conference guidelines. */
export const MIN_FONT_PT = 8;

/** Resolution of exported PNG files: print quality. */
export const PRINT_DPI = 300;

/** Fonts with the metrics of Helvetica, found on every system (Liberation Sans and Nimbus Sans on Linux). */
export const PAPER_FONT_FAMILY = "Helvetica, Arial, 'Liberation Sans', 'Nimbus Sans', 'DejaVu Sans', sans-serif";

/** The longest a figure may be: a page's text height. */
const MAX_HEIGHT_IN = 9;

export interface PaperOptions {
  /** How wide it is printed (default "page"). */
  width?: PaperWidth;
  /** Keep the figure's title (default true); false leaves it to the caption. */
  title?: boolean;
}

/** A figure ready to export: the layout to draw it with, and its size in CSS pixels. */
export interface PaperFigure {
  figure: Figure;
  width: number;
  height: number;
}

/** The width in inches, refusing what no paper has. */
export function paperInches(width: PaperWidth): number {
  const inches = typeof width === "number" ? width : PAPER_INCHES[width];
  if (!(Number.isFinite(inches) && inches >= 1 && inches <= 20)) throw new RangeError(`a figure width must be from 1 to 20 inches, got ${width}`);
  return inches;
}

/** Line height of plotly's text, in font sizes. */
const LINE = 1.3;

/** Pixels of font for a size in points. */
const px = (pt: number) => (pt * PX_PER_INCH) / 72;

/**
 * The figure laid out for print: the paper font (8.25 pt in a column, 9 pt across the page; titles 1 pt larger,
 * wrapped to the width, as are legend entries), tight margins (axes make their own room), bar labels hidden rather than shrunk below 8 pt,
 * and a height scaled from the figure's own by the smaller font, within half the width and a page's height.
 */
export function paperFigure(fig: Figure, opts: PaperOptions = {}): PaperFigure {
  const inches = paperInches(opts.width ?? "page");
  const width = Math.round(inches * PX_PER_INCH);
  // 11 px is 8.25 pt: the floor with a little room; across the page there is room for 9 pt.
  const font = inches < 5 ? 11 : 12;
  const own = fig.layout as Layout;
  const ownHeight = typeof own.height === "number" && own.height > 0 ? own.height : 450;
  const height = Math.round(Math.min(MAX_HEIGHT_IN * PX_PER_INCH, Math.max(width / 2, (ownHeight * font) / 13)));
  const keepTitle = opts.title !== false && Boolean(own.title?.text);
  const titleFont = font + 1;
  const chars = (size: number) => Math.floor((width - 8) / (0.55 * size));
  const titleLines = keepTitle ? wrapPlotlyText(own.title.text, chars(titleFont)) : [];
  // Notes between the title and the plot (annotations standing on its top edge), rewrapped to the paper's width.
  const notes = ((own.annotations ?? []) as Record<string, unknown>[]).map((a) =>
    // Their lines were broken for the interactive width: one paragraph again, broken for the paper's.
    isNoteAbovePlot(a) ? { ...a, text: wrapPlotlyText(String(a.text ?? "").replace(/<br\s*\/?>/gi, " "), chars(font)).join("<br>"), font: { ...(a.font as object), size: font } } : a,
  );
  const noteLines = Math.max(0, ...notes.filter(isNoteAbovePlot).map((a) => String(a.text).split("<br>").length));
  const notesHeight = noteLines ? Math.ceil(noteLines * font * LINE) + 8 : 0;
  const titleHeight = keepTitle ? Math.ceil(titleLines.length * titleFont * LINE) + 10 : 0;
  const layout: Layout = {
    ...own,
    // At the top of the figure. Plotly centres a title of several lines on its anchor before anchoring it at the top,
    // which leaves its first lines above the figure: half a line per line after the first makes up for it.
    title: keepTitle
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
          pad: { l: 2, t: 4 + ((titleLines.length - 1) * titleFont * LINE) / 2 },
        }
      : { text: "" },
    annotations: notes,
    font: { family: PAPER_FONT_FAMILY, size: font, color: "#000000" },
    width,
    height,
    autosize: false,
    margin: { l: 4, r: 10, t: titleHeight + notesHeight + 6, b: 4, pad: 0 },
    // A bar's inside label that would shrink below the floor is left out (the axis still tells the value).
    uniformtext: { minsize: Math.ceil(px(MIN_FONT_PT)), mode: "hide" },
  };
  // A legend entry is one line that plotly never wraps: a long name would run off the figure's edge.
  const nameChars = Math.floor((width - 50) / (0.55 * font));
  const data = fig.data.map((trace) => (typeof trace.name === "string" && trace.showlegend !== false ? { ...trace, name: wrapPlotlyText(trace.name, nameChars).join("<br>") } : trace));
  return { figure: { data, layout }, width, height };
}
