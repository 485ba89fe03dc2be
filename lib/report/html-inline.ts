/** What goes inline into the self-contained report page: escaped text and JSON, defused scripts, pinned plotly.js. */
import { readFileSync } from "node:fs";
import path from "node:path";

/** Text for HTML element content or a quoted attribute value. */
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

// Plotly bundle ---------------------------------------------------------------------------------

/** plotly.js's own minified builds: "cartesian" (about 1.4 MB, every figure we draw) or "full" (about 4.9 MB). */
export type PlotlyBuild = "cartesian" | "full";

/** The trace types plotly.js-cartesian-dist-min registers (its README, version 3.7.0). */
export const CARTESIAN_TRACES: ReadonlySet<string> = new Set([
  "bar",
  "box",
  "contour",
  "heatmap",
  "histogram",
  "histogram2d",
  "histogram2dcontour",
  "image",
  "pie",
  "scatter",
  "scatterternary",
  "violin",
]);

/** The smallest build that draws every trace of the figures (a trace without `type` is a scatter). */
export function plotlyBuildFor(figures: Iterable<{ data: readonly unknown[] }>): PlotlyBuild {
  for (const fig of figures) {
    for (const trace of fig.data) {
      const type = (trace as { type?: unknown } | null)?.type ?? "scatter";
      if (typeof type !== "string" || !CARTESIAN_TRACES.has(type)) return "full";
    }
  }
  return "cartesian";
}

const BUILD_FILES: Record<PlotlyBuild, string> = {
  cartesian: "plotly.js-cartesian-dist-min/plotly-cartesian.min.js",
  full: "plotly.js-dist-min/plotly.min.js",
};

const plotlyCache = new Map<PlotlyBuild, { source: string; version: string; build: PlotlyBuild }>();

/** A pinned plotly.js build (read once per process), made safe to inline, with its version. */
export function plotlyBundle(build: PlotlyBuild = "cartesian"): { source: string; version: string; build: PlotlyBuild } {
  let bundle = plotlyCache.get(build);
  if (!bundle) {
    const file = require.resolve(BUILD_FILES[build]);
    const pkg = JSON.parse(readFileSync(path.join(path.dirname(file), "package.json"), "utf8")) as { version: string };
    bundle = { source: inlineScriptSource(readFileSync(file, "utf8")), version: pkg.version, build };
    plotlyCache.set(build, bundle);
  }
  return bundle;
}
