/**
 * Issue 28, item 9: the command line could not load a retriever of the user's. `--require FILE` loads a module that
 * imports `greekbar-retrieval` and calls `registerRetriever`; the module, written to a folder outside any project,
 * reaches the very package the command runs (its build in the child process, its sources in this one), so the name
 * it registers works in `gbr search`, `gbr reproduce --only` (alone and composed) and `gbr report`.
 */
import assert from "node:assert/strict";
import { promises as fs } from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, test } from "node:test";
import { main } from "../../lib/cli/main";
import { parseCsvRecords } from "../../lib/util/csv";
import { reportFigures } from "../../lib/report/html";
import { runGbr } from "../helpers/gbr";

let tmp = "";
const gbr = (args: string[]) => runGbr(args, { dataDir: path.join(tmp, "data"), timeoutMs: 120_000 });

// Each module ranks the sample's articles in reverse order of id, a run no built-in makes.
const RANKER = `async (name, bench) => ({
  name,
  retrieve: (queries, k) => ({ rankings: new Map(queries.map((q) => [q.id, bench.docs.map((d) => d.id).sort().reverse().slice(0, k)])) }),
})`;

before(async () => {
  tmp = await fs.mkdtemp(path.join(os.tmpdir(), "gbr-plugin-"));
  await fs.writeFile(path.join(tmp, "my-retriever.mjs"), `import { registerRetriever } from "greekbar-retrieval";\nregisterRetriever("my-name", ${RANKER});\n`);
  await fs.writeFile(path.join(tmp, "other.cjs"), `const { registerRetriever } = require("greekbar-retrieval");\nregisterRetriever("other-name", ${RANKER});\n`);
  await fs.writeFile(path.join(tmp, "broken.mjs"), `throw new Error("no model file here");\n`);
});
after(async () => {
  await fs.rm(tmp, { recursive: true, force: true });
});

test("gbr reproduce --require FILE --only runs the registered retriever alone and composed, and gbr report shows both rows", async () => {
  const out = path.join(tmp, "out");
  const r = await gbr(["reproduce", "--data", "sample", "--out", out, "-q", "--require", path.join(tmp, "my-retriever.mjs"), "--only", "my-name,rrf:bm25-greekstemmer+my-name"]);
  assert.equal(r.code, 0, r.stderr);
  const rows = parseCsvRecords(await fs.readFile(path.join(out, "sample", "summary.csv"), "utf8"));
  assert.deepEqual(
    rows.map((x) => [x.experiment, x.status]),
    [
      ["my-name", "ok"],
      ["rrf:bm25-greekstemmer+my-name", "ok"],
    ],
  );
  assert.match(rows[0].list, /your own/);
  const report = await gbr(["report", "--out", out]);
  assert.equal(report.code, 0, report.stderr);
  const html = await fs.readFile(path.join(out, "sample", "report.html"), "utf8");
  assert.ok(html.includes("rrf:bm25-greekstemmer+my-name"), "the report has the composed row");
  const figures = JSON.stringify((await reportFigures(path.join(out, "sample"))).map((f) => f.fig));
  assert.ok(figures.includes("my-name"), "a figure draws the registered retriever's row");
});

test("gbr search --require loads .mjs and .cjs modules; an unknown name gets the did-you-mean error; a bad module is named", async () => {
  const mjs = path.join(tmp, "my-retriever.mjs");
  const r = await gbr(["search", "--data", "sample", "-q", "--require", mjs, "--require", path.join(tmp, "other.cjs"), "--retriever", "rrf:my-name+other-name", "--k", "2"]);
  assert.equal(r.code, 0, r.stderr);
  const lines = r.stdout.trim().split("\n");
  assert.ok(lines.length > 0 && lines.every((l) => l.endsWith(" rrf:my-name+other-name")), r.stdout);

  const typo = await gbr(["search", "--data", "sample", "-q", "--require", mjs, "--retriever", "my-nam"]);
  assert.equal(typo.code, 2);
  assert.match(typo.stderr, /unknown retriever 'my-nam' \(did you mean 'my-name'\?\)/);

  const missing = await gbr(["search", "--data", "sample", "-q", "--require", path.join(tmp, "nowhere.mjs")]);
  assert.equal(missing.code, 2);
  assert.match(missing.stderr, /--require .*nowhere\.mjs: no such file/);

  const broken = await gbr(["reproduce", "--data", "sample", "--out", path.join(tmp, "none"), "-q", "--require", path.join(tmp, "broken.mjs"), "--only", "lsi"]);
  assert.equal(broken.code, 1);
  assert.match(broken.stderr, /--require .*broken\.mjs: the module failed to load: no model file here/);

  const unknown = await gbr(["reproduce", "--data", "sample", "--out", path.join(tmp, "none"), "-q", "--require", mjs, "--only", "not-an-experiment"]);
  assert.equal(unknown.code, 2, "an id that is neither an experiment nor a registered retriever stays a usage error");
  assert.match(unknown.stderr, /unknown experiment id 'not-an-experiment'/);
});

test("from the sources (as a checkout without a current build runs them), the module reaches the same registry", async () => {
  let stdout = "";
  let stderr = "";
  const io = { stdout: (t: string) => void (stdout += t), stderr: (t: string) => void (stderr += t), stdin: async () => "" };
  const saved = process.env.GBR_DATA_DIR;
  process.env.GBR_DATA_DIR = path.join(tmp, "data-in-process");
  try {
    const code = await main(["search", "--data", "sample", "-q", "--require", path.join(tmp, "my-retriever.mjs"), "--retriever", "my-name", "--k", "1", "--format", "json"], io);
    assert.equal(code, 0, stderr);
  } finally {
    process.env.GBR_DATA_DIR = saved;
  }
  const run = JSON.parse(stdout) as Record<string, string[]>;
  assert.ok(Object.values(run).every((ids) => ids.length === 1), stdout);
  stderr = "";
  assert.equal(await main(["search", "--data", "sample", "-q", "--require", path.join(tmp, "mine.ts")], io), 2);
  assert.match(stderr, /--require .*mine\.ts: give a JavaScript module \(\.js, \.mjs or \.cjs\)/);
});
