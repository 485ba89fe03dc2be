/**
 * Graded qrels are scored as trec_eval scores them (issue 23, item 3), through the real `gbr eval` in-process:
 * nDCG's gain is the grade (discount log2(rank + 1), the ideal ranking every grade >= 1 largest first), Recall and MAP
 * count grade >= 1, and 0 or negative grades are judged not relevant. Two checks: a small file whose values are worked
 * out by hand below, and random graded files against a reference written here from trec_eval's source (m_ndcg_cut.c,
 * m_recall.c, m_map_cut.c, form_res_rels.c). `--binary` gives the numbers graded files got before.
 */
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { main } from "../../../lib/cli/main";
import { readGradedQrels, readQrels } from "../../../lib/data/qrels";
import { evaluate, METRICS, type Metric, type MetricValues } from "../../../lib/eval/metrics";
import { Pcg64 } from "../../../lib/numeric/random";

let tmp = "";
const file = (name: string) => path.join(tmp, name);

before(() => {
  tmp = mkdtempSync(path.join(os.tmpdir(), "gbr-graded-"));
});
after(() => rmSync(tmp, { recursive: true, force: true }));

async function gbr(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = "";
  let stderr = "";
  const code = await main(args, { stdout: (t) => (stdout += t), stderr: (t) => (stderr += t), stdin: async () => "" });
  return { code, stdout, stderr };
}

// q1 judges d1 3, d4 2, d2 1, d3 0 and d5 -1; q2 judges e2 2 and e1 1; q3 has no relevant article (not scored);
// q4 has one, and the run has no ranking for it (scores 0).
const QRELS = ["q1 0 d1 3", "q1 0 d2 1", "q1 0 d3 0", "q1 0 d4 2", "q1 0 d5 -1", "q2 0 e1 1", "q2 0 e2 2", "q3 0 f1 0", "q3 0 f2 -1", "q4 0 g1 1"];
// q1: d3 (0), d2 (1), d5 (-1), x (unjudged), d1 (3). q2: e2 (2), e9 (unjudged), e1 (1). Scores strictly decreasing.
const RUN = [
  ["q1", "d3"], ["q1", "d2"], ["q1", "d5"], ["q1", "x"], ["q1", "d1"],
  ["q2", "e2"], ["q2", "e9"], ["q2", "e1"],
].map(([q, d], i) => `${q} Q0 ${d} ${(i % 5) + 1} ${(20 - i).toFixed(1)} graded-test`);

const L = Math.log2;
/** By hand, trec_eval's rules: DCG = Σ grade / log2(rank + 1) over grades > 0; ideal = grades >= 1, largest first. */
const HAND: Record<string, MetricValues> = {
  // DCG: 1/log2(3) + 3/log2(6); ideal: 3/log2(2) + 2/log2(3) + 1/log2(4). Hits at ranks 2 and 5 of 3 relevant.
  q1: { "nDCG@10": (1 / L(3) + 3 / L(6)) / (3 + 2 / L(3) + 1 / 2), "nDCG@100": (1 / L(3) + 3 / L(6)) / (3 + 2 / L(3) + 1 / 2), "Recall@10": 2 / 3, "Recall@100": 2 / 3, "MAP@100": (1 / 2 + 2 / 5) / 3 },
  // DCG: 2/log2(2) + 1/log2(4); ideal: 2/log2(2) + 1/log2(3). Hits at ranks 1 and 3 of 2.
  q2: { "nDCG@10": 2.5 / (2 + 1 / L(3)), "nDCG@100": 2.5 / (2 + 1 / L(3)), "Recall@10": 1, "Recall@100": 1, "MAP@100": (1 + 2 / 3) / 2 },
  q4: { "nDCG@10": 0, "nDCG@100": 0, "Recall@10": 0, "Recall@100": 0, "MAP@100": 0 },
};

function close(actual: MetricValues, expected: MetricValues, what: string): void {
  for (const m of METRICS) assert.ok(Math.abs(actual[m] - expected[m]) < 1e-12, `${what} ${m}: ${actual[m]} vs ${expected[m]}`);
}

