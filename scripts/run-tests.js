#!/usr/bin/env node
// Runs every test/**/*.test.ts (under the current directory) with node's test runner: Node 20
// has no --test glob support. Arguments are substrings of test paths; with any, only the
// matching files run (`node scripts/run-tests.js unit/sparse/bm25 report`).
//
// Two tiers. The full suite (no flag; `npm test`, what CI runs) is every file. The quick tier
// (`--quick`; `npm run test:quick`, 25 to 60 s on 2 cores) is every file except those in SLOW
// below, the rule being: a file goes in SLOW when it takes more than 3 s on its own on a
// 2-core machine (parity runs over the whole ../shared sets, child processes such as the CLI,
// tsc or workers, a browser, many HTTP round trips through the doubles). A new file is quick
// until it grows past that; then add it to SLOW. Filters apply within the tier chosen.
//
// A skipped test fails the run. A test that is skipped (test.skip, describe.skip, a `skip`
// option, t.skip()) or marked todo (a `todo` option, t.todo()), at any depth, makes this
// script exit 1 after the run and list each one with its file and line: a suite must not pass
// by not running. The only way out is an explicit opt-out, a skip or todo reason that starts
// with "opt-out:" and says why:
//
//   test("renders in Chromium", { skip: !chromium && "opt-out: no Chromium on this machine" }, …);
//   describe("GPU kernels", { skip: "opt-out: needs CUDA, run by hand" }, () => { … });
//   t.skip("opt-out: the API has no sandbox"); t.todo("opt-out: waiting on upstream #123");
//
// A bare `skip: true`, test.skip(…) or describe.skip(…) carries no reason and so cannot opt
// out. Opted-out tests are listed after the run too, so they stay visible. Tests that need
// ../shared fail rather than skip when it is missing (test/helpers/shared.ts, requireShared).
//
// A test removes what it made. The tests run with a temporary folder of their own (TMPDIR, which
// os.tmpdir() reads) inside this script's; after the run, any gbr-* entry left there fails the run,
// listed by name, and the folder is removed with everything in it. (Comparing the system's folder
// before and after would blame this run for what other runs on the machine make meanwhile.)
//
// Output: node's spec reporter on a terminal and TAP otherwise, as node itself picks; a second
// reporter (scripts/skip-reporter.mjs) writes the skipped tests to a temporary file that this
// script reads. If that file is missing the run fails: the check did not happen.
const { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } = require("node:fs");
const os = require("node:os");
const { join, relative } = require("node:path");
const { pathToFileURL } = require("node:url");
const { spawnSync } = require("node:child_process");

/** A skip or todo reason with this prefix is an explicit, documented opt-out. */
const OPT_OUT = "opt-out:";

function statSafe(p) {
  try {
    return statSync(p);
  } catch {
    return undefined;
  }
}

function find(dir) {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    return statSync(p).isDirectory() ? find(p) : p.endsWith(".test.ts") ? [p] : [];
  });
}

/**
 * The full suite's files the quick tier leaves out (the rule is in the header), by path under
 * test/, with what makes each slow.
 */
const SLOW = new Set([
  // whole-set parity and heavy computation over ../shared
  "integration/bm25-parity.test.ts",
  "unit/dense/lsi.test.ts",
  "unit/sparse/sweep.test.ts",
  "unit/text/grnlp-tokenizer.test.ts",
  "unit/llm/token-count.test.ts",
  "unit/llm/react.test.ts",
  "integration/large-corpus.test.ts", // a corpus of 1.1 GB written and read
  // child processes: the CLI, tsc, tslab's compiler, several processes sharing a cache
  "integration/cli.test.ts",
  "integration/compare-cli.test.ts",
  "integration/errors-cli.test.ts",
  "integration/eval-compare-cli-strict.test.ts",
  "integration/user-retriever-cli.test.ts",
  "integration/terminal.test.ts",
  "integration/paper-tables-latex.test.ts", // pdflatex
  "integration/trust.test.ts",
  "integration/plan.test.ts",
  "integration/plan-shared.test.ts",
  "integration/outputs-tamper.test.ts", // three reproduces at once into one folder; one waiting out another's lock
  "integration/official-mode.test.ts",
  "integration/tslab-compat.test.ts",
  "integration/notebooks.test.ts",
  "integration/vector-store-shared.test.ts",
  "integration/vector-store-heal.test.ts",
  "integration/dense-llm-shared.test.ts",
  "unit/store/replay-shared.test.ts",
  "unit/scripts/run-tests.test.ts",
  "integration/package.test.ts", // npm pack, npm install into a new project, the library and gbr run from it
  "integration/doc-examples.test.ts", // every example of the README and docs/: gbr reproduce on greeklaws-2021, tsx, tsc
  // LanceDB: tables written, reopened and searched
  "integration/vector-store.test.ts",
  // a browser
  "integration/report-browser.test.ts",
  "integration/render-figure.test.ts",
  "integration/notebook-figures.test.ts", // and Jupyter executing a notebook
  "integration/notebook-kernel.test.ts", // Jupyter starting the tslab kernel
  // many requests through the local doubles, whole reproduce runs
  "integration/react-concurrency.test.ts",
  "integration/llm-methods.test.ts",
  "integration/rerank-cross-encoder.test.ts",
  "integration/rerank-reproduce.test.ts",
  "integration/endpoints.test.ts",
  "integration/frames.test.ts",
  "integration/dense.test.ts",
  "integration/chat-providers.test.ts",
  "integration/openai-embedder.test.ts",
  "integration/hub.test.ts",
  "integration/in-process.test.ts", // gbr in child processes embedding greeklaws-2021 with a tiny model, one killed
]);

