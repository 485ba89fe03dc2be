import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, promises as fs, readFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { loadBenchmark } from "../../lib/data/source";
import { DownloadError } from "../../lib/util/download";
import { readConfig } from "../../lib/config";
import { REPO } from "../helpers/shared";
import { runGbr } from "../helpers/gbr";

// Issue 28, items 1 and 8: a BEIR folder as BEIR ships it (more queries than judgments) is searched whole and evaluated
// on its judged queries, saying how many were left out; a source asked for by name is that source or an error, and only
// the default falls back to the demo set.

let tmp = "";
/** data/sample with three queries added that have no judgment, as scifact ships queries beyond its test qrels. */
let extra = "";
const UNJUDGED = ["X1", "X2", "X3"];
const NOTE = "3 queries have no judgments: not evaluated";

function gbr(args: string[], env?: Record<string, string>) {
  return runGbr(args, { dataDir: path.join(tmp, "data"), env, timeoutMs: 120_000 });
}

const trecQueries = (file: string) => new Set(readFileSync(file, "utf8").trim().split("\n").map((l) => l.split(" ")[0]));
const csvRows = (file: string) => readFileSync(file, "utf8").trim().split("\n").slice(1).map((l) => l.split(","));

before(async () => {
  tmp = await fs.mkdtemp(path.join(os.tmpdir(), "gbr-researcher-data-"));
  extra = path.join(tmp, "extra");
  const sample = path.join(REPO, "data", "sample");
  await fs.mkdir(path.join(extra, "qrels"), { recursive: true });
  for (const f of ["corpus.jsonl", "meta.jsonl", path.join("qrels", "test.tsv")]) await fs.copyFile(path.join(sample, f), path.join(extra, f));
  const added = UNJUDGED.map((id, i) => JSON.stringify({ _id: id, text: `Ο Α πώλησε στον Β ακίνητο και ζητά τίμημα ${i + 1}. Ποια αξίωση έχει;` }));
  await fs.writeFile(path.join(extra, "queries.jsonl"), readFileSync(path.join(sample, "queries.jsonl"), "utf8") + added.join("\n") + "\n");
});
after(() => fs.rm(tmp, { recursive: true, force: true }));

test("item 1: data stats counts the queries without judgments in one line and keeps them out of the per-query figures", async () => {
  const text = await gbr(["data", "stats", "--data", extra]);
  assert.equal(text.code, 0, text.stderr);
  assert.ok(text.stdout.includes(`${NOTE}; the gold figures and Table 6 are of the other 26`), text.stdout);
  const json = await gbr(["data", "stats", "--data", extra, "--json"]);
  const s = JSON.parse(json.stdout) as { table1: { queries: number; unjudged: number; goldPerQuery: number }; table6: { queries: number }[] };
  const sample = JSON.parse((await gbr(["data", "stats", "--data", "sample", "--json"])).stdout) as typeof s;
  assert.deepEqual([s.table1.queries, s.table1.unjudged, sample.table1.unjudged], [29, 3, 0]);
  assert.equal(s.table1.goldPerQuery, sample.table1.goldPerQuery, "gold per query is over the judged queries");
  assert.deepEqual(s.table6, sample.table6, "Table 6 is of the judged queries");
});

test("item 1: search ranks every query; eval, compare and errors leave out the unjudged ones in one line", async () => {
  const run = path.join(tmp, "bm25.trec");
  const search = await gbr(["search", "--data", extra, "--out", run, "-q"]);
  assert.equal(search.code, 0, search.stderr);
  assert.equal(trecQueries(run).size, 29);
  // An ad-hoc query, judged nowhere, searched against a source's corpus.
  const adhoc = path.join(tmp, "adhoc.jsonl");
  await fs.writeFile(adhoc, JSON.stringify({ _id: "mine", text: "Ποια αξίωση έχει ο αγοραστής για ελάττωμα του πράγματος;" }) + "\n");
  const mine = await gbr(["search", "--data", "sample", "--queries", adhoc, "--format", "json", "-q"]);
  assert.equal(mine.code, 0, mine.stderr);
  assert.deepEqual(Object.keys(JSON.parse(mine.stdout)), ["mine"]);
  // Reproduce evaluates: with no judged query at all, every mean would be a 0 that looks like a result.
  const nothing = await gbr(["reproduce", "--data", "sample", "--queries", adhoc, "--out", path.join(tmp, "out-adhoc"), "--only", "bm25-greekstemmer"]);
  assert.equal(nothing.code, 1, nothing.stdout);
  assert.ok(nothing.stderr.includes(`${adhoc}: its one query has no relevant judgment: nothing to evaluate`), nothing.stderr);
  assert.ok(!existsSync(path.join(tmp, "out-adhoc")), "nothing written");
  const qrels = path.join(extra, "qrels", "test.tsv");
  const evaluated = await gbr(["eval", "--qrels", qrels, "--run", run, "--json", "--per-query"]);
  assert.equal(evaluated.code, 0, evaluated.stderr);
  assert.ok(evaluated.stderr.includes(`note: ${run}: ${NOTE} (e.g. 'X1')`), evaluated.stderr);
  assert.equal(Object.keys(JSON.parse(evaluated.stdout).perQuery).length, 26);
  const other = path.join(tmp, "again.trec");
  await fs.copyFile(run, other);
  for (const cmd of ["compare", "errors"]) {
    const r = await gbr([cmd, "--qrels", qrels, "--run", run, "--run", other]);
    assert.equal(r.code, 0, `${cmd}: ${r.stderr}`);
    assert.ok(r.stderr.includes(`note: bm25: ${NOTE} (e.g. 'X1')`), `${cmd}: ${r.stderr}`);
  }
});

