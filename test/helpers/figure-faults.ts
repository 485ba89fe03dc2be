/**
 * What a reader sees wrong in a drawn figure, measured in the browser: plotly's pseudo-HTML shown as text (a tag or
 * an entity), text cut by the figure's edge, and two pieces of text drawn over each other. Used on exported SVGs
 * (render-figure.test.ts) and on the report page's figures (report-browser.test.ts).
 */
import type { Page } from "playwright-core";

/** The faults of one figure, each a line naming the text at fault. */
export interface FigureFaults {
  markup: string[];
  clipped: string[];
  overlaps: string[];
  /** Texts drawn (non-empty), to check a test looks at something. */
  texts: number;
}

/**
 * Browser code: the faults of the figure inside `root` (an element holding plotly's SVG layers). Text boxes are the
 * browser's own; a box must lie inside the root's, and two boxes may touch but not cover each other by more than a
 * pixel (a heatmap cell's text and its neighbour, a title and a tick label, a label and a legend entry).
 */
const FAULTS_IN = `(root) => {
  const edge = root.getBoundingClientRect();
  const texts = Array.from(root.querySelectorAll("text")).filter((t) => (t.textContent || "").trim() && t.getAttribute("visibility") !== "hidden" && getComputedStyle(t).opacity !== "0");
  const boxes = texts.map((t) => ({ text: (t.textContent || "").trim(), r: t.getBoundingClientRect() })).filter((b) => b.r.width > 0 && b.r.height > 0);
  const markup = boxes.filter((b) => /<\\/?[a-z]+[\\s>\\/]|style=|&(lt|gt|amp|#\\d+);/i.test(b.text)).map((b) => b.text);
  const clipped = boxes
    .filter((b) => b.r.left < edge.left - 1 || b.r.right > edge.right + 1 || b.r.top < edge.top - 1 || b.r.bottom > edge.bottom + 1)
    .map((b) => b.text + " at " + [b.r.left - edge.left, b.r.top - edge.top, b.r.right - edge.left, b.r.bottom - edge.top].map(Math.round).join(",") + " in " + Math.round(edge.width) + "x" + Math.round(edge.height));
  const overlaps = [];
  const pieces = boxes;
  for (let i = 0; i < pieces.length; i++) {
    for (let j = i + 1; j < pieces.length; j++) {
      const a = pieces[i].r, b = pieces[j].r;
      const w = Math.min(a.right, b.right) - Math.max(a.left, b.left);
      const h = Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top);
      if (w > 1.5 && h > 1.5) overlaps.push(pieces[i].text + " | " + pieces[j].text);
    }
  }
  return { markup, clipped, overlaps, texts: boxes.length };
}`;

/** The faults of an SVG file's text: the SVG put alone in the page, at its own size, and measured. */
export async function svgFaults(page: Page, svg: string): Promise<FigureFaults> {
  return (await page.evaluate(`(() => {
    document.body.style.margin = "0";
    document.body.innerHTML = ${JSON.stringify(svg)};
    return (${FAULTS_IN})(document.querySelector("svg"));
  })()`)) as FigureFaults;
}

/** The faults of each figure drawn in the page (report.html's `div.figure`s), by its `data-name`. */
export async function pageFigureFaults(page: Page): Promise<Record<string, FigureFaults>> {
  return (await page.evaluate(`(() => {
    const faults = ${FAULTS_IN};
    return Object.fromEntries(Array.from(document.querySelectorAll("div.figure")).map((d) => [d.getAttribute("data-name"), faults(d.querySelector(".svg-container") || d)]));
  })()`)) as Record<string, FigureFaults>;
}

/** The faults in words, one figure per line (empty when there are none). */
export function describeFaults(name: string, f: FigureFaults): string[] {
  return [...f.markup.map((t) => `${name}: raw markup '${t}'`), ...f.clipped.map((t) => `${name}: clipped '${t}'`), ...f.overlaps.map((t) => `${name}: overlap '${t}'`)];
}
