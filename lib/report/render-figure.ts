/** Plotly figures as SVG, PNG or PDF, drawn by plotly.js in a local Chromium or Chrome (never downloaded), offline. */
import { accessSync, constants, statSync } from "node:fs";
import path from "node:path";
import type { Browser, Page } from "playwright-core";
import type { BrowserSearch } from "../config";
import { GbrError } from "../util/errors";
import { playwrightSdk } from "../util/sdk";
import { plotlyBundle } from "./html-inline";

export type ImageFormat = "svg" | "png" | "pdf";
export const IMAGE_FORMATS: readonly ImageFormat[] = ["svg", "png", "pdf"];

export type FigureSpec = { data: readonly unknown[]; layout?: Record<string, unknown>; config?: Record<string, unknown> };

type RenderSize = { width: number; height: number; scale?: number };

/** Chromium's switches for a headless run that reaches nothing (DESIGN.md §8); playwright adds a fresh profile. */
export const HEADLESS_ARGS: readonly string[] = [
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

const INSTALL_HINT = "Debian/Ubuntu: sudo apt-get install chromium; macOS or Windows: install Google Chrome. Nothing is downloaded for you";

/** No browser to draw figures with: `unavailable`, as a machine without one is not broken. */
const noBrowser = (message: string, hint: string) => new GbrError(message, "BROWSER", { hint, unavailable: true });

/** Where Chromium and Chrome install themselves, most likely first, then `PATH`; `search.explicit` is not among them. */
export function browserCandidates(search: BrowserSearch, platform: NodeJS.Platform = process.platform): string[] {
  const onPath = (names: string[]) => search.pathDirs.flatMap((dir) => names.map((n) => path.join(dir, n)));
  if (platform === "win32") {
    const inPrograms = search.programDirs.flatMap((dir) => [path.win32.join(dir, "Google", "Chrome", "Application", "chrome.exe"), path.win32.join(dir, "Chromium", "Application", "chrome.exe")]);
    return [...inPrograms, ...onPath(["chrome.exe", "chromium.exe"])];
  }
  if (platform === "darwin") {
    return ["/Applications/Google Chrome.app/Contents/MacOS/Google Chrome", "/Applications/Chromium.app/Contents/MacOS/Chromium", ...onPath(["chromium", "google-chrome", "chrome"])];
  }
  return [
    "/usr/bin/chromium",
    "/usr/bin/chromium-browser",
    "/usr/bin/google-chrome",
    "/usr/bin/google-chrome-stable",
    "/opt/google/chrome/chrome",
    ...onPath(["chromium", "chromium-browser", "google-chrome", "google-chrome-stable", "chrome"]),
    // Last: a snap's browser cannot read the temporary profile folder playwright makes outside its confinement.
    "/snap/bin/chromium",
  ];
}

function isExecutableFile(file: string): boolean {
  try {
    if (!statSync(file).isFile()) return false;
    if (process.platform !== "win32") accessSync(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** The browser `GBR_CHROMIUM` (or `CHROME_PATH`) names, which must exist, else the first candidate that does. */
export function findBrowser(search: BrowserSearch, exists: (file: string) => boolean = isExecutableFile, platform: NodeJS.Platform = process.platform): string {
  if (search.explicit) {
    const { path: file, variable } = search.explicit;
    if (exists(file)) return file;
    throw noBrowser(
      `${variable} is '${file}', which is not a browser executable here`,
      `point ${variable} at a Chromium or Chrome executable, or unset it to search the usual places (${INSTALL_HINT})`,
    );
  }
  const candidates = browserCandidates(search, platform);
  const found = candidates.find((c) => exists(c));
  if (found) return found;
  const fixed = candidates.filter((c) => !search.pathDirs.some((d) => path.dirname(c) === d));
  throw noBrowser(
    `no Chromium or Chrome found to draw the figures (looked in ${fixed.join(", ")}${search.pathDirs.length ? " and on PATH" : ""})`,
    `install one (${INSTALL_HINT}), or set GBR_CHROMIUM to the executable of one you have`,
  );
}

async function withDeadline<T>(work: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new GbrError(`${what} took over ${ms / 1000} s`, "BROWSER")), ms);
  });
  try {
    return await Promise.race([work, deadline]);
  } finally {
    clearTimeout(timer);
  }
}

