/**
 * MRR@k, P@k, Success@k and Judged@k (issue 32): each computed here by hand from its textbook definition, with code of
 * its own (not the library's), on greeklaws-2021's sample run and on small cases worked out by hand; and the CLI.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { requireShared } from "../../helpers/shared";
import { evaluate, METRICS } from "../../../lib/eval/metrics";
import { readGradedQrels } from "../../../lib/data/qrels";
import { main } from "../../../lib/cli/main";

/** The run file's rankings by hand: lines in file order, each id once (its first line), as the metrics read them. */
function rankingsOf(file: string): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const line of readFileSync(file, "utf8").split("\n")) {
    const [q, , doc] = line.trim().split(/\s+/);
    if (!doc) continue;
    const list = out.get(q) ?? out.set(q, []).get(q)!;
    if (!list.includes(doc)) list.push(doc);
  }
  return out;
}

/** Relevant (grade >= 1) and judged (any grade) ids per query, from the TSV by hand. */
function judgmentsOf(file: string): { relevant: Map<string, Set<string>>; judged: Map<string, Set<string>> } {
  const relevant = new Map<string, Set<string>>();
  const judged = new Map<string, Set<string>>();
  for (const line of readFileSync(file, "utf8").trim().split("\n").slice(1)) {
    const [q, d, s] = line.split("\t");
    (judged.get(q) ?? judged.set(q, new Set()).get(q)!).add(d);
    if (Number(s) >= 1) (relevant.get(q) ?? relevant.set(q, new Set()).get(q)!).add(d);
  }
  return { relevant, judged };
}

/** Textbook definitions, one query; `top`: the first k of the ranking. */
const HAND = {
  MRR: (top: string[], rel: Set<string>) => {
    for (let i = 0; i < top.length; i++) if (rel.has(top[i])) return 1 / (i + 1);
    return 0;
  },
  P: (top: string[], rel: Set<string>, _j: Set<string>, k: number) => top.filter((d) => rel.has(d)).length / k,
  Success: (top: string[], rel: Set<string>) => (top.some((d) => rel.has(d)) ? 1 : 0),
  // ir_measures' Judged@k: judged in the top k over min(k, ranking length) (judged_provider.py)
  Judged: (top: string[], _r: Set<string>, judged: Set<string>) => (top.length ? top.filter((d) => judged.has(d)).length / top.length : 0),
};

function handMean(kind: keyof typeof HAND, k: number, rankings: Map<string, string[]>, qrels: ReturnType<typeof judgmentsOf>): { mean: number; perQuery: Map<string, number> } {
  const perQuery = new Map<string, number>();
  for (const [q, rel] of qrels.relevant) perQuery.set(q, HAND[kind]((rankings.get(q) ?? []).slice(0, k), rel, qrels.judged.get(q)!, k));
  let sum = 0;
  for (const v of perQuery.values()) sum += v;
  return { mean: sum / perQuery.size, perQuery };
}

test("MRR@k, P@k, Success@k, Judged@k on greeklaws-2021's sample run equal their definitions, k = 1, 10, 100", async () => {
  const runFile = requireShared("oracles", "greeklaws-2021", "bm25-greekstemmer-sample.trec");
  const qrelsFile = requireShared("data", "greeklaws-2021", "qrels", "sample.tsv");
  const rankings = rankingsOf(runFile);
  const hand = judgmentsOf(qrelsFile);
  const metrics = [1, 10, 100].flatMap((k) => (["MRR", "P", "Success", "Judged"] as const).map((kind) => ({ kind, k, name: `${kind}@${k}` as const })));
  const ev = evaluate(rankings, await readGradedQrels(qrelsFile), { metrics: metrics.map((m) => m.name) });
  assert.equal(ev.perQuery.size, 283);
  for (const { kind, k, name } of metrics) {
    const want = handMean(kind, k, rankings, hand);
    assert.ok(Math.abs(ev.mean[name]! - want.mean) <= 1e-12, `${name}: ${ev.mean[name]} vs ${want.mean}`);
    for (const [q, v] of want.perQuery) assert.ok(Math.abs(ev.perQuery.get(q)![name]! - v) <= 1e-12, `${name} ${q}`);
  }
  // The values themselves, so a wrong reading of the run cannot pass both sides: BM25 finds a gold article first for
  // most questions; P@1 = Success@1 = MRR@1 by definition.
  assert.equal(ev.mean["P@1"], ev.mean["Success@1"]);
  assert.equal(ev.mean["MRR@1"], ev.mean["Success@1"]);
  assert.ok(ev.mean["MRR@10"]! > 0.5 && ev.mean["MRR@10"]! < 1, String(ev.mean["MRR@10"]));
  assert.ok(ev.mean["Success@10"]! >= ev.mean["MRR@10"]!);
  // every gold article is judged and nothing else is in this qrels file: Judged@100 x 100 = the relevant found
  assert.ok(Math.abs(ev.mean["Judged@100"]! - ev.mean["P@100"]!) <= 1e-12);
  // the paper's five are there, as without the option
  const plain = evaluate(rankings, await readGradedQrels(qrelsFile));
  for (const m of METRICS) assert.equal(ev.mean[m], plain.mean[m]);
  assert.deepEqual(Object.keys(plain.mean), [...METRICS]);
});

