/**
 * `gbr eval --format mteb` (issue 32): MTEB's TaskResult with pytrec_eval's definitions, computed here by hand
 * (own code), where map_at_k divides by all relevant articles while `gbr eval`'s MAP@100 keeps the paper's min(100, R).
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { requireShared } from "../../helpers/shared";
import { evaluate } from "../../../lib/eval/metrics";
import { mtebScores, MTEB_CUTS } from "../../../lib/eval/mteb";
import { readGradedQrels } from "../../../lib/data/qrels";
import { readRun } from "../../../lib/data/runs";
import { main } from "../../../lib/cli/main";

/** pytrec_eval's measures of one query on binary judgments, by hand: `top` the ranking (distinct ids), `rel` the relevant. */
function handQuery(ranking: string[], rel: Set<string>, k: number): Record<string, number> {
  const top = ranking.slice(0, k);
  let dcg = 0;
  let ideal = 0;
  let hits = 0;
  let ap = 0;
  let rr = 0;
  top.forEach((d, i) => {
    if (!rel.has(d)) return;
    hits += 1;
    dcg += 1 / Math.log2(i + 2);
    ap += hits / (i + 1);
    if (rr === 0) rr = 1 / (i + 1);
  });
  for (let i = 0; i < Math.min(k, rel.size); i++) ideal += 1 / Math.log2(i + 2);
  return { [`ndcg_at_${k}`]: dcg / ideal, [`map_at_${k}`]: ap / rel.size, [`recall_at_${k}`]: hits / rel.size, [`precision_at_${k}`]: hits / k, [`mrr_at_${k}`]: rr };
}

function handScores(rankings: ReadonlyMap<string, readonly string[]>, qrels: Map<string, Set<string>>): Record<string, number> {
  const sums: Record<string, number> = {};
  for (const [q, rel] of qrels) {
    for (const k of [1, 3, 5, 10, 20, 100, 1000]) {
      for (const [name, v] of Object.entries(handQuery([...new Set(rankings.get(q) ?? [])], rel, k))) sums[name] = (sums[name] ?? 0) + v;
    }
  }
  return Object.fromEntries(Object.entries(sums).map(([name, s]) => [name, s / qrels.size]));
}

/** MTEB rounds pytrec_eval's means to 5 decimals and writes MRR to 6. */
const close = (got: number, want: number, digits: number) => Math.abs(got - want) <= 0.5 * 10 ** -digits + 1e-12;

test("MTEB's scores on greeklaws-2021's sample run equal pytrec_eval's definitions computed by hand", async () => {
  const qrelsFile = requireShared("data", "greeklaws-2021", "qrels", "sample.tsv");
  const run = await readRun(requireShared("oracles", "greeklaws-2021", "bm25-greekstemmer-sample.trec"));
  const qrels = await readGradedQrels(qrelsFile);
  const binary = new Map([...qrels].map(([q, j]) => [q, new Set([...j].filter(([, g]) => g >= 1).map(([d]) => d))]));
  const want = handScores(run.rankings, binary);
  const got = mtebScores(run.rankings, qrels);
  assert.deepEqual(MTEB_CUTS, [1, 3, 5, 10, 20, 100, 1000]);
  assert.equal(Object.keys(want).length, 35);
  for (const [name, v] of Object.entries(want)) assert.ok(close(got[name], v, name.startsWith("mrr") ? 6 : 5), `${name}: ${got[name]} vs ${v}`);
  assert.equal(got.main_score, got.ndcg_at_10);
  // with at most 100 relevant per question map_at_100 is the paper's MAP@100 here (trec_eval: 0.6568)
  const paper = evaluate(run.rankings, qrels).mean;
  assert.ok(close(got.map_at_100, paper["MAP@100"], 5) && close(got.ndcg_at_10, 0.7025, 4) && close(got.recall_at_100, 0.9576, 4));
});

test("map_at_100 divides by all relevant articles (pytrec_eval) while gbr eval's MAP@100 keeps min(100, R)", async () => {
  // q1: 150 relevant articles, the run finds 100 of them at ranks 1-100. q2: 5 relevant, found at ranks 2 and 3.
  const rel1 = Array.from({ length: 150 }, (_, i) => `r${i}`);
  const rel2 = ["g1", "g2", "g3", "g4", "g5"];
  const qrels = new Map([["q1", new Set(rel1)], ["q2", new Set(rel2)]]);
  const rankings = new Map([["q1", rel1.slice(0, 100)], ["q2", ["x", "g1", "g2", "y"]]]);
  const paper = evaluate(rankings, qrels).perQuery;
  assert.equal(paper.get("q1")!["MAP@100"], 1); // 100 precisions of 1 over min(100, 150)
  const q1 = mtebScores(new Map([["q1", rankings.get("q1")!]]), new Map([["q1", qrels.get("q1")!]]));
  assert.equal(q1.map_at_100, 0.66667); // 100 / 150
  assert.equal(q1.recall_at_100, 0.66667);
  assert.equal(q1.precision_at_100, 1);
  assert.equal(q1.precision_at_1000, 0.1); // ÷ k, as trec_eval
  assert.equal(q1.ndcg_at_100, 1);
  const q2 = mtebScores(new Map([["q2", rankings.get("q2")!]]), new Map([["q2", qrels.get("q2")!]]));
  assert.equal(q2.map_at_3, 0.23333); // (1/2 + 2/3) / 5; the paper's cut would divide by min(3, 5)
  assert.equal(q2.map_at_1, 0);
  assert.equal(q2.mrr_at_1, 0);
  assert.equal(q2.mrr_at_3, 0.5);
  assert.equal(q2.recall_at_3, 0.4);
  assert.equal(q2.precision_at_3, 0.66667);
  const both = mtebScores(rankings, qrels);
  assert.equal(both.map_at_100, Number((((100 / 150) + (1 / 2 + 2 / 3) / 5) / 2).toFixed(5)));
});