test("gbr eval scores a graded TREC qrels file by trec_eval's rules, values worked out by hand, with a one-line note", async () => {
  writeFileSync(file("graded.txt"), QRELS.join("\n") + "\n");
  writeFileSync(file("run.trec"), RUN.join("\n") + "\n");
  const r = await gbr(["eval", "--qrels", file("graded.txt"), "--run", file("run.trec"), "--json", "--per-query"]);
  assert.equal(r.code, 0, r.stderr);
  const out = JSON.parse(r.stdout) as { mean: MetricValues; perQuery: Record<string, MetricValues> };
  assert.deepEqual(Object.keys(out.perQuery), ["q1", "q2", "q4"], "q3, with no relevant article, is not scored");
  for (const q of Object.keys(HAND)) close(out.perQuery[q], HAND[q], q);
  const mean = Object.fromEntries(METRICS.map((m) => [m, (HAND.q1[m] + HAND.q2[m] + HAND.q4[m]) / 3])) as MetricValues;
  close(out.mean, mean, "mean");
  const notes = r.stderr.split("\n").filter((l) => l.startsWith("note: ") && l.includes("graded"));
  assert.equal(notes.length, 1, r.stderr);
  assert.match(notes[0], /grades up to 3\): nDCG takes the grade as gain, Recall and MAP count grade >= 1, as trec_eval does/);
});

test("the same file as a BEIR TSV gives the same numbers", async () => {
  const tsv = ["query-id\tcorpus-id\tscore", ...QRELS.map((l) => l.split(" ")).map(([q, , d, g]) => `${q}\t${d}\t${g}`)];
  writeFileSync(file("graded.tsv"), tsv.join("\n") + "\n");
  writeFileSync(file("run.trec"), RUN.join("\n") + "\n");
  const a = await gbr(["eval", "--qrels", file("graded.tsv"), "--run", file("run.trec"), "--json", "--per-query"]);
  const b = await gbr(["eval", "--qrels", file("graded.txt"), "--run", file("run.trec"), "--json", "--per-query"]);
  assert.equal(a.code, 0, a.stderr);
  assert.equal(a.stdout, b.stdout);
});

test("--binary scores every grade >= 1 as 1, as graded files were read before, and says nothing of grades", async () => {
  const r = await gbr(["eval", "--qrels", file("graded.txt"), "--run", file("run.trec"), "--json", "--per-query", "--binary"]);
  assert.equal(r.code, 0, r.stderr);
  assert.doesNotMatch(r.stderr, /graded judgments/);
  const out = JSON.parse(r.stdout) as { perQuery: Record<string, MetricValues> };
  // Binary q1: hits at ranks 2 and 5 of 3 relevant, all gains 1.
  assert.ok(Math.abs(out.perQuery.q1["nDCG@10"] - (1 / L(3) + 1 / L(6)) / (1 + 1 / L(3) + 1 / 2)) < 1e-12);
  assert.ok(Math.abs(out.perQuery.q2["nDCG@10"] - (1 + 1 / 2) / (1 + 1 / L(3))) < 1e-12);
  // Recall and MAP do not depend on the grades.
  for (const m of ["Recall@10", "Recall@100", "MAP@100"] as const) assert.equal(out.perQuery.q1[m], HAND.q1[m]);
  // The binary reader is the one the API always had: evaluate on it gives the same numbers.
  const { readRun } = await import("../../../lib/data/runs.js");
  const run = await readRun(file("run.trec"));
  assert.deepEqual(Object.fromEntries(evaluate(run.rankings, await readQrels(file("graded.txt"))).perQuery), out.perQuery);
});

test("--format trec_eval with --per-query prints trec_eval's -q layout: the run's queries sorted, then 'all'", async () => {
  const r = await gbr(["eval", "--qrels", file("graded.txt"), "--run", file("run.trec"), "--per-query", "--format", "trec_eval"]);
  assert.equal(r.code, 0, r.stderr);
  const f = (x: number) => x.toFixed(4);
  const rows = (q: string, v: MetricValues) =>
    [["recall_10", "Recall@10"], ["recall_100", "Recall@100"], ["ndcg_cut_10", "nDCG@10"], ["ndcg_cut_100", "nDCG@100"], ["map_cut_100", "MAP@100"]].map(
      ([name, m]) => `${name.padEnd(22)}\t${q}\t${f(v[m as Metric])}`,
    );
  const mean = Object.fromEntries(METRICS.map((m) => [m, (HAND.q1[m] + HAND.q2[m] + HAND.q4[m]) / 3])) as MetricValues;
  // q4 is not in the run: trec_eval -q prints no row for it, and 'all' counts it as 0 (trec_eval -c).
  assert.equal(r.stdout, [...rows("q1", HAND.q1), ...rows("q2", HAND.q2), ...rows("all", mean)].join("\n") + "\n");
  assert.match(r.stdout, /^ndcg_cut_10 {11}\tq1\t0\.3762$/m);
  assert.match(r.stdout, /^map_cut_100 {11}\tall\t0\.3778$/m);
  // Without --per-query, the 'all' lines only.
  const summary = await gbr(["eval", "--qrels", file("graded.txt"), "--run", file("run.trec"), "--format", "trec_eval"]);
  assert.equal(summary.stdout, rows("all", mean).join("\n") + "\n");
});