test("by hand: duplicates count once, P divides by k, Judged counts a grade-0 line and divides by min(k, length)", () => {
  // q1: gold a (grade 2) and b (1); c judged 0; x, y unjudged. Ranking x, a, a, c, y, b (a repeated).
  const qrels = new Map([["q1", new Map([["a", 2], ["b", 1], ["c", 0]])], ["q2", new Map([["g", 1]])]]);
  const rankings = new Map([["q1", ["x", "a", "a", "c", "y", "b"]]]); // q2 absent: every metric 0
  const ev = evaluate(rankings, qrels, { metrics: ["MRR@3", "P@3", "Success@1", "Success@3", "Judged@3", "Judged@10", "P@10"] });
  const q1 = ev.perQuery.get("q1")!;
  // deduplicated: x a c y b
  assert.equal(q1["MRR@3"], 1 / 2);
  assert.equal(q1["P@3"], 1 / 3); // a only in x a c
  assert.equal(q1["Success@1"], 0);
  assert.equal(q1["Success@3"], 1);
  assert.equal(q1["Judged@3"], 2 / 3); // a, c of x a c
  assert.equal(q1["Judged@10"], 3 / 5); // a, c, b of the 5 there (ir_measures: ÷ min(k, length))
  assert.equal(q1["P@10"], 2 / 10); // a, b over k = 10, as trec_eval
  assert.deepEqual(ev.perQuery.get("q2"), { ...ev.perQuery.get("q2"), "MRR@3": 0, "P@3": 0, "Success@3": 0, "Judged@3": 0 });
  assert.equal(ev.mean["P@3"], (1 / 3 + 0) / 2);
  // binary qrels (a set: the relevant only) know no grade-0 line
  const binary = evaluate(rankings, new Map([["q1", new Set(["a", "b"])]]), { metrics: ["Judged@3"] });
  assert.equal(binary.perQuery.get("q1")!["Judged@3"], 1 / 3);
  assert.throws(() => evaluate(rankings, qrels, { metrics: ["P@0"] }), /k must be a whole number from 1/);
});

async function gbr(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = "";
  let stderr = "";
  const code = await main(args, { stdout: (t) => (stdout += t), stderr: (t) => (stderr += t), stdin: async () => "" });
  return { code, stdout, stderr };
}

test("gbr eval --metrics reads every tool's spelling, prints the chosen metrics in order; without it nothing changes", async () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), "gbr-cut-metrics-"));
  try {
    const f = (n: string) => path.join(dir, n);
    writeFileSync(f("qrels.tsv"), "query-id\tcorpus-id\tscore\nq1\ta\t2\nq1\tb\t1\nq1\tc\t0\nq2\tg\t1\n");
    writeFileSync(f("run.trec"), "q1 Q0 x 1 6 r\nq1 Q0 a 2 5 r\nq1 Q0 c 3 4 r\nq1 Q0 y 4 3 r\nq1 Q0 b 5 2 r\nq2 Q0 g 1 1 r\n");
    const base = ["eval", "--qrels", f("qrels.tsv"), "--run", f("run.trec")];
    const spelled = await gbr([...base, "--metrics", "mrr@3,P_3,hit_rate@1", "--metrics", "Judged@3,RR@3", "--json"]);
    assert.equal(spelled.code, 0, spelled.stderr);
    const mean = JSON.parse(spelled.stdout).mean as Record<string, number>;
    assert.deepEqual(Object.keys(mean), ["MRR@3", "P@3", "Success@1", "Judged@3"]);
    assert.deepEqual(mean, { "MRR@3": (1 / 2 + 1) / 2, "P@3": (1 / 3 + 1 / 3) / 2, "Success@1": 1 / 2, "Judged@3": (2 / 3 + 1 / 1) / 2 });
    const text = await gbr([...base, "--metrics", "ndcg_cut_10,success.1,precision@3"]);
    assert.equal(text.code, 0, text.stderr);
    assert.match(text.stdout, /query\s+nDCG@10\s+Success@1\s+P@3\n/);
    assert.match(text.stdout, /mean\s+0\.\d{4}\s+0\.5000\s+0\.3333/);
    const latex = await gbr([...base, "--metrics", "P@3", "--format", "markdown"]);
    assert.match(latex.stdout, /\| `run` \| 0\.3333 \|/);
    const plain = await gbr([...base, "--json"]);
    assert.deepEqual(Object.keys(JSON.parse(plain.stdout).mean), [...METRICS]);
    const bad = await gbr([...base, "--metrics", "P@0"]);
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /gbr eval: .*'P@0'/);
    const trec = await gbr([...base, "--metrics", "MRR@10", "--format", "trec_eval"]);
    assert.equal(trec.code, 2);
    assert.match(trec.stderr, /trec_eval/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
