/** `gbr figures`: a report's figures as SVG, PNG or PDF files for a paper. */
import { CliError, type Command } from "./args";
import { quietOption } from "./options";
import { didYouMean } from "../util/suggest";
import { exportFigures } from "../report/export-figures";
import { IMAGE_FORMATS, type ImageFormat } from "../report/render-figure";
import { PAPER_INCHES, type PaperWidth } from "../figures/paper-figures";

function imageFormats(value: unknown): ImageFormat[] {
  const names = String(value ?? "svg").split(",").map((f) => f.trim().toLowerCase()).filter(Boolean);
  if (!names.length) throw new CliError(`gbr figures: --format needs ${IMAGE_FORMATS.join(", ")} (or several, comma-separated)`, 2);
  const n = names.find((f) => !(IMAGE_FORMATS as readonly string[]).includes(f));
  if (n !== undefined) throw new CliError(`gbr figures: unknown format '${n}'${didYouMean(n, IMAGE_FORMATS)} (formats: ${IMAGE_FORMATS.join(", ")})`, 2);
  return [...new Set(names)] as ImageFormat[];
}

function paperWidth(value: unknown): PaperWidth | undefined {
  if (value === undefined) return undefined;
  const text = String(value).trim().toLowerCase();
  if (text === "column" || text === "page") return text;
  const inches = Number(text.replace(/in$/, ""));
  if (text !== "" && Number.isFinite(inches) && inches >= 1 && inches <= 20) return inches;
  throw new CliError(`gbr figures: --width must be column (${PAPER_INCHES.column} in), page (${PAPER_INCHES.page} in) or inches from 1 to 20, got '${String(value)}'${didYouMean(text, ["column", "page"])}`, 2);
}

export const figures: Command = {
  spec: {
    name: "figures",
    summary: "Every figure of a dataset folder's report as files for a paper (SVG, PNG or PDF), drawn by a local Chromium or Chrome.",
    usage: "figures --out DIR --format svg|png|pdf [--width column|page|INCHES] [--no-title]",
    options: { out: { type: "string" }, format: { type: "string" }, width: { type: "string" }, "no-title": { type: "boolean" }, ...quietOption },
    help: [
      "--out DIR       the dataset folder that 'gbr reproduce' wrote (e.g. outputs/sample); files go to DIR/figures/",
      "--format F      svg (default), png (300 dpi) or pdf; several comma-separated, e.g. svg,pdf",
      `--width W       column (${PAPER_INCHES.column} in), page (${PAPER_INCHES.page} in) or inches (default: page for charts with a row per`,
      "                experiment or test, column for the rest); text is never under 8 pt",
      "--no-title      leave the titles out (for the paper's captions)",
      "-q, --quiet     no progress on stderr",
      "Needs a local Chromium or Chrome (never downloaded): GBR_CHROMIUM (or CHROME_PATH), else the usual places and PATH.",
    ],
  },
  async run(values, io, config) {
    const formats = imageFormats(values.format);
    const width = paperWidth(values.width);
    const t0 = performance.now();
    const result = await exportFigures(String(values.out ?? "outputs"), {
      formats,
      ...(width === undefined ? {} : { width }),
      title: values["no-title"] !== true,
      browser: config().browser,
    });
    io.stdout(result.files.map((f) => `${f}\n`).join(""));
    if (!result.files.length) io.stderr(`gbr figures: ${result.dir} has no figure to export (its report draws none)\n`);
    else if (!values.quiet) io.stderr(`${result.files.length / formats.length} figures as ${formats.join(", ")} in ${((performance.now() - t0) / 1000).toFixed(1)} s (drawn by ${result.browser})\n`);
  },
};
