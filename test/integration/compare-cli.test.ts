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

test("gbr compare --test wilcoxon --correction bh: the test and correction named in JSON and text, p by hand", async () => {
  const args = ["compare", "--qrels", file("qrels.tsv"), "--run", file("good.trec"), "--run", file("bad.trec"), "--run", file("half.json"), "--metric", "nDCG@10,Recall@10"];
  const r = await gbr([...args, "--test", "wilcoxon", "--correction", "bh", "--json"]);
  assert.equal(r.code, 0, r.stderr);
  assert.doesNotMatch(r.stderr, /Flips:/, "no flips drawn, no stream named");
  const body = JSON.parse(r.stdout) as { test: string; correction: string; tests: Record<string, number | string>[] };
  assert.deepEqual([Object.keys(body), body.test, body.correction], [["test", "correction", "tests"], "wilcoxon", "bh"]);
  for (const t of body.tests) assert.deepEqual(Object.keys(t), ["a", "b", "metric", "meanA", "meanB", "delta", "p", "pBH"]);
  const get = (a: string, b: string, m: string) => body.tests.find((t) => t.a === a && t.b === b && t.metric === m)!;
  // good vs bad on nDCG@10: 30 equal differences 1 − 1/log2(3), one tie of 30 (past 13 pairs: the normal
  // approximation). R+ = 465, mean 30·31/4 = 232.5, variance (30·31·61 − (30³ − 30)/2)/24 = 43245/24; z = 232.5/√1801.875
  // = 5.4772; 2·Φ(−5.4772) = 4.3205e-8 (scipy 1.17.1: 4.320463057827488e-08).
  assert.ok(Math.abs((get("good", "bad", "nDCG@10").p as number) / 4.320463057827488e-8 - 1) < 1e-9);
  // Equal Recall@10: every difference zero, p = 1.
  assert.equal(get("good", "bad", "Recall@10").p, 1);
  // BH over the 6 tests: the largest raw p (1) stays 1; the smallest becomes 6·p, still the smallest.
  const ps = body.tests.map((t) => t.p as number);
  const smallest = ps.indexOf(Math.min(...ps));
  assert.ok(Math.abs((body.tests[smallest].pBH as number) - 6 * ps[smallest]) < 1e-15);
  assert.equal(get("good", "bad", "Recall@10").pBH, 1);
  const text = await gbr([...args, "--test", "wilcoxon", "--correction", "bh"]);
  assert.equal(text.code, 0, text.stderr);
  assert.match(text.stdout, /\(two-sided Wilcoxon signed-rank test, 30 queries, Benjamini–Hochberg over all 6 tests; p_BH < 0\.05\)/);
  assert.match(text.stdout, /^a\s+b\s+metric\s+delta\s+p\s+pBH$/m);
  assert.doesNotMatch(text.stdout, /Flips:|pHolm/);
  const latex = await gbr([...args, "--test", "t", "--correction", "none", "--format", "latex"]);
  assert.equal(latex.code, 0, latex.stderr);
  assert.match(latex.stdout, /two-sided paired t-test on every pair of runs, no correction, p \\textless\{\} 0\.05\./);
});

test("gbr compare --test t --correction none --json: no adjusted key; the defaults spelled out change nothing", async () => {
  const args = ["compare", "--qrels", file("qrels.tsv"), "--run", file("good.trec"), "--run", file("bad.trec"), "--metric", "nDCG@10", "--swaps", "2000"];
  const r = await gbr(["compare", "--qrels", file("qrels.tsv"), "--run", file("good.trec"), "--run", file("half.json"), "--metric", "nDCG@10", "--test", "t", "--correction", "none", "--json"]);
  assert.equal(r.code, 0, r.stderr);
  const body = JSON.parse(r.stdout) as { test: string; correction: string; tests: Record<string, unknown>[] };
  assert.deepEqual([body.test, body.correction, Object.keys(body.tests[0])], ["t", "none", ["a", "b", "metric", "meanA", "meanB", "delta", "p"]]);
  // good − half on nDCG@10: 1 on the 15 queries half misses (14 even + q30), 0 on the 15 it finds: mean 0.5, sample sd
  // √(30·0.25/29), t = 0.5/(sd/√30) = √29 = 5.3852 with 29 df; two-sided p (scipy 1.17.1's 2·t.sf(√29, 29)) 8.6995e-6.
  assert.ok(Math.abs((body.tests[0].p as number) / 8.699475448390493e-6 - 1) < 1e-6, String(body.tests[0].p));
  const plain = await gbr([...args, "--json"]);
  const spelled = await gbr([...args, "--json", "--test", "randomization", "--correction", "holm"]);
  assert.equal(spelled.code, 0, spelled.stderr);
  assert.equal(spelled.stdout, plain.stdout);
  assert.equal(spelled.stderr, plain.stderr);
});

test("gbr compare: --test and --correction errors name the known values and the conflicts (exit 2)", async () => {
  const args = ["compare", "--qrels", file("qrels.tsv"), "--run", file("good.trec"), "--run", file("bad.trec")];
  const cases: [string[], RegExp][] = [
    [["--test", "wilcox"], /unknown --test 'wilcox'.*\(known: randomization, t, wilcoxon\)/],
    [["--correction", "fdr"], /unknown --correction 'fdr'.*\(known: holm, bonferroni, bh, none\)/],
    [["--test", "t\x1b[2J"], /unknown --test 't\\x1b\[2J' \(known/], // the user's text shown inert
    [["--official", "--correction", "bh"], /--official is the authors' randomization test with Holm/],
    [["--test", "t", "--swaps", "10"], /--test t draws no flips; drop --swaps and --seed/],
  ];
  for (const [extra, message] of cases) {
    const r = await gbr([...args, ...extra]);
    assert.equal(r.code, 2, extra.join(" "));
    assert.match(r.stderr, message);
  }
});
