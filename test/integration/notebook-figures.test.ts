/**
 * Issue 23, item 6, as done-when says: a notebook executed headless (Jupyter, the tslab kernel, the demo data, no
 * model server), converted with `jupyter nbconvert --to html`, shows every figure as an image in Chromium with
 * JavaScript off; with JavaScript on, plotly replaces each image with the interactive plot. The executed notebook
 * stays under 4 MB. Needs Jupyter, the tslab kernel and Chromium: it fails, not skips, without them (CI installs
 * them). The executed notebook, its HTML and the screenshots go to a temporary folder, removed at the end.
 */
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import { promises as fs } from "node:fs";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import type { Browser } from "playwright-core";
import { readConfig } from "../../lib/config";
import { staleSources } from "../../lib/paths";
import { findBrowser, HEADLESS_ARGS } from "../../lib/report/render-figure";
import { REPO } from "../helpers/shared";

/** The notebook with the most figures (four) that runs without any model server. */
const NOTEBOOK = "08-error-analysis";
const MAX_NOTEBOOK_BYTES = 4_000_000;
const PROVIDERS = ["OPENAI_BASE_URL", "OPENAI_API_KEY", "GBR_CHAT_BASE_URL", "GBR_CHAT_API_KEY", "GBR_EMBED_BASE_URL", "GBR_EMBED_API_KEY", "GBR_LMSTUDIO_BASE_URL", "GBR_RERANK_BASE_URL", "GEMINI_API_KEY", "GOOGLE_API_KEY", "GBR_GEMINI_BASE_URL", "HF_TOKEN"];

let work = "";
let browser: Browser | undefined;

before(async () => {
  work = await fs.mkdtemp(path.join(os.tmpdir(), "gbr-notebook-figures-"));
});

after(async () => {
  await browser?.close();
  if (work) await fs.rm(work, { recursive: true, force: true });
});

/** Runs a command to its end, its output kept for the message when it fails. */
function run(command: string, args: string[], opts: { cwd: string; env: NodeJS.ProcessEnv }): Promise<{ code: number | null; output: string; seconds: number }> {
  const t0 = performance.now();
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { ...opts, stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    child.stdout.on("data", (d: Buffer) => (output += d.toString()));
    child.stderr.on("data", (d: Buffer) => (output += d.toString()));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, output, seconds: (performance.now() - t0) / 1000 }));
  });
}

interface Output {
  output_type: string;
  data?: Record<string, string | string[]>;
}
const text = (v: string | string[] | undefined) => (Array.isArray(v) ? v.join("") : (v ?? ""));