test("item 1: reproduce writes run files of every query (tuned and oracle runs included) and scores the judged ones, saying so", async () => {
  const only = ["--only", "bm25-greekstemmer,oracle:bm25-greekstemmer,tuned:bm25-greekstemmer"];
  const r = await gbr(["reproduce", "--data", extra, "--out", path.join(tmp, "out"), ...only]);
  assert.equal(r.code, 0, r.stderr);
  assert.ok(r.stdout.includes(`${NOTE} (searched, in the run files; the metrics are over the other 26)`), r.stdout);
  const dir = path.join(tmp, "out", "extra");
  for (const id of ["bm25-greekstemmer", "oracle__bm25-greekstemmer", "tuned__bm25-greekstemmer"]) {
    assert.equal(trecQueries(path.join(dir, "runs", `${id}.trec`)).size, 29, id);
  }
  const perQuery = csvRows(path.join(dir, "per-query.csv"));
  assert.equal(perQuery.length, 3 * 26);
  assert.ok(!perQuery.some((row) => UNJUDGED.includes(row[2])));
  const meta = JSON.parse(readFileSync(path.join(dir, "metadata.json"), "utf8"));
  assert.deepEqual([meta.queries, meta.unjudged], [29, 3]);
  assert.match(readFileSync(path.join(dir, "tables.md"), "utf8"), new RegExp(`26 queries evaluated \\(${NOTE}\\)`));
  // The judged queries' numbers are those of the same set without the extra queries.
  const plain = await gbr(["reproduce", "--data", "sample", "--out", path.join(tmp, "out"), ...only]);
  assert.equal(plain.code, 0, plain.stderr);
  const means = (d: string) => csvRows(path.join(tmp, "out", d, "summary.csv")).filter((c) => c[2] === "ok").map((c) => c.slice(0, 8).join(","));
  assert.deepEqual(means("extra"), means("sample"));
  // The report's page says it too.
  const report = await gbr(["report", "--out", path.join(tmp, "out")]);
  assert.equal(report.code, 0, report.stderr);
  assert.match(readFileSync(path.join(dir, "report.html"), "utf8"), /29 queries \(3 without judgments: not evaluated\)/);
});

test("item 8: a source named is that source or an error; only the default falls back to the demo set", async () => {
  // No Hub (runGbr's HF_ENDPOINT never resolves) and an empty data folder: nothing cached.
  const env = { GBR_DATA_DIR: path.join(tmp, "empty-cache") };
  const out = path.join(tmp, "out-hf");
  for (const args of [["reproduce", "--out", out, "--only", "bm25-greekstemmer"], ["search", "-q"], ["data", "stats"]]) {
    const asked = await gbr([...args, "--data", "hf"], env);
    assert.equal(asked.code, 1, `${args[0]} --data hf: ${asked.stdout}`);
    assert.match(asked.stderr, /cannot load AUEB-NLP\/greek-bar-bench@v2\.0: cannot reach http:\/\/unreachable\.invalid .* no cache at .*HF_ENDPOINT/, args[0]);
    assert.doesNotMatch(asked.stderr, /falling back/, args[0]);
    assert.equal(asked.stdout, "", args[0]);
    const byDefault = await gbr(args, env);
    assert.equal(byDefault.code, 0, `${args[0]}: ${byDefault.stderr}`);
    assert.match(byDefault.stderr, /falling back to the bundled demo set/, args[0]);
  }
  assert.ok(existsSync(path.join(out, "sample")), "the default's demo run wrote its outputs");
  assert.ok(!existsSync(path.join(out, "hf")));
});

test("item 8: the library follows the same rule (loadBenchmark with a source, or none)", async () => {
  const config = readConfig({ HF_ENDPOINT: "http://unreachable.invalid", GBR_DATA_DIR: path.join(tmp, "lib-cache") });
  await assert.rejects(loadBenchmark("hf", { config }), (e: unknown) => e instanceof DownloadError && e.code === "OFFLINE" && /HF_ENDPOINT/.test(e.message));
  const byDefault = await loadBenchmark(undefined, { config });
  assert.equal(byDefault.origin, "sample");
  assert.match(byDefault.fallback ?? "", /could not be used/);
  const own = await loadBenchmark(extra);
  assert.deepEqual([own.origin, own.benchmark.queries.length, own.benchmark.qrels.size], ["dir", 29, 26]);
});
