/**
 * Notebook benchmark: how long executing notebook 00 headless takes (`jupyter nbconvert
 * --execute`, what CI and a reader's "Run all" do), where the time goes, and how big the
 * executed notebook is. Targets (issue 11): at most 8 s, at most 4 MB.
 *
 * Measured in the same run, for the ratios:
 * - a one-cell notebook (`1`) executed the same way: Jupyter's and the kernel's own start-up,
 *   which no change to this project can remove;
 * - notebook 00 against lib/'s TypeScript sources (a notebooks folder whose lib links to lib/
 *   instead of build/lib): what tslab did before the notebooks loaded lib/ compiled.
 * Each is run REPS times (median); the first run of each is also reported (cold caches).
 * Per-cell times come from nbclient (kernel start, then each code cell).
 *
 * Needs Jupyter (nbconvert, nbclient) and the tslab kernel, as scripts/run-notebooks.sh does.
 * Writes only under a temporary folder (data, figures, executed notebooks).
 *
 * Run: node --import tsx bench/notebooks.bench.ts [--quick] [--json FILE]
 */
import { execFileSync, spawnSync } from "node:child_process";
import { copyFileSync, cpSync, mkdirSync, mkdtempSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";

const REPO = path.resolve(__dirname, "..");
const args = process.argv.slice(2);
const quick = args.includes("--quick");
const jsonOut = args.includes("--json") ? args[args.indexOf("--json") + 1] : undefined;
const REPS = quick ? 1 : 3;
const TARGET_SECONDS = 8;
const TARGET_MB = 4;

const probe = spawnSync("/usr/bin/python3", ["-c", "import nbclient, nbformat; import jupyter_client.kernelspec as k; k.KernelSpecManager().get_kernel_spec('tslab')"], { encoding: "utf8" });
if (probe.status !== 0) {
  console.error("error: the notebook benchmark needs Jupyter and the tslab kernel:\n  apt-get install -y jupyter-nbconvert python3-nbclient python3-ipykernel\n  npx tslab install --python=/usr/bin/python3");
  process.exit(1);
}
execFileSync(process.execPath, [path.join(REPO, "scripts", "build-lib.js"), "--quiet"], { stdio: "inherit" });

const tmp = mkdtempSync(path.join(os.tmpdir(), "gbr-bench-notebooks-"));
/** A notebooks folder: 00-quickstart and a one-cell notebook beside a `lib` link to `libTarget`. */
function folder(name: string, libTarget: string): string {
  const dir = path.join(tmp, name);
  mkdirSync(dir);
  symlinkSync(libTarget, path.join(dir, "lib"), "dir");
  copyFileSync(path.join(REPO, "notebooks", "00-quickstart.ipynb"), path.join(dir, "00-quickstart.ipynb"));
  const kernelspec = { display_name: "TypeScript", language: "typescript", name: "tslab" };
  writeFileSync(path.join(dir, "one-cell.ipynb"), JSON.stringify({ cells: [{ cell_type: "code", execution_count: null, id: "c", metadata: {}, outputs: [], source: ["1"] }], metadata: { kernelspec }, nbformat: 4, nbformat_minor: 5 }));
  return dir;
}
const compiled = folder("compiled", path.join(REPO, "build", "lib"));
// tslab emits only files under the kernel's folder, and a link resolves outside it: for the
// sources, a copy of the package in miniature (lib/, the sample data, the prices) beside the
// notebook, which is how the notebooks folder held lib/ before it was compiled.
const pkg = path.join(tmp, "package-copy");
for (const part of ["lib", path.join("data", "sample"), "config"]) cpSync(path.join(REPO, part), path.join(pkg, part), { recursive: true });
symlinkSync(path.join(REPO, "node_modules"), path.join(pkg, "node_modules"), "dir");
const sources = path.join(pkg, "notebooks");
mkdirSync(sources);
symlinkSync(path.join("..", "lib"), path.join(sources, "lib"), "dir");
copyFileSync(path.join(REPO, "notebooks", "00-quickstart.ipynb"), path.join(sources, "00-quickstart.ipynb"));
const env = {
  ...process.env,
  PATH: `${path.join(REPO, "node_modules", ".bin")}:${process.env.PATH}`,
  GBR_NOTEBOOK_DATA: "sample",
  GBR_DATA_DIR: path.join(tmp, "data"),
  GBR_FIGURES_DIR: path.join(tmp, "figures"),
  GBR_NOTEBOOK_OUT: path.join(tmp, "outputs"),
};

/** Wall seconds of `jupyter nbconvert --execute` of one notebook, and the executed file's size. */
function nbconvert(dir: string, name: string): { seconds: number; bytes: number } {
  const out = path.join(tmp, "executed", path.basename(dir));
  const t0 = performance.now();
  const r = spawnSync("jupyter", ["nbconvert", "--to", "notebook", "--execute", `${name}.ipynb`, "--output-dir", out, "--ExecutePreprocessor.kernel_name=tslab", "--ExecutePreprocessor.timeout=600"], { cwd: dir, env, encoding: "utf8" });
  const seconds = (performance.now() - t0) / 1000;
  if (r.status !== 0) throw new Error(`executing ${dir}/${name}.ipynb failed:\n${r.stderr.slice(-2000)}`);
  return { seconds, bytes: statSync(path.join(out, `${name}.ipynb`)).size };
}

/** Kernel start and each code cell's seconds, through nbclient (the first code cell imports lib/ and loads the data). */
function cells(dir: string, name: string): { kernel: number; cells: number[] } {
  const py = `
import json, sys, time, nbformat
from nbclient import NotebookClient
t0 = time.time()
nb = nbformat.read(sys.argv[1], as_version=4)
c = NotebookClient(nb, kernel_name="tslab", timeout=600, resources={"metadata": {"path": sys.argv[2]}})
out = {"cells": []}
with c.setup_kernel():
    out["kernel"] = time.time() - t0
    for i, cell in enumerate(nb.cells):
        if cell.cell_type != "code": continue
        s = time.time(); c.execute_cell(cell, i); out["cells"].append(time.time() - s)
print(json.dumps(out))
`;
  const r = spawnSync("/usr/bin/python3", ["-c", py, path.join(dir, `${name}.ipynb`), dir], { env, encoding: "utf8" });
  if (r.status !== 0) throw new Error(`profiling ${dir}/${name}.ipynb failed:\n${r.stderr.slice(-2000)}`);
  return JSON.parse(r.stdout.trim().split("\n").pop()!) as { kernel: number; cells: number[] };
}

const median = (xs: number[]) => [...xs].sort((x, y) => x - y)[xs.length >> 1];
function repeat(dir: string, name: string): { first: number; median: number; bytes: number } {
  const runs = Array.from({ length: REPS }, () => nbconvert(dir, name));
  return { first: runs[0].seconds, median: median(runs.map((r) => r.seconds)), bytes: runs[0].bytes };
}

try {
  const oneCell = repeat(compiled, "one-cell");
  const nb00 = repeat(compiled, "00-quickstart");
  const nb00Sources = repeat(sources, "00-quickstart");
  const profile = cells(compiled, "00-quickstart");
  const profileSources = cells(sources, "00-quickstart");
  const r2 = (x: number) => +x.toFixed(2);
  const figures = {
    reps: REPS,
    targetSeconds: TARGET_SECONDS,
    targetMb: TARGET_MB,
    notebook00: { seconds: r2(nb00.median), firstSeconds: r2(nb00.first), mb: +(nb00.bytes / 1e6).toFixed(2) },
    oneCellNotebook: { seconds: r2(oneCell.median), firstSeconds: r2(oneCell.first) },
    notebook00FromSources: { seconds: r2(nb00Sources.median), firstSeconds: r2(nb00Sources.first) },
    breakdown: { kernelStart: r2(profile.kernel), firstCell: r2(profile.cells[0]), otherCells: r2(profile.cells.slice(1).reduce((s, x) => s + x, 0)) },
    breakdownFromSources: { kernelStart: r2(profileSources.kernel), firstCell: r2(profileSources.cells[0]), otherCells: r2(profileSources.cells.slice(1).reduce((s, x) => s + x, 0)) },
  };
  const ok = (good: boolean) => (good ? "ok" : "OVER TARGET");
  console.log(`notebooks: 00-quickstart executed headless (jupyter nbconvert --execute, sample data), median of ${REPS}`);
  console.log(`  notebook 00                ${figures.notebook00.seconds} s (first ${figures.notebook00.firstSeconds} s; target <= ${TARGET_SECONDS} s: ${ok(figures.notebook00.seconds <= TARGET_SECONDS)}), ${figures.notebook00.mb} MB executed (target <= ${TARGET_MB} MB: ${ok(figures.notebook00.mb <= TARGET_MB)})`);
  console.log(`  one-cell notebook          ${figures.oneCellNotebook.seconds} s: Jupyter and kernel start-up, ${((100 * figures.oneCellNotebook.seconds) / figures.notebook00.seconds).toFixed(0)}% of notebook 00`);
  console.log(`  00 on lib/'s sources       ${figures.notebook00FromSources.seconds} s: ${(figures.notebook00FromSources.seconds / figures.notebook00.seconds).toFixed(1)}× the compiled lib/ (tslab type-checks and emits every source file)`);
  console.log(`  where the time goes        kernel start ${figures.breakdown.kernelStart} s, first cell (lib/ + data) ${figures.breakdown.firstCell} s, the other cells ${figures.breakdown.otherCells} s`);
  console.log(`    on lib/'s sources        kernel start ${figures.breakdownFromSources.kernelStart} s, first cell ${figures.breakdownFromSources.firstCell} s, the other cells ${figures.breakdownFromSources.otherCells} s`);
  if (jsonOut) writeFileSync(jsonOut, JSON.stringify(figures, null, 2) + "\n");
} finally {
  rmSync(tmp, { recursive: true, force: true });
}
