/**
 * The tslab kernel registered as the README says (`npx tslab install --binary=<repo>/node_modules/.bin/tslab`) starts
 * under `jupyter nbconvert --execute` with no node_modules/.bin on PATH; registered the plain way (`tslab`) it does
 * not, which is what the README's instruction avoids. Each registration goes to a temporary Jupyter prefix
 * (JUPYTER_PATH), never to the machine's kernels. Needs Jupyter: it fails, not skips, without it (CI installs it).
 */
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { promises as fs } from "node:fs";
import os from "node:os";
import path from "node:path";
import { REPO } from "../helpers/shared";

let tmp = "";
before(async () => {
  tmp = await fs.mkdtemp(path.join(os.tmpdir(), "gbr-notebook-kernel-"));
});
after(async () => {
  if (tmp) await fs.rm(tmp, { recursive: true, force: true });
});

/** PATH without any node_modules/.bin (npm run adds the repository's), as a shell of a reader has it. */
const plainPath = (process.env.PATH ?? "").split(path.delimiter).filter((p) => !/node_modules[\\/]\.bin$/.test(p)).join(path.delimiter);

/** Registers the kernel under `prefix` with `binary` as its command (the tslab CLI's own install). */
function register(prefix: string, binary: string): void {
  const r = spawnSync(process.execPath, [path.join(REPO, "node_modules", "tslab", "bin", "tslab"), "install", `--binary=${binary}`, "--python=/usr/bin/python3", `--prefix=${prefix}`], { encoding: "utf8" });
  assert.equal(r.status, 0, r.stdout + r.stderr);
}

/** Executes a one-cell TypeScript notebook with the tslab kernel found under `prefix` only. */
async function execute(prefix: string, name: string): Promise<{ code: number | null; output: string; executed: string }> {
  const nb = {
    nbformat: 4,
    nbformat_minor: 5,
    metadata: { kernelspec: { name: "tslab", display_name: "TypeScript", language: "typescript" } },
    cells: [{ cell_type: "code", id: "c1", metadata: {}, execution_count: null, outputs: [], source: ["const answer: number = 6 * 7;\n", "console.log(`answer ${answer}`);"] }],
  };
  const file = path.join(tmp, `${name}.ipynb`);
  await fs.writeFile(file, JSON.stringify(nb));
  const out = path.join(tmp, `${name}-out`);
  const r = spawnSync("jupyter", ["nbconvert", "--to", "notebook", "--execute", file, "--output-dir", out, "--ExecutePreprocessor.timeout=120", "--ExecutePreprocessor.kernel_name=tslab"], {
    encoding: "utf8",
    cwd: tmp,
    timeout: 180_000,
    env: { ...process.env, PATH: plainPath, JUPYTER_PATH: path.join(prefix, "share", "jupyter") },
  });
  const executed = await fs.readFile(path.join(out, `${name}.ipynb`), "utf8").catch(() => "");
  return { code: r.status, output: `${r.stdout}${r.stderr}`, executed };
}

test("registered with the full path of node_modules/.bin/tslab, the kernel runs a notebook without PATH changes", { timeout: 300_000 }, async () => {
  assert.equal(spawnSync("jupyter", ["nbconvert", "--version"]).status, 0, "jupyter nbconvert is missing: apt-get install -y jupyter-nbconvert python3-nbclient python3-ipykernel");
  assert.notEqual(spawnSync("sh", ["-c", "command -v tslab"], { env: { ...process.env, PATH: plainPath } }).status, 0, "tslab is on PATH without node_modules/.bin: this test cannot tell the two registrations apart");

  const plain = path.join(tmp, "plain");
  register(plain, "tslab");
  const failed = await execute(plain, "plain");
  assert.notEqual(failed.code, 0, "the plain registration needs node_modules/.bin on PATH");
  assert.match(failed.output, /No such file or directory: 'tslab'/);

  const full = path.join(tmp, "full");
  register(full, path.join(REPO, "node_modules", ".bin", "tslab"));
  const ran = await execute(full, "full");
  assert.equal(ran.code, 0, ran.output.slice(-3000));
  assert.match(ran.executed, /answer 42/);
});
