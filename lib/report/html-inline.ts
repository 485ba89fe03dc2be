/** What goes inline into the self-contained report page: escaped text and JSON, defused scripts, pinned plotly.js. */
import { readFileSync } from "node:fs";
import path from "node:path";

export function escapeHtml(value: unknown): string {
  return String(value ?? "").replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!);
}

/** JSON safe in <script>: `<`, `>`, `&`, U+2028/9 as \u escapes, so no name (’, quotes, `</script>`) ends the block. */
export function jsonForScript(value: unknown): string {
  return JSON.stringify(value)
    .replace(/</g, "\\u003c")
    .replace(/>/g, "\\u003e")
    .replace(/&/g, "\\u0026")
    .replace(/\u2028/g, "\\u2028")
    .replace(/\u2029/g, "\\u2029");
}

/** JS safe to inline: `</script` (any case) → `<\/script`, `<!--` → `<\!--`; same meaning in strings and regexes. */
export function inlineScriptSource(source: string): string {
  return source.replace(/<\/(script)/gi, "<\\/$1").replace(/<!--/g, "<\\!--");
}

let plotly: { source: string; version: string } | undefined;

/** The pinned plotly.js cartesian build (about 1.4 MB: every trace our figures draw), read once, safe to inline. */
export function plotlyBundle(): { source: string; version: string } {
  if (!plotly) {
    const file = require.resolve("plotly.js-cartesian-dist-min/plotly-cartesian.min.js");
    const pkg = JSON.parse(readFileSync(path.join(path.dirname(file), "package.json"), "utf8")) as { version: string };
    plotly = { source: inlineScriptSource(readFileSync(file, "utf8")), version: pkg.version };
  }
  return plotly;
}
