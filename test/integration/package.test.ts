/**
 * The package as a user gets it: `npm pack`, the tarball installed with npm into a new project in a temporary folder
 * (outside the repository, so ../shared is absent and nothing resolves back into the checkout), the library imported
 * the ways a user writes it (ESM .mjs and CommonJS .cjs under node, .mts and .ts under tsx, the types checked by tsc
 * under both node16 and bundler resolution), and `gbr` run through npx.
 *
 * The project is empty: no overrides copied from this repository (npm applies only the root project's), no optional
 * peers (danfojs-node, tslab). The install takes its packages from npm's cache, which the repository's own `npm ci`
 * filled (--prefer-offline: the registry only for what is missing), and runs no install scripts: the package needs none.
 */
import { spawnSync, type SpawnSyncReturns } from "node:child_process";
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { REPO } from "../helpers/shared";
import { staleSources } from "../../lib/paths";
import { readRun } from "../../lib/data/runs";
import { createRetriever, evaluate, loadBenchmark } from "../../lib";

const PKG = JSON.parse(readFileSync(path.join(REPO, "package.json"), "utf8")) as {
  name: string;
  version: string;
  dependencies: Record<string, string>;
  peerDependencies: Record<string, string>;
  peerDependenciesMeta: Record<string, { optional?: boolean }>;
  devDependencies: Record<string, string>;
};

let tmp = "";
let project = "";
let packed: { filename: string; size: number; unpackedSize: number; files: { path: string }[] };

/**
 * The environment of every child: no npm_* variables from `npm test` (they would point npm at the repository), no
 * node_modules/.bin of the repository on PATH (npx must find the installed gbr), the caches in the temporary folder.
 */
function childEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!/^npm_/i.test(k) && k !== "INIT_CWD" && !k.startsWith("GBR_")) env[k] = v;
  env.PATH = (process.env.PATH ?? "")
    .split(path.delimiter)
    .filter((p) => !path.resolve(p).startsWith(path.join(REPO, "node_modules")))
    .join(path.delimiter);
  return {
    ...env,
    GBR_DATA_DIR: path.join(tmp, "data"),
    XDG_CACHE_HOME: path.join(tmp, "xdg"),
    HF_ENDPOINT: "http://unreachable.invalid",
    GBR_SPACY_BASE_URL: "http://unreachable.invalid",
    CI: "true",
    ...extra,
  };
}

function run(cmd: string, args: string[], opts: { cwd: string; env?: NodeJS.ProcessEnv; timeoutMs?: number }): SpawnSyncReturns<string> {
  const r = spawnSync(cmd, args, { cwd: opts.cwd, env: opts.env ?? childEnv(), encoding: "utf8", timeout: opts.timeoutMs ?? 120_000 });
  assert.equal(r.status, 0, `${cmd} ${args.join(" ")} exited ${r.status ?? r.signal}${r.error ? ` (${r.error.message})` : ""}\n${r.stdout}\n${r.stderr}`);
  return r;
}

/** What each consumer script prints: the means and the first query's ranking, to compare across the forms. */
interface Printed {
  mean: Record<string, number>;
  first: [string, string[]];
  missing?: string[];
}

const BODY = `
  const { benchmark } = await loadBenchmark("sample");
  const bm25 = await createRetriever("bm25-greekstemmer", benchmark);
  const run = await bm25.retrieve(benchmark.queries, 100);
  const { mean } = evaluate(run.rankings, benchmark.qrels);
  const first = [...run.rankings][0];`;

/** The same work in each form a user writes; the typed forms name a type of the face so tsc has something to check. */
const SCRIPTS: Record<string, string> = {
  // ESM: an ES module gets only the names cjs-module-lexer finds in the CommonJS build; every value of the face must be one.
  "esm.mjs": `import { createRequire } from "node:module";
import * as face from "greekbar-retrieval";
import { loadBenchmark, createRetriever, evaluate } from "greekbar-retrieval";
${BODY}
const missing = Object.keys(createRequire(import.meta.url)("greekbar-retrieval")).filter((k) => !(k in face));
console.log(JSON.stringify({ mean, first, missing }));
`,
  "common.cjs": `const { loadBenchmark, createRetriever, evaluate } = require("greekbar-retrieval");
(async () => {${BODY}
  console.log(JSON.stringify({ mean, first }));
})().catch((err) => { console.error(err); process.exitCode = 1; });
`,
  // TypeScript as an ES module: top-level await.
  "typed.mts": `import { loadBenchmark, createRetriever, evaluate, type Metric } from "greekbar-retrieval";
${BODY}
  const metric: Metric = "nDCG@10";
  const value: number = mean[metric];
  console.log(JSON.stringify({ mean, first, value }));
`,
  // TypeScript in a CommonJS project (no "type"), as tsx runs a .ts there: no top-level await.
  "script.ts": `import { loadBenchmark, createRetriever, evaluate, type Evaluation } from "greekbar-retrieval";
async function main(): Promise<void> {${BODY}
  const typed: Evaluation["mean"] = mean;
  console.log(JSON.stringify({ mean: typed, first }));
}
main().catch((err: unknown) => { console.error(err); process.exitCode = 1; });
`,
  // Without danfojs-node: the library loads and retrieves; only asking for a DataFrame fails, saying what to install.
  "frame.cjs": `const { toDataFrame } = require("greekbar-retrieval");
try {
  toDataFrame([{ a: 1 }]);
  console.log(JSON.stringify({ message: null }));
} catch (err) {
  console.log(JSON.stringify({ message: err.message }));
}
`,
};

