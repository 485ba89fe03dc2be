/**
 * Metric names in every option and API read the common spellings (issue 23, item 3): this project's, ranx's,
 * ir_measures' and trec_eval's (pytrec_eval's keys), in any case, through one resolver; anything else is refused with
 * the nearest name.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { METRIC_SPELLINGS, resolveEvalMetric, resolveMetric } from "../../../lib/eval/metric-names";
import { METRICS, type Metric, type MetricValues } from "../../../lib/eval/metrics";
import { compareRuns } from "../../../lib/eval/compare-runs";
import { analyseErrors, winLoss } from "../../../lib/eval/error-analysis";
import { perQueryCorrelation } from "../../../lib/eval/statistics";
import { metricBarChart } from "../../../lib/figures/figures";
import { main } from "../../../lib/cli/main";

/** The table the docs show, written out: spelling -> the project's metric. */
const TABLE: [string, Metric][] = [
  // this project
  ["nDCG@10", "nDCG@10"], ["nDCG@100", "nDCG@100"], ["Recall@10", "Recall@10"], ["Recall@100", "Recall@100"], ["MAP@100", "MAP@100"],
  // ranx
  ["ndcg@10", "nDCG@10"], ["ndcg@100", "nDCG@100"], ["recall@10", "Recall@10"], ["recall@100", "Recall@100"], ["map@100", "MAP@100"],
  // ir_measures
  ["R@10", "Recall@10"], ["R@100", "Recall@100"], ["AP@100", "MAP@100"],
  // trec_eval's measure names (what pytrec_eval returns) and its -m form
  ["ndcg_cut_10", "nDCG@10"], ["ndcg_cut_100", "nDCG@100"], ["recall_10", "Recall@10"], ["recall_100", "Recall@100"], ["map_cut_100", "MAP@100"],
  ["ndcg_cut.10", "nDCG@10"], ["ndcg_cut.100", "nDCG@100"], ["recall.10", "Recall@10"], ["recall.100", "Recall@100"], ["map_cut.100", "MAP@100"],
];

test("every spelling of the table resolves, in any case and with stray spaces", () => {
  for (const [name, metric] of TABLE) {
    for (const variant of [name, name.toUpperCase(), name.toLowerCase(), ` ${name} `]) assert.equal(resolveMetric(variant), metric, variant);
  }
});

test("METRIC_SPELLINGS is the table above, one row per metric in the paper's order", () => {
  assert.deepEqual(METRIC_SPELLINGS.map((s) => s.metric), [...METRICS]);
  for (const s of METRIC_SPELLINGS) {
    for (const name of [s.metric, s.ranx, s.irMeasures, s.trecEval]) assert.ok(TABLE.some(([n, m]) => n === name && m === s.metric), `${name} is in the table`);
  }
});

