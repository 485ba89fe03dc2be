/** Building blocks of the report's sections; text always goes in through `escapeHtml`, data through `jsonForScript`. */
import { formatFixed } from "../util/format-fixed";
import { toNumber } from "../util/csv";
import type { Figure } from "../figures/figure-style";
import { escapeHtml, jsonForScript } from "./html-inline";
import { BEYOND_LABEL, STAND_IN_LABEL, tuningLabel, type RowMarks } from "../figures/labels";

export function num(value: unknown, digits = 4): string {
  const n = toNumber(value);
  return n === undefined ? "–" : formatFixed(n, digits);
}

export function numAuto(value: unknown, digits = 4): string {
  const n = toNumber(value);
  return n !== undefined && Number.isInteger(n) ? String(n) : num(value, digits);
}

export function pValue(value: unknown): string {
  const n = toNumber(value);
  if (n === undefined) return "–";
  return n < 0.0001 ? "&lt; 0.0001" : formatFixed(n, 4);
}

export type Cell = { html: string; cls?: string; title?: string };

export type CellLike = Cell | string;

export const text = (value: unknown, cls?: string): Cell => ({ html: escapeHtml(value), cls });

export const number = (value: unknown, digits = 4): Cell => ({ html: num(value, digits), cls: "num" });

export const count = (value: unknown, digits = 4): Cell => ({ html: numAuto(value, digits), cls: "num" });

export function table(
  header: string[],
  rows: CellLike[][],
  opts: { caption?: string; numericHeader?: boolean[]; cls?: string; rowClass?: (index: number) => string | undefined } = {},
): string {
  const head = header.map((h, i) => `<th${opts.numericHeader?.[i] ? ' class="num"' : ""}>${escapeHtml(h)}</th>`).join("");
  const body = rows
    .map((r, i) => {
      const cells = r.map((c) => {
        const cell = typeof c === "string" ? text(c) : c;
        return `<td${cell.cls ? ` class="${cell.cls}"` : ""}${cell.title ? ` title="${escapeHtml(cell.title)}"` : ""}>${cell.html}</td>`;
      });
      const cls = opts.rowClass?.(i);
      return `<tr${cls ? ` class="${cls}"` : ""}>${cells.join("")}</tr>`;
    })
    .join("\n");
  const caption = opts.caption ? `<caption>${escapeHtml(opts.caption)}</caption>` : "";
  return `<div class="table-wrap"><table${opts.cls ? ` class="${opts.cls}"` : ""}>${caption}<thead><tr>${head}</tr></thead>\n<tbody>\n${body}\n</tbody></table></div>`;
}

/** A report figure and its stable name (a file name: `gbr figures` writes `<name>.<format>`, the download button too). */
export type NamedFigure = { name: string; fig: Figure };

/** The page's figures, numbered as added: each a placeholder div plus its spec as a JSON block the page draws. */
export class FigureSet {
  readonly named: NamedFigure[] = [];
  /** Adds a figure under `name` (lower-case letters, digits and dashes, unique in the page); returns its HTML. */
  add(name: string, fig: Figure, caption?: string): string {
    if (!/^[a-z0-9]+(-[a-z0-9]+)*$/.test(name)) throw new Error(`figure name '${name}' must be lower-case letters, digits and dashes`);
    if (this.named.some((s) => s.name === name)) throw new Error(`two figures of the report are named '${name}'`);
    this.named.push({ name, fig });
    const id = `fig-${this.named.length}`;
    const cap = caption ? `<p class="fig-caption">${escapeHtml(caption)}</p>` : "";
    return (
      `<figure class="plot"><div class="figure" id="${id}" data-spec="${id}-spec" data-name="${name}" style="height:${Number(fig.layout.height) || 450}px"></div>${cap}</figure>\n` +
      `<script type="application/json" id="${id}-spec">${jsonForScript(fig)}</script>`
    );
  }
}

export const note = (html: string, cls = "note") => `<p class="${cls}">${html}</p>`;

export const code = (s: string) => `<code>${escapeHtml(s)}</code>`;

export type Section = ReturnType<typeof section>;

export function section(id: string, title: string, body: string) {
  return { id, title, html: `<section id="${id}">\n<h2>${escapeHtml(title)}</h2>\n${body}\n</section>` };
}

export function safeClass(s: string): string {
  return s.replace(/[^a-z0-9-]/gi, "-").toLowerCase();
}

export function diffCell(value: unknown): Cell {
  const d = toNumber(value);
  if (d === undefined) return { html: "–", cls: "num" };
  const cls = Math.abs(d) <= 0.02 ? "close" : Math.abs(d) <= 0.05 ? "near" : "far";
  return { html: `${d > 0 ? "+" : ""}${num(d)}`, cls: `num diff ${cls} ${d >= 0 ? "up" : "down"}` };
}

/** An experiment's name cell with its marks as badges; without any it is exactly `text(id, "name")`. */
export function experimentCell(id: string, marks: RowMarks): Cell {
  const kind = marks.tuning(id);
  const stand = marks.standIn(id);
  const beyond = marks.beyond(id);
  if (!kind && !stand && beyond === undefined) return text(id, "name");
  const badges = [
    kind ? badge(tuningLabel(kind), kind) : "",
    stand ? badge(STAND_IN_LABEL, "stand-in", "made through the project's test doubles: it shows the mechanics, not a result") : "",
    beyond !== undefined ? badge(BEYOND_LABEL, "beyond", beyond || "not in the authors' experiment list") : "",
  ].filter(Boolean);
  return { html: `${escapeHtml(id)} ${badges.join(" ")}`, cls: "name marked" };
}

export function badge(label: string, kind: string, title?: string): string {
  return `<span class="badge ${safeClass(kind)}"${title ? ` title="${escapeHtml(title)}"` : ""}>${escapeHtml(label)}</span>`;
}

/** A test's Δ (A − B) coloured by its Holm verdict at `alpha`, not by size; the class names it too (for no colour). */
export function testDeltaCell(delta: unknown, pHolm: unknown, alpha = 0.05): Cell {
  const d = toNumber(delta);
  if (d === undefined) return { html: "–", cls: "num" };
  const p = toNumber(pHolm);
  const significant = p !== undefined && p < alpha && d !== 0;
  const verdict = !significant ? "ns" : d > 0 ? "gain" : "loss";
  const title =
    p === undefined ? "no Holm-corrected p-value" : !significant ? `not significant (p Holm ≥ ${alpha})` : d > 0 ? `significant gain of A over B (p Holm < ${alpha})` : `significant loss of A against B (p Holm < ${alpha})`;
  return { html: `${d > 0 ? "+" : ""}${num(d)}`, cls: `num delta ${verdict}`, title };
}