before(() => {
  // npm test builds first; the tarball is packed without running the build again (--ignore-scripts).
  assert.deepEqual(staleSources(path.join(REPO, "build", "lib", "BUILD.json"), path.join(REPO, "lib")), [], "build/lib is older than lib/: run `npm run build`");
  tmp = mkdtempSync(path.join(os.tmpdir(), "gbr-package-test-"));
  const pack = run("npm", ["pack", "--ignore-scripts", "--json", "--pack-destination", tmp], { cwd: REPO });
  packed = (JSON.parse(pack.stdout) as (typeof packed)[])[0]!;
  project = path.join(tmp, "project");
  mkdirSync(project);
  const manifest = { name: "consumer", version: "1.0.0", private: true };
  for (const [f, text] of Object.entries({ "package.json": JSON.stringify(manifest, null, 2), ...SCRIPTS })) writeFileSync(path.join(project, f), text);
  const t0 = performance.now();
  run(
    "npm",
    ["install", "--prefer-offline", "--ignore-scripts", "--no-audit", "--no-fund", path.join(tmp, packed.filename), `tsx@${PKG.devDependencies.tsx}`],
    { cwd: project, timeoutMs: 600_000 },
  );
  console.log(`# npm install of ${packed.filename} and its dependencies: ${((performance.now() - t0) / 1000).toFixed(1)} s`);
});

after(() => {
  if (tmp) rmSync(tmp, { recursive: true, force: true });
});