const firstLine = (err: unknown) => String((err as Error)?.message ?? err).split("\n")[0];

/** How long one figure may take to draw (a busy machine takes a few seconds; a hung page never ends). */
const RENDER_MS = 120_000;

/** One headless browser holding plotly.js, drawing figures one at a time; close it when done. */
export class FigureRenderer {
  private queue: Promise<unknown> = Promise.resolve();
  private plotlyLoaded = false;
  private pdfPage: Page | undefined;

  private constructor(private readonly browser: Browser, private readonly page: Page) {}

  static async open(executable: string): Promise<FigureRenderer> {
    let browser: Browser;
    try {
      browser = await playwrightSdk().chromium.launch({
        executablePath: executable,
        headless: true,
        args: [...HEADLESS_ARGS],
        timeout: 60_000,
        // Jupyter interrupts a cell with SIGINT, which must not end the kernel; the browser still ends with the process.
        handleSIGINT: false,
        handleSIGTERM: false,
        handleSIGHUP: false,
      });
    } catch (err) {
      throw new GbrError(`the browser ${executable} did not start: ${firstLine(err)}`, "BROWSER", {
        cause: err,
        hint: "set GBR_CHROMIUM to another Chromium or Chrome executable",
      });
    }
    try {
      const context = await browser.newContext({ offline: true });
      // Nothing is fetched: plotly is inlined and the figures carry their data.
      await context.route("**/*", (route) => route.abort());
      const page = await context.newPage();
      return new FigureRenderer(browser, page);
    } catch (err) {
      await browser.close().catch(() => undefined);
      throw err;
    }
  }

  render(fig: FigureSpec, format: ImageFormat, size: RenderSize): Promise<Buffer> {
    const job = this.queue.then(() => this.draw(fig, format, size));
    this.queue = job.catch(() => undefined);
    return job;
  }

  async close(): Promise<void> {
    await this.queue.catch(() => undefined);
    await this.browser.close().catch(() => undefined);
  }

  private async draw(fig: FigureSpec, format: ImageFormat, size: RenderSize): Promise<Buffer> {
    const width = Math.round(size.width);
    const height = Math.round(size.height);
    const scale = format === "png" ? (size.scale ?? 1) : 1;
    if (!(width > 0 && height > 0 && scale > 0)) throw new RangeError(`a figure needs a positive size, got ${width} × ${height} at scale ${scale}`);
    await this.loadPlotly();
    const spec = { data: fig.data, layout: { ...(fig.layout ?? {}), width, height } };
    const options = { format: format === "png" ? "png" : "svg", width, height, scale, imageDataOnly: true };
    const drawn = this.page.evaluate(`window.Plotly.toImage(${JSON.stringify(spec)}, ${JSON.stringify(options)})`);
    const out: unknown = await withDeadline(drawn, RENDER_MS, "drawing a figure").catch((err: unknown) => {
      throw new GbrError(`plotly could not draw the figure: ${firstLine(err)}`, "BROWSER", { cause: err });
    });
    if (typeof out !== "string" || !out) throw new GbrError("plotly returned no image", "BROWSER");
    if (format === "png") return Buffer.from(out, "base64");
    if (format === "svg") return Buffer.from(out, "utf8");
    return this.printPdf(out, width, height);
  }

  private async loadPlotly(): Promise<void> {
    if (this.plotlyLoaded) return;
    await this.page.setContent('<!doctype html><html><head><meta charset="utf-8"></head><body></body></html>');
    await withDeadline(this.page.addScriptTag({ content: plotlyBundle().source }), RENDER_MS, "loading plotly.js");
    this.plotlyLoaded = true;
  }

  private async printPdf(svg: string, width: number, height: number): Promise<Buffer> {
    this.pdfPage ??= await this.page.context().newPage();
    const page = this.pdfPage;
    await page.setContent(
      `<!doctype html><html><head><meta charset="utf-8"><style>@page { size: ${width}px ${height}px; margin: 0 } html, body { margin: 0; padding: 0 } svg { display: block }</style></head><body>${svg}</body></html>`,
    );
    return withDeadline(page.pdf({ width: `${width}px`, height: `${height}px`, printBackground: true, margin: { top: "0", right: "0", bottom: "0", left: "0" }, pageRanges: "1" }), RENDER_MS, "printing a figure");
  }
}
