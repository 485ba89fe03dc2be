import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { promises as fs } from "node:fs";
import os from "node:os";
import path from "node:path";
import { METRICS } from "../../lib/eval/metrics";
import { holm } from "../../lib/eval/randomization";
import { REPO } from "../helpers/shared";

const GBR = path.join(REPO, "bin", "gbr.js");
let tmp = "";
const file = (name: string) => path.join(tmp, name);

/** Runs the real `gbr` process and collects its exit code and output. */
function gbr(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [GBR, ...args], { cwd: REPO, timeout: 120_000, env: { ...process.env, CI: "true" } }, (err, stdout, stderr) => {
      const code = err ? (typeof (err as { code?: unknown }).code === "number" ? ((err as { code: number }).code) : 1) : 0;
      resolve({ code, stdout, stderr });
    });
  });
}

/**
 * 30 queries with one gold article each. good: gold at rank 1 everywhere; bad: gold at rank 2
 * everywhere; half: gold at rank 1 on odd queries, missing on even ones (and, as JSON, no
 * ranking at all for q30, which must score 0). So on nDCG@10 good beats both, bad and half
 * differ insignificantly, and on Recall@10 good and bad tie exactly.
 */
before(async () => {
  tmp = await fs.mkdtemp(path.join(os.tmpdir(), "gbr-compare-test-"));
  const n = 30;
  const q = Array.from({ length: n }, (_, i) => `q${i + 1}`);
  await fs.writeFile(file("qrels.tsv"), "query-id\tcorpus-id\tscore\n" + q.map((id, i) => `${id}\tΑΚ::${i + 1}\t1\n`).join(""));
  const trec = (rows: [string, string[]][], tag: string) => rows.flatMap(([qid, docs]) => docs.map((d, r) => `${qid} Q0 ${d} ${r + 1} ${100 - r} ${tag}\n`)).join("");
  await fs.writeFile(file("good.trec"), trec(q.map((id, i) => [id, [`ΑΚ::${i + 1}`, `ΠΚ::${i + 1}`]]), "good"));
  await fs.writeFile(file("bad.trec"), trec(q.map((id, i) => [id, [`ΠΚ::${i + 1}`, `ΑΚ::${i + 1}`]]), "bad"));
  const half = Object.fromEntries(q.slice(0, n - 1).map((id, i) => [id, i % 2 === 0 ? [`ΑΚ::${i + 1}`] : [`ΠΚ::${i + 1}`]]));
  await fs.writeFile(file("half.json"), JSON.stringify(half));
});

after(async () => {
  await fs.rm(tmp, { recursive: true, force: true });
});

test("gbr compare --json: every pair × metric, run names from file names, Holm over all tests", async () => {
  const r = await gbr(["compare", "--qrels", file("qrels.tsv"), "--run", file("good.trec"), "--run", file("bad.trec"), "--run", file("half.json"), "--json"]);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stderr, /half\.json: \d+ of the qrels' \d+ queries are in the run; the 1 missing score 0/);
  const body = JSON.parse(r.stdout) as { tests: Record<string, unknown>[] };
  assert.deepEqual(Object.keys(body), ["tests"]);
  assert.equal(body.tests.length, 3 * METRICS.length);
  for (const t of body.tests) assert.deepEqual(Object.keys(t), ["a", "b", "metric", "meanA", "meanB", "delta", "p", "pHolm"]);
  assert.deepEqual(
    body.tests.map((t) => `${t.a}|${t.b}|${t.metric}`),
    [["good", "bad"], ["good", "half"], ["bad", "half"]].flatMap(([a, b]) => METRICS.map((m) => `${a}|${b}|${m}`)),
  );
  assert.deepEqual(body.tests.map((t) => t.pHolm), holm(body.tests.map((t) => t.p as number)));
  const get = (a: string, b: string, m: string) => body.tests.find((t) => t.a === a && t.b === b && t.metric === m)!;
  // good vs bad on nDCG@10: d = 1 − 1/log2(3) on every query; no flip reaches it.
  const gb = get("good", "bad", "nDCG@10");
  assert.equal(gb.meanA, 1);
  assert.ok(Math.abs((gb.meanB as number) - 1 / Math.log2(3)) < 1e-12);
  assert.equal(gb.p, 1 / 100_001, "default 100,000 swaps");
  // Both find the gold within 10: identical Recall@10, p = 1 exactly.
  assert.equal(get("good", "bad", "Recall@10").p, 1);
  assert.equal(get("good", "bad", "Recall@10").delta, 0);
  // half: 15 of 30 at rank 1 (q30 missing from the run scores 0).
  assert.equal(get("good", "half", "Recall@100").meanB, 0.5);
});

