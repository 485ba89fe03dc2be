/**
 * The look every figure shares (fonts, titles, axes, the legend below the plot) and the types
 * of a plotly spec: used by the report's and the notebooks' figures (./figures.ts) and the
 * error analysis figures (./analysis-figures.ts).
 */
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
/** A plotly figure spec. */
export interface Figure {
  data: Trace[];
  layout: Layout;
}

const FONT = { family: "system-ui, -apple-system, 'Segoe UI', Roboto, 'Noto Sans', Arial, sans-serif", size: 13 };
/**
 * A metric value as the figures print it: four decimals, rounded half to even.
 */
export const fmt4 = (x: number): string => formatFixed(x, 4);

/**
 * The layout every figure starts from: the title at the top left, the house font, white.
 */
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

/**
 * An axis with a title, room for its labels and light grid lines.
 */
export function axis(title: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { title: { text: title }, automargin: true, gridcolor: "#e5e7eb", zerolinecolor: "#9ca3af", ...extra };
}

/**
 * The legend of every figure: horizontal (wrapping as needed, within the plot area's width) at
 * the bottom of the figure, positioned against the container rather than the plot area. Placed
 * so, plotly reserves its height as a margin of its own, below the axis labels and title that
 * automargin has already made room for; a legend placed in plot-area units (y < 0) instead sits
 * wherever that fraction lands and runs into long or rotated tick labels.
 */
export const LEGEND = { orientation: "h", x: 0, xref: "paper", xanchor: "left", y: 0, yref: "container", yanchor: "bottom", traceorder: "normal" };

/**
 * Text for plotly's own text fields (trace names, category labels, point labels, hover
 * templates). Plotly reads them as pseudo-HTML (`<br>`, `<b>`, entities) and hover templates
 * also expand `%{…}`; an experiment named `a<b>` or `x%{y}` must show as written, so `&`, `<`,
 * `>` become entities (which plotly decodes for display) and `%{` is broken up.
 */
export function plotlyText(s: string): string {
  return s.replace(/[&<>]/g, (c) => (c === "&" ? "&amp;" : c === "<" ? "&lt;" : "&gt;")).replace(/%\{/g, "%&#123;");
}