async function gbr(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = "";
  let stderr = "";
  const code = await main(args, { stdout: (t) => (stdout += t), stderr: (t) => (stderr += t), stdin: async () => "" });
  return { code, stdout, stderr };
}

test("gbr eval --format mteb prints a TaskResult: task and revision from a pulled folder's manifest, else the folder's name", async () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), "gbr-mteb-"));
  try {
    for (const name of ["pulled", "mine"]) {
      mkdirSync(path.join(dir, name, "qrels"), { recursive: true });
      writeFileSync(path.join(dir, name, "qrels", "test.tsv"), "query-id\tcorpus-id\tscore\nq1\ta\t1\nq1\tb\t1\nq2\tg\t1\n");
    }
    const sha = "0123456789abcdef0123456789abcdef01234567";
    writeFileSync(path.join(dir, "pulled", "manifest.json"), JSON.stringify({ repo: "AUEB-NLP/greek-bar-bench", revision: "v2.0", sha, configs: {}, files: [] }));
    writeFileSync(path.join(dir, "run.trec"), "q1 Q0 x 1 3 r\nq1 Q0 a 2 2 r\nq2 Q0 g 1 1 r\n");
    const args = (folder: string) => ["eval", "--qrels", path.join(dir, folder, "qrels", "test.tsv"), "--run", path.join(dir, "run.trec"), "--format", "mteb"];
    const pulled = await gbr(args("pulled"));
    assert.equal(pulled.code, 0, pulled.stderr);
    const result = JSON.parse(pulled.stdout);
    assert.deepEqual(Object.keys(result), ["dataset_revision", "evaluation_time", "kg_co2_emissions", "mteb_version", "scores", "task_name"]);
    assert.equal(result.dataset_revision, sha);
    assert.equal(result.task_name, "GreekBarRetrieval");
    assert.equal(result.mteb_version, null);
    assert.equal(result.evaluation_time, null);
    const [entry, ...more] = result.scores.test;
    assert.equal(more.length, 0);
    assert.equal(entry.hf_subset, "default");
    assert.deepEqual(entry.languages, ["ell-Grek"]);
    assert.equal(entry.main_score, entry.ndcg_at_10);
    assert.equal(entry.recall_at_1, 0.5); // q1: a at 2 (0 of 2 at 1); q2: g at 1
    assert.equal(entry.mrr_at_10, 0.75);
    assert.equal(entry.precision_at_1, 0.5);
    for (const k of MTEB_CUTS) for (const m of ["ndcg", "map", "recall", "precision", "mrr"]) assert.equal(typeof entry[`${m}_at_${k}`], "number", `${m}_at_${k}`);
    const mine = JSON.parse((await gbr(args("mine"))).stdout);
    assert.equal(mine.task_name, "mine");
    assert.equal(mine.dataset_revision, "revision_not_applicable");
    assert.deepEqual(mine.scores, result.scores);
    writeFileSync(path.join(dir, "mine", "manifest.json"), "{ not json");
    const broken = await gbr(args("mine"));
    assert.equal(broken.code, 1);
    assert.match(broken.stderr, /mine.manifest\.json is not a pull's manifest/);
    // Another repository's pull keeps the folder's name, with its commit; the split is the qrels file's name.
    writeFileSync(path.join(dir, "mine", "manifest.json"), JSON.stringify({ repo: "someone/other-set", revision: "main", sha, configs: {}, files: [] }));
    const other = JSON.parse((await gbr(args("mine"))).stdout);
    assert.deepEqual([other.task_name, other.dataset_revision], ["mine", sha]);
    rmSync(path.join(dir, "mine", "manifest.json"));
    writeFileSync(path.join(dir, "mine", "qrels", "dev.tsv"), "query-id\tcorpus-id\tscore\nq1\ta\t1\n");
    const dev = JSON.parse((await gbr(["eval", "--qrels", path.join(dir, "mine", "qrels", "dev.tsv"), "--run", path.join(dir, "run.trec"), "--format", "mteb"])).stdout);
    assert.deepEqual(Object.keys(dev.scores), ["dev"]);
    for (const extra of [["--per-query"], ["--metrics", "P@10"], ["--json"]]) {
      const r = await gbr([...args("mine"), ...extra]);
      assert.equal(r.code, 2, extra.join(" "));
      assert.match(r.stderr, /mteb/);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
