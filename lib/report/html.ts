/**
 * The HTML report: one self-contained page per dataset folder that `gbr reproduce` wrote.
 *
 * Everything the page needs is inside it: plotly.js's own minified build inlined in a <script>
 * (the cartesian build, 1.4 MB, unless a figure needs another trace type), every table as HTML,
 * and every figure as a JSON block (`<script type="application/json">`) that a small inline
 * script hands to `Plotly.newPlot`. The page loads nothing from anywhere (no
 * CDN, no fonts, no images), so it opens offline and can be mailed or archived as one file.
 *
 * Escaping: text goes into HTML through `escapeHtml`; data goes into JSON blocks through
 * `jsonForScript`, which writes `<`, `>`, `&`, U+2028 and U+2029 as \u escapes, so neither a
 * Greek apostrophe (’), quotes nor `</script>` in an experiment name or reason can end a block
 * or break a string early; the inlined bundle has `</script` and `<!--` defused the same way.
 */
import { promises as fs } from "node:fs";
import path from "node:path";
import { toNumber } from "./csv";
import { code, FigureSet } from "./html-blocks";
import { escapeHtml, plotlyBuildFor, plotlyBundle } from "./html-inline";
import { areaSection, datasetSection, metadataSection, reproductionSection, resultsSection } from "./html-sections";
import { costSection, reactSection, significanceSection, sweepSection } from "./html-analyses";
import { CSS, DRAW } from "./html-style";
import { STAND_IN_BANNER, STAND_IN_LABEL } from "./labels";
import { isStandInReport, readReportInputs, reportMarks, type ReportInputs } from "./report-inputs";

/**
 * What a report is about, for its title: the dataset (metadata.json's, else the folder's name)
 * and, when `gbr reproduce --queries FILE` wrote the folder as `<dataset>--<queries file>`, the
 * queries file, as "greeklaws-2021 — queries-sample".
 */
export function reportSubject(outDir: string, metadata: Record<string, unknown> | undefined): string {
  const folder = path.basename(path.resolve(outDir));
  const named = typeof metadata?.dataset === "string" && metadata.dataset ? metadata.dataset : "";
  // The folder is "<source>--<queries file>"; the source part is the dataset's name or its
  // origin (hf, sample), so the queries file is what follows the dataset's name, else the first "--".
  const cut = named && folder.startsWith(`${named}--`) ? named.length : folder.indexOf("--");
  const queries = cut > 0 ? folder.slice(cut + 2) : "";
  const dataset = named || (cut > 0 ? folder.slice(0, cut) : folder);
  return queries ? `${dataset} — ${queries}` : dataset;
}

/** The banner above everything when the numbers (some or all) come from the test doubles. */
function standInBanner(inp: ReportInputs): string {
  if (!isStandInReport(inp)) return "";
  const marks = reportMarks(inp);
  const ids = inp.summary.filter((r) => r.status === "ok" && marks.standIn(r.experiment)).map((r) => r.experiment);
  const stated = typeof inp.metadata?.standInNote === "string" ? inp.metadata.standInNote : "";
  const which = ids.length ? `Rows marked “${STAND_IN_LABEL}” (${ids.length} of ${inp.summary.filter((r) => r.status === "ok").length} that ran): ${ids.map(code).join(", ")}.` : "";
  const detail = [escapeHtml(stated), which].filter(Boolean).join(" ");
  return `<div class="banner stand-in" role="alert"><strong>${escapeHtml(STAND_IN_BANNER)}</strong>${detail ? `<p>${detail}</p>` : ""}</div>`;
}

/**
 * The report for one dataset folder of `gbr reproduce` outputs, as one self-contained HTML
 * page (plotly.js inlined, no external URL loaded). Sections: run metadata, dataset statistics
 * (Tables 1 and 6), results, reproduction (paper vs ours), per-area breakdown, and, when their
 * files are present, significance, BM25 sweep, REACT rounds and cost (with quality vs cost);
 * a missing optional file gives a note in its section instead. The title names the queries
 * file when the folder is `<dataset>--<queries file>`; a banner at the top says so when the
 * numbers come from the project's test doubles.
 */
