/** `gbr figures`: the report's figures of one dataset folder, as files laid out for a paper. */
import { promises as fs } from "node:fs";
import type { BrowserSearch } from "../config";
import { GbrError } from "../util/errors";
import { insideFolder, writeAtomically } from "../util/safe-files";
import { reportFigures } from "./html";
import type { NamedFigure } from "./html-blocks";
import { datasetFoldersIn, isDatasetFolder } from "./report-inputs";
import { paperFigure, PRINT_DPI, PX_PER_INCH, type PaperWidth } from "../figures/paper-figures";
import { findBrowser, FigureRenderer, type ImageFormat } from "./render-figure";

/** Report figures that fit a column by default; those with a labelled row per experiment or test need the page. */
const COLUMN_FIGURES: ReadonlySet<string> = new Set(["bm25-sweep", "react-rounds"]);

export function defaultPaperWidth(name: string): PaperWidth {
  return COLUMN_FIGURES.has(name) ? "column" : "page";
}

/** `dir` when it holds a summary.csv, else its one subfolder that does; several are a usage error naming them. */
async function datasetFolder(dir: string): Promise<string> {
  if (await isDatasetFolder(dir)) return dir;
  const inside = await datasetFoldersIn(dir).catch((err: NodeJS.ErrnoException) => {
    if (err.code === "ENOENT" || err.code === "ENOTDIR") return [];
    throw err;
  });
  if (inside.length === 1) return inside[0];
  if (inside.length > 1) throw new GbrError(`${dir} holds ${inside.length} dataset folders: name one with --out (${inside.join(", ")})`, "USAGE");
  throw new GbrError(`no summary.csv in ${dir} (nor in a folder inside it)`, "NO_OUTPUTS", { hint: "give the dataset folder that 'gbr reproduce' wrote, e.g. --out outputs/sample" });
}

interface ExportOptions {
  formats: readonly ImageFormat[];
  /** One width for every figure (default: `defaultPaperWidth` of each). */
  width?: PaperWidth;
  title?: boolean;
  browser: BrowserSearch;
}

/** Writes each figure of `dir`'s report to `<dataset folder>/figures/<name>.<format>`, all drawn in one browser. */
export async function exportFigures(dir: string, opts: ExportOptions) {
  const folder = await datasetFolder(dir);
  const figures = await reportFigures(folder);
  const files: string[] = [];
  if (!figures.length) return { dir: folder, files };
  const executable = findBrowser(opts.browser);
  // A figures/ that is a link out of the dataset folder is refused, not written through.
  const out = await insideFolder(folder, "figures", "followed");
  await fs.mkdir(out, { recursive: true });
  const renderer = await FigureRenderer.open(executable);
  try {
    for (const named of figures) files.push(...(await exportOne(renderer, named, out, opts)));
  } finally {
    await renderer.close();
  }
  return { dir: folder, files, browser: executable };
}

async function exportOne(renderer: FigureRenderer, { name, fig }: NamedFigure, out: string, opts: ExportOptions): Promise<string[]> {
  const paper = paperFigure(fig, { width: opts.width ?? defaultPaperWidth(name), title: opts.title });
  const files: string[] = [];
  for (const format of opts.formats) {
    const bytes = await renderer.render(paper.figure, format, { width: paper.width, height: paper.height, scale: PRINT_DPI / PX_PER_INCH });
    const file = await insideFolder(out, `${name}.${format}`, "replaced");
    await writeAtomically(file, (fh) => fh.writeFile(bytes), out, "--out");
    files.push(file);
  }
  return files;
}