test("the tarball holds the build, the bin and the files read at run time, and no sources, tests or notebooks", () => {
  const files = new Set(packed.files.map((f) => f.path));
  for (const f of ["package.json", "README.md", "LICENSE", "bin/gbr.js", "build/lib/index.js", "build/lib/index.d.ts", "build/lib/BUILD.json", "build/lib/cli/main.js", "config/prices.json", "data/sample/corpus.jsonl", "data/sample/queries.jsonl", "data/sample/qrels/test.tsv", "lib/llm/prompts/project/REWRITE_SYSTEM.txt"]) {
    assert.ok(files.has(f), `${f} is not in the tarball`);
  }
  const unwanted = [...files].filter((f) => /^(test|notebooks|outputs|bench|scripts|\.ci)\//.test(f) || (f.startsWith("lib/") && !f.endsWith(".txt")) || f.endsWith(".tsbuildinfo"));
  assert.deepEqual(unwanted, []);
  console.log(`# ${packed.filename}: ${(packed.size / 1e3).toFixed(0)} kB packed, ${(packed.unpackedSize / 1e6).toFixed(1)} MB unpacked, ${files.size} files`);
  assert.ok(packed.size < 1_500_000, `the tarball grew to ${packed.size} bytes`);
});

test("installed without the optional peers: no DataFrame, notebook or ONNX packages, and under 300 MB", () => {
  const modules = path.join(project, "node_modules");
  for (const peer of ["danfojs-node", "tslab"]) {
    assert.equal(PKG.dependencies[peer], undefined, `${peer} is a dependency`);
    assert.deepEqual([PKG.peerDependenciesMeta[peer]?.optional, existsSync(path.join(modules, peer))], [true, false], peer);
  }
  // What danfojs-node and tslab bring (TensorFlow.js, the xlsx CDN package, zeromq), and the ONNX runtime and image
  // libraries LanceDB 0.31+ lists as optional (pinned below that), none of which a library user wants.
  for (const heavy of ["@tensorflow", "xlsx", "zeromq", "@tslab", "@huggingface", "onnxruntime-node", "sharp"]) {
    assert.ok(!existsSync(path.join(modules, heavy)), `${heavy} was installed`);
  }
  const entries = readdirSync(modules).filter((e) => e !== ".bin" && e !== "tsx" && e !== "esbuild" && !e.startsWith("@esbuild"));
  const kb = Number(run("du", ["-sk", "-c", ...entries], { cwd: modules }).stdout.trim().split("\n").at(-1)!.split("\t")[0]);
  console.log(`# library install: ${(kb / 1024).toFixed(0)} MB`);
  assert.ok(kb < 300 * 1024, `the library install takes ${(kb / 1024).toFixed(0)} MB`);
});

test("installed without danfojs-node: asking for a DataFrame says what to install", () => {
  const { message } = JSON.parse(run(process.execPath, ["frame.cjs"], { cwd: project }).stdout) as { message: string | null };
  assert.match(message ?? "", /danfojs-node.*npm install danfojs-node/s);
});

test("installed: ESM (.mjs, .mts under tsx), CommonJS (.cjs) and a .ts under tsx each load the sample, retrieve and evaluate", async () => {
  assert.ok(!existsSync(path.join(project, "..", "shared")), "../shared must be absent beside the project");
  const printed: Record<string, Printed> = {};
  printed["esm.mjs"] = JSON.parse(run(process.execPath, ["esm.mjs"], { cwd: project }).stdout) as Printed;
  printed["common.cjs"] = JSON.parse(run(process.execPath, ["common.cjs"], { cwd: project }).stdout) as Printed;
  for (const f of ["typed.mts", "script.ts"]) printed[f] = JSON.parse(run("npx", ["tsx", f], { cwd: project }).stdout) as Printed;
  assert.deepEqual(printed["esm.mjs"]!.missing, [], "values of the face that an ES module cannot import by name");

  // The same numbers as the sources give in this process.
  const { benchmark } = await loadBenchmark("sample");
  const ranked = await (await createRetriever("bm25-greekstemmer", benchmark)).retrieve(benchmark.queries, 100);
  const expected = { mean: evaluate(ranked.rankings, benchmark.qrels).mean, first: [...ranked.rankings][0] };
  for (const [f, p] of Object.entries(printed)) assert.deepEqual({ mean: p.mean, first: p.first }, JSON.parse(JSON.stringify(expected)), f);
});

test("installed: the types resolve and check under moduleResolution node16 and bundler", () => {
  const tsc = require.resolve("typescript/bin/tsc", { paths: [REPO] });
  const common = { strict: true, target: "ES2022", noEmit: true, skipLibCheck: true, types: ["node"], typeRoots: [path.join(REPO, "node_modules", "@types")] };
  for (const [name, options] of Object.entries({
    node16: { module: "node16", moduleResolution: "node16" },
    bundler: { module: "preserve", moduleResolution: "bundler" },
  })) {
    writeFileSync(path.join(project, `tsconfig.${name}.json`), JSON.stringify({ compilerOptions: { ...common, ...options }, files: ["typed.mts", "script.ts"] }));
    run(process.execPath, [tsc, "-p", `tsconfig.${name}.json`], { cwd: project });
  }
});

test("installed: npx gbr searches the sample (the compiled build, no sources), and caches default outside node_modules", async () => {
  const installed = path.join(project, "node_modules", PKG.name);
  assert.ok(!existsSync(path.join(installed, "lib", "index.ts")));
  assert.equal(run("npx", ["gbr", "--version"], { cwd: project }).stdout, `${PKG.version}\n`);
  const r = run("npx", ["gbr", "search", "--data", "sample", "--retriever", "bm25-greekstemmer", "--out", "run.trec"], { cwd: project });
  const fromBin = await readRun(path.join(project, "run.trec"));
  const { benchmark } = await loadBenchmark("sample");
  assert.equal(fromBin.rankings.size, benchmark.queries.length, r.stderr);
  const [qid, ranking] = [...(await (await createRetriever("bm25-greekstemmer", benchmark)).retrieve(benchmark.queries, 100)).rankings][0]!;
  assert.deepEqual(fromBin.rankings.get(qid), ranking);

  // Without GBR_DATA_DIR an installed package caches per user (XDG_CACHE_HOME here), never inside its own folder.
  const env = childEnv();
  delete env.GBR_DATA_DIR;
  const config = path.join(installed, "build", "lib", "config.js");
  const where = run(process.execPath, ["-p", `const c = require(${JSON.stringify(config)}); JSON.stringify({ installed: c.INSTALLED, dataDir: c.configuredDataDir() })`], { cwd: project, env });
  assert.deepEqual(JSON.parse(where.stdout), { installed: true, dataDir: path.join(tmp, "xdg", "greekbar-retrieval") });
});