test("usage errors exit 2: an unknown --format, and --format with --json", async () => {
  const bad = await gbr(["eval", "--qrels", file("graded.txt"), "--run", file("run.trec"), "--format", "trec-eval"]);
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /unknown --format 'trec-eval' \(did you mean 'trec_eval'\?\) \(known: text, latex, markdown, trec_eval, mteb\)/);
  const both = await gbr(["eval", "--qrels", file("graded.txt"), "--run", file("run.trec"), "--format", "trec_eval", "--json"]);
  assert.equal(both.code, 2);
});

test("one pair judged twice with two grades is an error naming both lines; the same grade twice is read once", async () => {
  writeFileSync(file("twice.txt"), "q1 0 d1 2\nq1 0 d2 1\nq1 0 d1 1\n");
  await assert.rejects(readGradedQrels(file("twice.txt")), /twice\.txt:3: query 'q1' judges article 'd1' twice, 2 on line 1 and 1 here/);
  await assert.rejects(readQrels(file("twice.txt")), /judges article 'd1' twice/);
  writeFileSync(file("same.txt"), "q1 0 d1 2\nq1 0 d1 2\n");
  assert.deepEqual([...(await readGradedQrels(file("same.txt"))).get("q1")!], [["d1", 2]]);
});

test("queries keep the order of their first relevant judgment in both readings (it decides gbr compare's flips)", async () => {
  writeFileSync(file("order.tsv"), "query-id\tcorpus-id\tscore\nqb\tx\t0\nqa\ty\t2\nqb\tz\t1\nqc\tw\t0\n");
  assert.deepEqual([...(await readQrels(file("order.tsv"))).keys()], ["qa", "qb"]);
  assert.deepEqual([...(await readGradedQrels(file("order.tsv"))).keys()], ["qa", "qb", "qc"]);
});

// ---------------------------------------------------------------------------------------------
// A reference written from trec_eval's source, then random graded files against it.

/** trec_eval's ndcg_cut, recall and map_cut at 10 and 100 for one query, following its steps. */
function trecEvalQuery(results: { doc: string; score: number }[], judged: Map<string, number>): MetricValues {
  // form_res_rels: sort by score descending, equal scores by doc id descending (strcmp).
  const ranked = [...results].sort((a, b) => b.score - a.score || Buffer.compare(Buffer.from(b.doc), Buffer.from(a.doc)));
  // A doc's relevance: its grade when judged >= 0; not in the qrels -1; a negative grade is "in pool, unjudged" (-2).
  const rel = ranked.map((r) => (judged.has(r.doc) ? (judged.get(r.doc)! >= 0 ? judged.get(r.doc)! : -2) : -1));
  // rel_levels: how many judged docs have each grade >= 0; num_rel counts levels >= 1 (relevance level 1).
  const levels: number[] = [];
  for (const g of judged.values()) if (g >= 0) levels[g] = (levels[g] ?? 0) + 1;
  let numRel = 0;
  for (let g = 1; g < levels.length; g++) numRel += levels[g] ?? 0;
  const at = (cut: number) => {
    let relSoFar = 0;
    let apSum = 0;
    let dcg = 0;
    for (let i = 0; i < Math.min(cut, rel.length); i++) {
      if (rel[i] > 0) dcg += rel[i] / Math.log2(i + 2);
      if (rel[i] >= 1) {
        relSoFar++;
        apSum += relSoFar / (i + 1);
      }
    }
    // The ideal: from the top level down, each level's count of docs, gain = the level, until level 0 or the cutoff.
    let ideal = 0;
    let i = 0;
    for (let lvl = levels.length - 1; lvl >= 1 && i < cut; lvl--) for (let c = 0; c < (levels[lvl] ?? 0) && i < cut; c++, i++) ideal += lvl / Math.log2(i + 2);
    return { ndcg: ideal > 0 ? dcg / ideal : 0, recall: relSoFar / numRel, map: apSum / numRel };
  };
  const a10 = at(10);
  const a100 = at(100);
  return { "nDCG@10": a10.ndcg, "nDCG@100": a100.ndcg, "Recall@10": a10.recall, "Recall@100": a100.recall, "MAP@100": a100.map };
}