test("gbr compare: a ranx-style table with superscripts for significant wins, a legend, then the test list", async () => {
  const r = await gbr(["compare", "--qrels", file("qrels.tsv"), "--run", file("good.trec"), "--run", file("bad.trec"), "--run", file("half.json"), "--metric", "nDCG@10,Recall@10", "--swaps", "20000", "--seed", "7"]);
  assert.equal(r.code, 0, r.stderr);
  const lines = r.stdout.split("\n");
  assert.match(lines[0], /^#\s+run\s+nDCG@10\s+Recall@10$/);
  // good beats bad and half on nDCG@10, and half on Recall@10 (it ties with bad there);
  // bad beats half on Recall@10 (1 vs 0.5); nobody beats good.
  assert.match(r.stdout, /^a\s+good\s+1\.0000ᵇᶜ\s+1\.0000ᶜ$/m);
  assert.match(r.stdout, /^b\s+bad\s+0\.6309\s+1\.0000ᶜ$/m);
  assert.match(r.stdout, /^c\s+half\s+0\.5000\s+0\.5000$/m);
  assert.match(r.stdout, /20,000 random sign flips, seed 7, 30 queries, Holm over all 6 tests; p_Holm < 0\.05/);
  assert.match(r.stdout, /^a\s+b\s+metric\s+delta\s+p\s+pHolm$/m);
  assert.match(r.stdout, /^good\s+bad\s+nDCG@10\s+0\.3691\s+0\.00005\s+0\.00030$/m);
  assert.match(r.stdout, /^good\s+bad\s+Recall@10\s+0\.0000\s+1\.00000\s+1\.00000$/m);
});

test("gbr compare: usage errors name the problem (exit 2)", async () => {
  const one = await gbr(["compare", "--qrels", file("qrels.tsv"), "--run", file("good.trec")]);
  assert.equal(one.code, 2);
  assert.match(one.stderr, /at least two runs/);
  const metric = await gbr(["compare", "--qrels", file("qrels.tsv"), "--run", file("good.trec"), "--run", file("bad.trec"), "--metric", "P@5"]);
  assert.equal(metric.code, 2);
  assert.match(metric.stderr, /'P@5' is one of gbr eval's metrics at any cut \(MRR@k, P@k, Success@k, Judged@k\); here only the paper's five: nDCG@10, nDCG@100, Recall@10, Recall@100, MAP@100/);
  const noQrels = await gbr(["compare", "--run", file("good.trec"), "--run", file("bad.trec")]);
  assert.equal(noQrels.code, 2);
  assert.match(noQrels.stderr, /--qrels/);
  const swaps = await gbr(["compare", "--qrels", file("qrels.tsv"), "--run", file("good.trec"), "--run", file("bad.trec"), "--swaps", "0"]);
  assert.equal(swaps.code, 2);
  assert.match(swaps.stderr, /--swaps must be an integer >= 1/);
  const dup = await gbr(["compare", "--qrels", file("qrels.tsv"), "--run", file("good.trec"), "--run", path.join(tmp, "..", path.basename(tmp), "good.trec")]);
  assert.equal(dup.code, 2);
  assert.match(dup.stderr, /two runs are named 'good'/);
});

test("gbr compare --pair … --seed S: the tests in the order given on one stream, the counts of the authors' loop", async () => {
  const args = ["compare", "--qrels", file("qrels.tsv"), "--run", file("good.trec"), "--run", file("bad.trec"), "--run", file("half.json")];
  const seed = "18446744073709551619"; // past 2^64: numpy takes any non-negative integer
  const r = await gbr([...args, "--pair", "half,good", "--pair", "bad,half", "--metric", "Recall@100,nDCG@10", "--swaps", "3000", "--seed", seed, "--json"]);
  assert.equal(r.code, 0, r.stderr);
  const tests = (JSON.parse(r.stdout) as { tests: { a: string; b: string; metric: string; p: number }[] }).tests;
  assert.deepEqual(
    tests.map((t) => `${t.a}|${t.b}|${t.metric}`),
    ["half|good|Recall@100", "half|good|nDCG@10", "bad|half|Recall@100", "bad|half|nDCG@10"],
  );
  assert.match(r.stderr, new RegExp(`numpy default_rng\\(${seed}\\), one stream for the 4 tests in the order listed`));
  // The authors' loop on the same per-query values (in qrels order), one generator for the family.
  const { Pcg64 } = await import("../../lib/numeric/random.js");
  const { pairedRandomizationTest } = await import("../../lib/eval/randomization.js");
  const { evaluate } = await import("../../lib/eval/metrics.js");
  const { readRun } = await import("../../lib/data/runs.js");
  const { readQrels } = await import("../../lib/data/qrels.js");
  const qrels = await readQrels(file("qrels.tsv"));
  const per = async (f: string) => evaluate((await readRun(file(f))).rankings, qrels).perQuery;
  const runs = { good: await per("good.trec"), bad: await per("bad.trec"), half: await per("half.json") };
  const qids = [...qrels.keys()];
  const rng = Pcg64.fromSeed(BigInt(seed));
  const column = (name: keyof typeof runs, m: "Recall@100" | "nDCG@10") => qids.map((q) => runs[name].get(q)?.[m] ?? 0);
  const want = (
    [
      ["half", "good"],
      ["bad", "half"],
    ] as const
  ).flatMap(([a, b]) => (["Recall@100", "nDCG@10"] as const).map((m) => pairedRandomizationTest(column(a, m), column(b, m), { rng, swaps: 3000 }).p));
  assert.deepEqual(
    tests.map((t) => t.p),
    want,
  );
  const bad = await gbr([...args, "--pair", "good"]);
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /--pair takes A,B/);
  const unknown = await gbr([...args, "--pair", "good,nope"]);
  assert.equal(unknown.code, 2);
  assert.match(unknown.stderr, /no run named 'nope'/);
  const negative = await gbr([...args, "--seed=-3"]);
  assert.equal(negative.code, 2);
  assert.match(negative.stderr, /--seed must be a non-negative integer/);
});
