import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { promises as fs } from "node:fs";
import os from "node:os";
import path from "node:path";
import { METRICS } from "../../lib/eval/metrics";
import { runGbr } from "../helpers/gbr";

// Issue 10, "strict input", through the real `gbr eval` and `gbr compare`: a run that cannot be
// scored exits 1 naming the run file; a partial one is scored with the counts on stderr, and
// stdout keeps DESIGN §4's shape.

let tmp = "";
const file = (name: string) => path.join(tmp, name);
const gbr = (args: string[]) => runGbr(args, { dataDir: file("data"), timeoutMs: 120_000 });

const Q = Array.from({ length: 8 }, (_, i) => `q${i + 1}`);
const trec = (qids: string[]) => qids.flatMap((q, i) => [`${q} Q0 ΑΚ::${i + 1} 1 2.0 t`, `${q} Q0 ΠΚ::${i + 1} 2 1.0 t`]).join("\n") + "\n";

before(async () => {
  tmp = await fs.mkdtemp(path.join(os.tmpdir(), "gbr-strict-cli-"));
  await fs.writeFile(file("qrels.tsv"), "query-id\tcorpus-id\tscore\n" + Q.map((q, i) => `${q}\tΑΚ::${i + 1}\t1\n`).join(""));
  await fs.writeFile(file("full.trec"), trec(Q));
  await fs.writeFile(file("part.trec"), trec(Q.slice(0, 6)));
  await fs.writeFile(file("empty.trec"), "");
  await fs.writeFile(file("empty.json"), "{}\n");
  await fs.writeFile(file("other.trec"), trec(["Q-9", "Q-10"]));
  await fs.writeFile(file("latin1.trec"), Buffer.concat([Buffer.from("q1 Q0 caf"), Buffer.from([0xe9]), Buffer.from(" 1 1.0 t\n")]));
  await fs.writeFile(file("hex.tsv"), "query-id\tcorpus-id\tscore\nq1\tΑΚ::1\t0x10\n");
});

after(async () => {
  await fs.rm(tmp, { recursive: true, force: true });
});

test("gbr eval: an empty run (TREC or JSON) exits 1 naming the run file", async () => {
  for (const name of ["empty.trec", "empty.json"]) {
    const r = await gbr(["eval", "--qrels", file("qrels.tsv"), "--run", file(name), "--json"]);
    assert.equal(r.code, 1, r.stderr);
    assert.equal(r.stdout, "");
    assert.ok(r.stderr.includes(`gbr eval: ${file(name)}: the run is empty (no query): nothing to evaluate`), r.stderr);
  }
});

test("gbr eval: a run that shares no query with the qrels exits 1 naming the run file", async () => {
  const r = await gbr(["eval", "--qrels", file("qrels.tsv"), "--run", file("other.trec")]);
  assert.equal(r.code, 1, r.stderr);
  assert.equal(r.stdout, "");
  assert.ok(r.stderr.includes(`gbr eval: ${file("other.trec")}: the run shares no query with ${file("qrels.tsv")}: its 2 queries (e.g. 'Q-9')`), r.stderr);
});

test("gbr eval: a partial run is scored, warns with the counts, and stdout stays {mean, perQuery}", async () => {
  const r = await gbr(["eval", "--qrels", file("qrels.tsv"), "--run", file("part.trec"), "--json", "--per-query"]);
  assert.equal(r.code, 0, r.stderr);
  assert.ok(r.stderr.includes(`${file("part.trec")}: 6 of the qrels' 8 queries are in the run; the 2 missing score 0\n`), r.stderr);
  const body = JSON.parse(r.stdout) as { mean: Record<string, number>; perQuery: Record<string, Record<string, number>> };
  assert.deepEqual(Object.keys(body), ["mean", "perQuery"]);
  assert.deepEqual(Object.keys(body.mean), [...METRICS]);
  assert.equal(Object.keys(body.perQuery).length, 8, "the missing queries are scored, as 0");
  assert.equal(body.perQuery.q8["Recall@10"], 0);
  assert.equal(body.mean["Recall@10"], 6 / 8);
  // A complete run: no warning.
  const full = await gbr(["eval", "--qrels", file("qrels.tsv"), "--run", file("full.trec"), "--json"]);
  assert.equal(full.code, 0, full.stderr);
  assert.ok(!/of the qrels'/.test(full.stderr), full.stderr);
});

test("gbr eval: invalid UTF-8 in the run, or a hexadecimal qrels score, exits 1 naming file and line", async () => {
  const run = await gbr(["eval", "--qrels", file("qrels.tsv"), "--run", file("latin1.trec")]);
  assert.equal(run.code, 1, run.stderr);
  assert.ok(run.stderr.includes(`${file("latin1.trec")}:1: invalid UTF-8 at byte offset 9 (bytes 0xE9 0x20 0x31 0x20)`), run.stderr);
  const qrels = await gbr(["eval", "--qrels", file("hex.tsv"), "--run", file("full.trec")]);
  assert.equal(qrels.code, 1, qrels.stderr);
  assert.ok(qrels.stderr.includes(`${file("hex.tsv")}:2: score '0x10' is not a plain integer`), qrels.stderr);
});

test("gbr compare: an empty run, or one that shares no query with the qrels, exits 1 naming it", async () => {
  const empty = await gbr(["compare", "--qrels", file("qrels.tsv"), "--run", file("full.trec"), "--run", file("empty.trec"), "--swaps", "100", "--json"]);
  assert.equal(empty.code, 1, empty.stderr);
  assert.equal(empty.stdout, "");
  assert.ok(empty.stderr.includes(`gbr compare: ${file("empty.trec")}: the run is empty`), empty.stderr);
  const other = await gbr(["compare", "--qrels", file("qrels.tsv"), "--run", file("other.trec"), "--run", file("full.trec"), "--swaps", "100"]);
  assert.equal(other.code, 1, other.stderr);
  assert.ok(other.stderr.includes(`gbr compare: ${file("other.trec")}: the run shares no query with`), other.stderr);
});

test("gbr compare: a partial run is compared, warns with the counts, and stdout stays {tests: […]}", async () => {
  const r = await gbr(["compare", "--qrels", file("qrels.tsv"), "--run", file("full.trec"), "--run", file("part.trec"), "--swaps", "200", "--json"]);
  assert.equal(r.code, 0, r.stderr);
  assert.ok(r.stderr.includes(`${file("part.trec")}: 6 of the qrels' 8 queries are in the run; the 2 missing score 0\n`), r.stderr);
  assert.ok(!r.stderr.includes(`${file("full.trec")}:`), r.stderr);
  const body = JSON.parse(r.stdout) as { tests: Record<string, unknown>[] };
  assert.deepEqual(Object.keys(body), ["tests"]);
  assert.equal(body.tests.length, METRICS.length);
  for (const t of body.tests) assert.deepEqual(Object.keys(t), ["a", "b", "metric", "meanA", "meanB", "delta", "p", "pHolm"]);
  const recall = body.tests.find((t) => t.metric === "Recall@10")!;
  assert.deepEqual([recall.a, recall.b, recall.meanA, recall.meanB], ["full", "part", 1, 6 / 8]);
});