test("random graded qrels and runs: gbr eval equals the trec_eval reference, query by query", async () => {
  const rng = Pcg64.fromSeed(2023);
  const pick = (n: number) => rng.nextUint32() % n;
  const qrels: string[] = [];
  const run: string[] = [];
  const reference = new Map<string, MetricValues>();
  for (let q = 1; q <= 40; q++) {
    const qid = `q${q}`;
    const docs = Array.from({ length: 150 }, (_, d) => `d${d}`);
    const judged = new Map<string, number>();
    // Up to 60 judgments with grades -1..4; at least one relevant.
    for (let j = 0; j < 1 + pick(60); j++) judged.set(docs[pick(docs.length)], pick(6) - 1);
    judged.set(docs[pick(docs.length)], 1 + pick(4));
    for (const [d, g] of judged) qrels.push(`${qid} 0 ${d} ${g}`);
    // Up to 120 retrieved docs with distinct, decreasing scores (the file's order is trec_eval's order).
    const shuffled = docs.map((d) => ({ d, k: pick(1e9) })).sort((a, b) => a.k - b.k).slice(0, 1 + pick(120));
    const results = shuffled.map(({ d }, i) => ({ doc: d, score: 1000 - i }));
    results.forEach((r, i) => run.push(`${qid} Q0 ${r.doc} ${i + 1} ${r.score} ref`));
    reference.set(qid, trecEvalQuery(results, judged));
  }
  writeFileSync(file("random.txt"), qrels.join("\n") + "\n");
  writeFileSync(file("random.trec"), run.join("\n") + "\n");
  const r = await gbr(["eval", "--qrels", file("random.txt"), "--run", file("random.trec"), "--json", "--per-query"]);
  assert.equal(r.code, 0, r.stderr);
  const out = JSON.parse(r.stdout) as { perQuery: Record<string, MetricValues> };
  assert.equal(Object.keys(out.perQuery).length, 40);
  for (const [q, want] of reference) close(out.perQuery[q], want, q);
  // Grades really are in play: the binary reading differs on nDCG somewhere.
  const bin = JSON.parse((await gbr(["eval", "--qrels", file("random.txt"), "--run", file("random.trec"), "--json", "--per-query", "--binary"])).stdout) as typeof out;
  assert.ok([...reference.keys()].some((q) => Math.abs(bin.perQuery[q]["nDCG@10"] - out.perQuery[q]["nDCG@10"]) > 1e-6));
});

test("binary qrels score the same through the graded reader as through the binary one, to the bit", async () => {
  const { readRun } = await import("../../../lib/data/runs.js");
  const qrelsFile = path.join(__dirname, "..", "..", "..", "data", "sample", "qrels", "test.tsv");
  writeFileSync(file("sample.trec"), [..."ABCDEFGH"].map((c, i) => `Q01 Q0 ΑΚ::9${i}${c} ${i + 1} ${10 - i} t`).concat(["Q01 Q0 ΑΚ::914 9 1 t", "Q02 Q0 ΑΚ::914 1 3 t"]).join("\n") + "\n");
  const run = await readRun(file("sample.trec"));
  const graded = evaluate(run.rankings, await readGradedQrels(qrelsFile));
  const binary = evaluate(run.rankings, await readQrels(qrelsFile));
  assert.deepEqual(graded, binary);
  assert.ok(graded.perQuery.get("Q01")!["Recall@100"] > 0);
});

test("a BEIR folder with grades loads binary for the experiments, with one warning that names gbr eval", async () => {
  const { readBeir } = await import("../../../lib/data/beir.js");
  const { mkdirSync } = await import("node:fs");
  const dir = file("beir-graded");
  mkdirSync(path.join(dir, "qrels"), { recursive: true });
  writeFileSync(path.join(dir, "corpus.jsonl"), ['{"_id": "d1", "title": "", "text": "ένα"}', '{"_id": "d2", "title": "", "text": "δύο"}'].join("\n") + "\n");
  writeFileSync(path.join(dir, "queries.jsonl"), '{"_id": "q1", "text": "ερώτηση"}\n');
  writeFileSync(path.join(dir, "qrels", "test.tsv"), "query-id\tcorpus-id\tscore\nq1\td1\t2\nq1\td2\t0\n");
  const warnings: string[] = [];
  const bench = await readBeir(dir, { warn: (m) => warnings.push(m) });
  assert.deepEqual([...bench.qrels.get("q1")!], ["d1"]);
  assert.equal(warnings.length, 1);
  assert.match(warnings[0], /graded judgments \(grades up to 2\): retrieval experiments count grade >= 1 as relevant; 'gbr eval --qrels .*test\.tsv' scores with the grades/);
  writeFileSync(path.join(dir, "qrels", "test.tsv"), "query-id\tcorpus-id\tscore\nq1\td1\t1\nq1\td2\t0\n");
  warnings.length = 0;
  await readBeir(dir, { warn: (m) => warnings.push(m) });
  assert.deepEqual(warnings, [], "0/1 qrels are binary: nothing to say");
});