const argv = process.argv.slice(2);
const quick = argv.includes("--quick");
const filter = argv.filter((a) => a !== "--quick");
const underTest = (f) => relative("test", f).split(/[\\/]/).join("/");
// Checked against this repository's test/, so the runner also works on a synthetic suite.
const missing = [...SLOW].filter((f) => !statSafe(join(__dirname, "..", "test", f)));
if (missing.length > 0) {
  // A renamed or deleted slow file would otherwise join the quick tier unnoticed.
  console.error(`run-tests: SLOW names file(s) that do not exist: ${missing.join(", ")}`);
  process.exit(1);
}
const files = find("test")
  .sort()
  .filter((f) => !quick || !SLOW.has(underTest(f)))
  .filter((f) => filter.length === 0 || filter.some((s) => f.includes(s)));
if (files.length === 0) {
  console.error("no test files found");
  process.exit(1);
}

const tmp = mkdtempSync(join(os.tmpdir(), "gbr-run-tests-"));
const skipsFile = join(tmp, "skips.jsonl");
// Both resolved from this script's folder, so the runner also works from a directory without
// node_modules (its own test runs it in a temporary folder).
const tsx = pathToFileURL(require.resolve("tsx")).href;
const skipReporter = pathToFileURL(join(__dirname, "skip-reporter.mjs")).href;
const readable = process.stdout.isTTY ? "spec" : "tap";
const args = [
  "--import", tsx,
  "--test", "--test-concurrency=2",
  `--test-reporter=${readable}`, "--test-reporter-destination=stdout",
  `--test-reporter=${skipReporter}`, `--test-reporter-destination=${skipsFile}`,
  ...files,
];
const testTmp = join(tmp, "tmp");
mkdirSync(testTmp);
const r = spawnSync(process.execPath, args, { stdio: "inherit", env: { ...process.env, TMPDIR: testTmp } });
const leftovers = readdirSync(testTmp).filter((name) => name.startsWith("gbr-")).sort();

let skipped;
try {
  skipped = readFileSync(skipsFile, "utf8").split("\n").filter(Boolean).map((l) => JSON.parse(l));
} catch (err) {
  console.error(`\nrun-tests: the skip check did not run (${err.message}); failing the run`);
  rmSync(tmp, { recursive: true, force: true });
  process.exit(1);
}
rmSync(tmp, { recursive: true, force: true });

/**
 * The source line of a skipped test, found by its name, since node's own positions point into
 * tsx's output; none when the name is not written out exactly once (a template literal, say).
 */
function lineOf(file, name) {
  let text;
  try {
    text = readFileSync(file, "utf8");
  } catch {
    return undefined;
  }
  const at = text.indexOf(name);
  if (!name || at < 0 || text.indexOf(name, at + 1) >= 0) return undefined;
  return text.slice(0, at).split("\n").length;
}

const where = (s) => {
  const line = lineOf(s.file, s.leaf);
  return `${relative(process.cwd(), s.file) || s.file}${line ? `:${line}` : ""}`;
};
const describeSkip = (s) => `  ${where(s)}  ${s.name}  (${s.kind}${s.reason ? `: ${s.reason}` : ", no reason"})`;
const optedOut = skipped.filter((s) => typeof s.reason === "string" && s.reason.startsWith(OPT_OUT));
const refused = skipped.filter((s) => !optedOut.includes(s));

if (optedOut.length > 0) {
  console.error(`\nrun-tests: ${optedOut.length} test(s) not run, opted out with "${OPT_OUT}":`);
  for (const s of optedOut) console.error(describeSkip(s));
}
if (leftovers.length > 0) {
  console.error(`\nrun-tests: FAIL: the tests left ${leftovers.length} entries in the temporary folder: ${leftovers.join(", ")} (their prefix names the test; it must remove what it made)`);
}
if (refused.length > 0) {
  console.error(`\nrun-tests: FAIL: ${refused.length} test(s) skipped or todo without an "${OPT_OUT}" reason (see the header of scripts/run-tests.js):`);
  for (const s of refused) console.error(describeSkip(s));
}
if (refused.length > 0 || leftovers.length > 0) process.exit(r.status || 1);
process.exit(r.status ?? 1);