test(`${NOTEBOOK}, executed and converted to HTML, shows every figure as an image without JavaScript`, { timeout: 900_000 }, async (t) => {
  const nbconvert = spawnSync("jupyter", ["nbconvert", "--version"], { encoding: "utf8" });
  assert.equal(nbconvert.status, 0, "jupyter nbconvert is missing: apt-get install -y jupyter-nbconvert python3-nbclient python3-ipykernel");
  const kernel = spawnSync("/usr/bin/python3", ["-c", 'import jupyter_client.kernelspec as k; k.KernelSpecManager().get_kernel_spec("tslab")'], { encoding: "utf8" });
  assert.equal(kernel.status, 0, "the tslab kernel is not registered: npx tslab install --binary=\"$PWD/node_modules/.bin/tslab\" --python=/usr/bin/python3");
  assert.deepEqual(staleSources(path.join(REPO, "build", "lib", "BUILD.json"), path.join(REPO, "lib")), [], "the notebooks run build/lib: run `npm run build`");
  const executable = findBrowser(readConfig().browser);

  // As scripts/run-notebooks.sh runs them, without the model doubles: the LLM experiments are skipped.
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    ...Object.fromEntries(PROVIDERS.map((k) => [k, ""])),
    PATH: `${path.join(REPO, "node_modules", ".bin")}${path.delimiter}${process.env.PATH ?? ""}`,
    GBR_NOTEBOOK_DATA: "sample",
    GBR_DATA_DIR: path.join(work, "data"),
    GBR_NOTEBOOK_OUT: path.join(work, "outputs"),
    GBR_FIGURES_DIR: path.join(work, "figures"),
    GBR_SPACY_BASE_URL: "http://unreachable.invalid",
    HF_ENDPOINT: "http://unreachable.invalid",
  };
  const source = path.join(REPO, "notebooks", `${NOTEBOOK}.ipynb`);
  const executed = await run(
    "jupyter",
    ["nbconvert", "--to", "notebook", "--execute", source, "--output-dir", work, "--ExecutePreprocessor.timeout=600", "--ExecutePreprocessor.kernel_name=tslab"],
    { cwd: path.join(REPO, "notebooks"), env },
  );
  assert.equal(executed.code, 0, executed.output.slice(-4000));
  const ipynb = path.join(work, `${NOTEBOOK}.ipynb`);
  const bytes = (await fs.stat(ipynb)).size;
  t.diagnostic(`executed in ${executed.seconds.toFixed(1)} s: ${(bytes / 1e6).toFixed(2)} MB`);
  assert.ok(bytes < MAX_NOTEBOOK_BYTES, `the executed notebook is ${bytes} bytes, over 4 MB`);

  const nb = JSON.parse(await fs.readFile(ipynb, "utf8")) as { cells: { outputs?: Output[] }[] };
  const figures = nb.cells.flatMap((c) => c.outputs ?? []).filter((o) => /class="gbr-figure"/.test(text(o.data?.["text/html"])));
  assert.ok(figures.length >= 4, `${figures.length} figures in the executed notebook`);
  for (const [i, f] of figures.entries()) {
    const png = text(f.data?.["image/png"]);
    assert.ok(png.length > 1000, `figure ${i + 1} carries a PNG`);
    assert.ok(text(f.data?.["text/html"]).includes(`<img src="data:image/png;base64,${png.trim()}"`), `figure ${i + 1}'s HTML holds its image`);
    t.diagnostic(`figure ${i + 1}: PNG ${png.length} base64 characters`);
  }

  const converted = await run("jupyter", ["nbconvert", "--to", "html", ipynb, "--output-dir", work], { cwd: work, env });
  assert.equal(converted.code, 0, converted.output.slice(-4000));
  const html = path.join(work, `${NOTEBOOK}.html`);
  const url = pathToFileURL(html).href;

  const { chromium } = await import("playwright-core");
  browser = await chromium.launch({ executablePath: executable, args: [...HEADLESS_ARGS], headless: true });
  for (const javaScriptEnabled of [false, true]) {
    const context = await browser.newContext({ javaScriptEnabled, viewport: { width: 1280, height: 900 } });
    // Local files only (the page, and the require.js and MathJax nbconvert links from Debian's packages).
    await context.route("**/*", (route) => (route.request().url().startsWith("file:") ? route.continue() : route.abort()));
    const page = await context.newPage();
    await page.goto(url, { waitUntil: "load" });
    if (javaScriptEnabled) {
      await page.waitForFunction(`document.querySelectorAll(".gbr-figure .main-svg").length > 0 && Array.from(document.querySelectorAll(".gbr-figure")).every((d) => d.querySelector(".main-svg"))`, undefined, { timeout: 120_000 });
    }
    const seen = (await page.evaluate(`(() => {
      const figures = Array.from(document.querySelectorAll(".gbr-figure"));
      return {
        figures: figures.length,
        images: figures.filter((d) => { const i = d.querySelector("img"); return i && i.complete && i.naturalWidth > 0 && i.getBoundingClientRect().width > 0; }).length,
        plots: figures.filter((d) => d.querySelector(".main-svg")).length,
        allImages: Array.from(document.images).filter((i) => i.complete && i.naturalWidth > 0).length,
      };
    })()`)) as { figures: number; images: number; plots: number; allImages: number };
    const shot = path.join(work, `${NOTEBOOK}-javascript-${javaScriptEnabled ? "on" : "off"}.png`);
    await page.screenshot({ path: shot, fullPage: true });
    t.diagnostic(`JavaScript ${javaScriptEnabled ? "on" : "off"}: ${JSON.stringify(seen)}; screenshot ${shot}`);
    assert.equal(seen.figures, figures.length, "every figure of the notebook is in the page");
    if (!javaScriptEnabled) {
      assert.equal(seen.images, figures.length, "each figure shows as a rendered image");
      assert.equal(seen.allImages, figures.length, "and those are the page's images");
      assert.equal(seen.plots, 0);
    } else {
      assert.equal(seen.plots, figures.length, "each figure is drawn by plotly");
      assert.equal(seen.images, 0, "the images gave way to the plots");
    }
    await context.close();
  }
  assert.ok(path.relative(REPO, work).startsWith(".."), "written outside the repository");
});
