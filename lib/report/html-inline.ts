/**
 * What goes inline into the self-contained report page: text for HTML, JSON for <script>
 * blocks, script sources defused for inlining, and the pinned plotly.js bundle so prepared.
 *
 * Escaping: text goes into HTML through `escapeHtml`; data goes into JSON blocks through
 * `jsonForScript`, which writes `<`, `>`, `&`, U+2028 and U+2029 as \u escapes, so neither a
 * Greek apostrophe (’), quotes nor `</script>` in an experiment name or reason can end a block
 * or break a string early; the inlined bundle has `</script` and `<!--` defused the same way.
 */
import { readFileSync } from "node:fs";
import path from "node:path";

/**
 * Text for HTML element content or a quoted attribute value.
 *
 * @example
 * escapeHtml(`Άρθρο 5 «ΑΚ» & "x" <b>’`); // "Άρθρο 5 «ΑΚ» &amp; &quot;x&quot; &lt;b&gt;’"
 */
export function escapeHtml(value: unknown): string {
  return String(value ?? "").replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!);
}

/**
 * JSON that is safe inside an HTML <script> element: `<`, `>` and `&` (and the JavaScript line
 * separators U+2028/U+2029) are written as \u escapes, which JSON.parse reads back unchanged.
 *
 * @example
 * jsonForScript({ name: "a</script>’" }); // '{"name":"a\\u003c/script\\u003e’"}'
 */
export function jsonForScript(value: unknown): string {
  return JSON.stringify(value)
    .replace(/</g, "\\u003c")
    .replace(/>/g, "\\u003e")
    .replace(/&/g, "\\u0026")
    .replace(/\u2028/g, "\\u2028")
    .replace(/\u2029/g, "\\u2029");
}

/**
 * JavaScript source made safe to inline in a <script> element: every `</script` (any case)
 * becomes `<\/script` and every `<!--` becomes `<\!--`, which mean the same inside the string
 * literals, regular expressions and comments where they can occur, but can no longer close
 * the element or switch the HTML parser into its escaped-script states.
 *
 * @example
 * inlineScriptSource('var s = "</script>";'); // 'var s = "<\\/script>";'
 */
export function inlineScriptSource(source: string): string {
  return source.replace(/<\/(script)/gi, "<\\/$1").replace(/<!--/g, "<\\!--");
}

// ---------------------------------------------------------------------------------------------
// Plotly bundle

let plotlyCache: { source: string; version: string } | undefined;

/**
 * The pinned plotly.js-dist bundle (read once per process) and its version.
 *
 * @example
 * plotlyBundle().version; // "3.7.0"
 */
export function plotlyBundle(): { source: string; version: string } {
  if (!plotlyCache) {
    const file = require.resolve("plotly.js-dist/plotly.js");
    const pkg = JSON.parse(readFileSync(path.join(path.dirname(file), "package.json"), "utf8")) as { version: string };
    plotlyCache = { source: inlineScriptSource(readFileSync(file, "utf8")), version: pkg.version };
  }
  return plotlyCache;
}
