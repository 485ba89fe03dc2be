import { test, after } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { REPO } from "../../helpers/shared";

// scripts/run-tests.js on tiny synthetic suites in a temporary folder: a skip fails the run,
// an "opt-out:" reason lets it pass.

const RUNNER = path.join(REPO, "scripts", "run-tests.js");
const TMP = mkdtempSync(path.join(os.tmpdir(), "gbr-run-tests-test-"));
after(() => rmSync(TMP, { recursive: true, force: true }));

const SUITES: Record<string, string> = {
  "skip.test.ts": `import { test } from "node:test";
test("runs", () => {});
test("left out", { skip: "needs a GPU" }, () => {});
`,
  "nested.test.ts": `import { describe, test } from "node:test";
describe("outer", () => {
  test("inner", (t) => { t.skip(); });
  test("fine", () => {});
});
`,
  "todo.test.ts": `import { test } from "node:test";
test("later", { todo: true }, () => {});
`,
  "opt-out.test.ts": `import { describe, test } from "node:test";
test("runs", () => {});
test("no GPU here", { skip: "opt-out: needs CUDA, run by hand" }, () => {});
describe("suite", () => {
  test("unfinished", (t) => { t.todo("opt-out: waiting on upstream"); });
});
`,
  "fails.test.ts": `import { test } from "node:test";
test("broken", () => { throw new Error("boom"); });
test("opted", { skip: "opt-out: irrelevant" }, () => {});
`,
};
// A test that leaves a folder in the temporary folder, and one that cleans up after itself.
SUITES["leak.test.ts"] = `import { test } from "node:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
test("leaves one", () => { mkdtempSync(path.join(os.tmpdir(), "gbr-leak-")); writeFileSync(path.join(os.tmpdir(), "gbr-leak-file.json"), "{}"); });
test("cleans up", () => { rmSync(mkdtempSync(path.join(os.tmpdir(), "gbr-tidy-")), { recursive: true }); });
`;
// A file of the runner's SLOW list (the full suite's only), here with a skip that must surface in
// the full run and not in the quick one.
SUITES["unit/dense/lsi.test.ts"] = `import { test } from "node:test";
test("slow one", { skip: "needs time" }, () => {});
`;
for (const [name, text] of Object.entries(SUITES)) {
  mkdirSync(path.dirname(path.join(TMP, "test", name)), { recursive: true });
  writeFileSync(path.join(TMP, "test", name), text);
}

function run(...filter: string[]) {
  // The runner under test must not take this test process's runner for its parent.
  const env = { ...process.env };
  delete env.NODE_TEST_CONTEXT;
  const r = spawnSync(process.execPath, [RUNNER, ...filter], { cwd: TMP, env, encoding: "utf8", timeout: 60_000 });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

test("a skipped test fails the run, listed with its file, line and reason", () => {
  const r = run("skip.test");
  assert.equal(r.code, 1, r.stdout + r.stderr);
  assert.match(r.stdout, /^ok \d+ - left out # SKIP needs a GPU$/m, "the readable TAP output is still there");
  assert.match(r.stderr, /FAIL: 1 test\(s\) skipped or todo without an "opt-out:" reason/);
  assert.match(r.stderr, /test\/skip\.test\.ts:3 {2}left out {2}\(skip: needs a GPU\)/);
});

test("a subtest skipped at run time, and a todo, fail the run too", () => {
  const r = run("nested.test", "todo.test");
  assert.equal(r.code, 1, r.stdout + r.stderr);
  assert.match(r.stderr, /FAIL: 2 test\(s\)/);
  assert.match(r.stderr, /test\/nested\.test\.ts:3 {2}outer > inner {2}\(skip, no reason\)/);
  assert.match(r.stderr, /test\/todo\.test\.ts:2 {2}later {2}\(todo, no reason\)/);
});

test("skips and todos with an opt-out: reason pass, and are still listed", () => {
  const r = run("opt-out.test");
  assert.equal(r.code, 0, r.stdout + r.stderr);
  assert.doesNotMatch(r.stderr, /FAIL/);
  assert.match(r.stderr, /2 test\(s\) not run, opted out with "opt-out:"/);
  assert.match(r.stderr, /no GPU here {2}\(skip: opt-out: needs CUDA, run by hand\)/);
  assert.match(r.stderr, /suite > unfinished {2}\(todo: opt-out: waiting on upstream\)/);
});

test("a failing test still fails the run when every skip is opted out", () => {
  const r = run("fails.test");
  assert.equal(r.code, 1, r.stdout + r.stderr);
  assert.match(r.stdout, /^not ok \d+ - broken$/m);
  assert.doesNotMatch(r.stderr, /FAIL:/);
});

test("--quick leaves out the SLOW files and keeps the skip check; the full run has them", () => {
  const quick = run("--quick", "opt-out.test", "unit/dense/lsi");
  assert.equal(quick.code, 0, quick.stdout + quick.stderr);
  assert.doesNotMatch(quick.stdout, /slow one/);
  assert.match(quick.stderr, /2 test\(s\) not run, opted out/, "the skip check runs in the quick tier");
  const full = run("opt-out.test", "unit/dense/lsi");
  assert.equal(full.code, 1, full.stdout + full.stderr);
  assert.match(full.stderr, /test\/unit\/dense\/lsi\.test\.ts:2 {2}slow one {2}\(skip: needs time\)/);
});

test("--quick alone finds no file when every one is slow", () => {
  const r = run("--quick", "unit/dense/lsi");
  assert.equal(r.code, 1);
  assert.match(r.stderr, /no test files found/);
});

test("a test leaving gbr-* entries in the temporary folder fails the run, naming them; the system's folder keeps none", () => {
  const before = readdirSync(os.tmpdir()).filter((n) => n.startsWith("gbr-leak-"));
  const r = run("leak.test");
  assert.equal(r.code, 1, r.stdout + r.stderr);
  assert.match(r.stdout, /^ok \d+ - leaves one$/m, "the test itself passes");
  const named = /FAIL: the tests left 2 entries in the temporary folder: (\S+), (\S+) \(/.exec(r.stderr);
  assert.ok(named, r.stderr);
  assert.deepEqual([named[1], named[2]].map((n) => n.replace(/^gbr-leak-\w{6}$/, "gbr-leak-XXXXXX")).sort(), ["gbr-leak-XXXXXX", "gbr-leak-file.json"]);
  assert.doesNotMatch(r.stderr, /gbr-tidy-/);
  assert.deepEqual(readdirSync(os.tmpdir()).filter((n) => n.startsWith("gbr-leak-")), before, "the runner removed them");
  const clean = run("opt-out.test");
  assert.doesNotMatch(clean.stderr, /temporary folder/);
});