test("anything else is a RangeError naming the five metrics, with the nearest spelling when one is near", () => {
  const cases: [string, RegExp][] = [
    ["ndcg@5", /unknown metric 'ndcg@5' \(did you mean 'nDCG@10'\?\) \(known: nDCG@10, nDCG@100, Recall@10, Recall@100, MAP@100\)/],
    ["ndcg_cut_5", /did you mean 'ndcg_cut_10'\?/],
    ["recal@100", /did you mean 'Recall@100'\?/],
    ["MAP", /did you mean 'MAP@100'\?/],
    ["P@5", /^'P@5' is one of gbr eval's metrics at any cut \(MRR@k, P@k, Success@k, Judged@k\); here only the paper's five: nDCG@10, /],
    ["Rprec", /^unknown metric 'Rprec' \(known: /],
    ["", /unknown metric ''/],
  ];
  for (const [name, re] of cases) assert.throws(() => resolveMetric(name), (err: unknown) => err instanceof RangeError && re.test(err.message), name);
});

/** The added metrics at any cut: ranx's, ir_measures' and trec_eval's spellings (issue 32). */
const CUT_TABLE: [string, string][] = [
  ["MRR@10", "MRR@10"], ["mrr@10", "MRR@10"], ["RR@10", "MRR@10"], ["recip_rank_10", "MRR@10"], ["recip_rank.10", "MRR@10"],
  ["P@10", "P@10"], ["precision@10", "P@10"], ["P_10", "P@10"], ["P.10", "P@10"],
  ["Success@10", "Success@10"], ["hit_rate@10", "Success@10"], ["success_10", "Success@10"], ["success.10", "Success@10"],
  ["Judged@10", "Judged@10"], ["judged@1000", "Judged@1000"], ["p@3", "P@3"], ["rr@1", "MRR@1"],
];

test("MRR@k, P@k, Success@k, Judged@k resolve from every tool's spelling, any k and case; the five as before", () => {
  for (const [name, metric] of CUT_TABLE) {
    for (const variant of [name, name.toUpperCase(), ` ${name} `]) assert.equal(resolveEvalMetric(variant), metric, variant);
  }
  for (const [name, metric] of TABLE) assert.equal(resolveEvalMetric(name), metric, name);
  assert.throws(() => resolveEvalMetric("P@0"), /'P@0': k must be a whole number from 1/);
  assert.throws(() => resolveEvalMetric("recip_rank"), /unknown metric 'recip_rank' \(did you mean 'recip_rank_10'\?\).*MRR@k, P@k, Success@k, Judged@k/);
  assert.throws(() => resolveEvalMetric("hits@10"), /unknown metric 'hits@10'/);
});

const perQuery = (values: number[]) => new Map(values.map((v, i) => [`q${i}`, Object.fromEntries(METRICS.map((m) => [m, m === "nDCG@10" ? v : 1 - v])) as MetricValues]));

test("the APIs take any spelling and report the project's name", () => {
  const a = { name: "a", perQuery: perQuery([0.9, 0.5, 0.7, 0.2]) };
  const b = { name: "b", perQuery: perQuery([0.1, 0.5, 0.3, 0.2]) };
  const qids = ["q0", "q1", "q2", "q3"];
  const tests = compareRuns([a, b], qids, { metrics: ["ndcg_cut_10", "R@100", "nDCG@10"], swaps: 100 }).tests;
  assert.deepEqual(tests.map((t) => t.metric), ["nDCG@10", "Recall@100"], "spellings of one metric are one test");
  assert.deepEqual(tests, compareRuns([a, b], qids, { metrics: ["nDCG@10", "Recall@100"], swaps: 100 }).tests);
  assert.deepEqual(winLoss(a.perQuery, b.perQuery, "ndcg@10"), winLoss(a.perQuery, b.perQuery, "nDCG@10"));
  assert.equal(winLoss(a.perQuery, b.perQuery, "NDCG_CUT_10").metric, "nDCG@10");
  assert.deepEqual(perQueryCorrelation(new Map([["a", a.perQuery], ["b", b.perQuery]]), "map_cut_100"), perQueryCorrelation(new Map([["a", a.perQuery], ["b", b.perQuery]]), "MAP@100"));
  const rankings = (ids: string[]) => new Map(qids.map((q) => [q, ids]));
  const qrels = new Map(qids.map((q) => [q, new Set(["x"])]));
  assert.equal(analyseErrors({ name: "a", rankings: rankings(["x"]) }, { name: "b", rankings: rankings(["y", "x"]) }, qrels, { metric: "AP@100" }).metric, "MAP@100");
  const fig = metricBarChart([{ experiment: "bm25", status: "ok", "Recall@100": 0.5 }], "recall_100");
  assert.match(JSON.stringify(fig.layout), /Recall@100 by experiment/);
  assert.throws(() => winLoss(a.perQuery, b.perQuery, "ndcg@5"), /did you mean 'nDCG@10'/);
});

async function gbr(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = "";
  let stderr = "";
  const code = await main(args, { stdout: (t) => (stdout += t), stderr: (t) => (stderr += t), stdin: async () => "" });
  return { code, stdout, stderr };
}

test("gbr compare --metric and gbr errors --metric read the spellings; an unknown one exits 2 with the near name", async () => {
  const { mkdtempSync, rmSync, writeFileSync } = await import("node:fs");
  const os = await import("node:os");
  const path = await import("node:path");
  const dir = mkdtempSync(path.join(os.tmpdir(), "gbr-metric-names-"));
  try {
    const f = (n: string) => path.join(dir, n);
    writeFileSync(f("qrels.tsv"), "query-id\tcorpus-id\tscore\nq1\td1\t1\nq2\td2\t1\n");
    writeFileSync(f("a.trec"), "q1 Q0 d1 1 2 a\nq2 Q0 x 1 2 a\nq2 Q0 d2 2 1 a\n");
    writeFileSync(f("b.trec"), "q1 Q0 x 1 2 b\nq1 Q0 d1 2 1 b\nq2 Q0 d2 1 2 b\n");
    const base = ["compare", "--qrels", f("qrels.tsv"), "--run", f("a.trec"), "--run", f("b.trec"), "--swaps", "100", "--json"];
    const aliased = await gbr([...base, "--metric", "ndcg@10,R@100", "--metric", "map_cut_100"]);
    assert.equal(aliased.code, 0, aliased.stderr);
    const named = await gbr([...base, "--metric", "nDCG@10,Recall@100,MAP@100"]);
    assert.equal(aliased.stdout, named.stdout);
    assert.deepEqual((JSON.parse(aliased.stdout) as { tests: { metric: string }[] }).tests.map((t) => t.metric), ["nDCG@10", "Recall@100", "MAP@100"]);
    const bad = await gbr([...base, "--metric", "ndcg@5"]);
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /gbr compare: unknown metric 'ndcg@5' \(did you mean 'nDCG@10'\?\)/);
    const errors = await gbr(["errors", "--qrels", f("qrels.tsv"), "--run", f("a.trec"), "--run", f("b.trec"), "--metric", "ir_measures-nope", "--json"]);
    assert.equal(errors.code, 2);
    const ok = await gbr(["errors", "--qrels", f("qrels.tsv"), "--run", f("a.trec"), "--run", f("b.trec"), "--metric", "ndcg_cut.10", "--json"]);
    assert.equal(ok.code, 0, ok.stderr);
    assert.equal((JSON.parse(ok.stdout) as { metric: string }).metric, "nDCG@10");
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