export async function buildReport(outDir: string): Promise<string> {
  const inp = await readReportInputs(outDir);
  const dataset = reportSubject(outDir, inp.metadata);
  const banner = standInBanner(inp);
  const figs = new FigureSet();
  const sections = [
    metadataSection(inp, dataset, plotlyBundle().version),
    datasetSection(inp),
    resultsSection(inp, figs),
    reproductionSection(inp),
    areaSection(inp, figs),
    significanceSection(inp, figs),
    sweepSection(inp, figs),
    reactSection(inp, figs),
    costSection(inp, figs),
  ];
  const plotly = plotlyBundle(plotlyBuildFor(figs.figures));
  const queries = toNumber(inp.metadata?.queries);
  const articles = toNumber(inp.metadata?.articles);
  const subtitle = [queries !== undefined ? `${queries} queries` : "", articles !== undefined ? `${articles} articles` : "", `${figs.count} figures`].filter(Boolean).join(" · ");
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(`GreekBarRetrieval report — ${dataset}${banner ? ` (${STAND_IN_LABEL}: test doubles)` : ""}`)}</title>
<style>${CSS}</style>
</head>
<body>
<main>
<header>
<h1>${escapeHtml(`GreekBarRetrieval reproduction — ${dataset}`)}</h1>
<p>${escapeHtml(subtitle)}</p>
${banner}</header>
<nav>${sections.map((s) => `<a href="#${s.id}">${escapeHtml(s.title)}</a>`).join("\n")}</nav>
${sections.map((s) => s.html).join("\n")}
<footer>Generated by <code>gbr report</code> on ${escapeHtml(new Date().toISOString())} from ${code(inp.dir)}. Self-contained: plotly.js ${escapeHtml(plotly.version)} is inlined; the page loads nothing from the network.</footer>
</main>
<script>
${plotly.source}
</script>
<script>${DRAW}</script>
</body>
</html>
`;
}

/**
 * Builds the report for `outDir` and writes it (default `<outDir>/report.html`); returns the path.
 */
export async function writeReport(outDir: string, file = path.join(outDir, "report.html")): Promise<string> {
  const html = await buildReport(outDir);
  await fs.mkdir(path.dirname(file), { recursive: true });
  await fs.writeFile(file, html);
  return file;
}

/**
 * Writes a report for every dataset folder under `outRoot` that has a summary.csv (or only
 * `<outRoot>/<only>`), in name order; returns the written paths. Throws when there is none.
 */
export async function writeReports(outRoot: string, only?: string): Promise<string[]> {
  const has = async (dir: string) =>
    fs.stat(path.join(dir, "summary.csv")).then(
      (s) => s.isFile(),
      () => false,
    );
  let dirs: string[];
  if (only !== undefined) {
    const dir = path.join(outRoot, only);
    if (!(await has(dir))) throw new Error(`${path.join(dir, "summary.csv")} not found: run 'gbr reproduce --data ${only} --out ${outRoot}' first`);
    dirs = [dir];
  } else {
    let names: string[];
    try {
      names = (await fs.readdir(outRoot, { withFileTypes: true })).filter((e) => e.isDirectory()).map((e) => e.name).sort();
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === "ENOENT") throw new Error(`${outRoot} does not exist: run 'gbr reproduce --out ${outRoot}' first`);
      throw err;
    }
    dirs = [];
    for (const n of names) if (await has(path.join(outRoot, n))) dirs.push(path.join(outRoot, n));
    if (!dirs.length) throw new Error(`no dataset folder with a summary.csv under ${outRoot}: run 'gbr reproduce --out ${outRoot}' first`);
  }
  const written: string[] = [];
  for (const d of dirs) written.push(await writeReport(d));
  return written;
}
