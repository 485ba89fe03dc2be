import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import path from "node:path";
import { readQrels } from "../../../lib/data/qrels";
import { readJsonRun } from "../../../lib/data/runs";
import { formatFixed } from "../../../lib/util/format-fixed";
import fc from "fast-check";
import { DEPTH, METRICS, dedupeCut, evaluate, meanOf, PositionalEvaluator, queryMetrics, type Metric, type MetricValues } from "../../../lib/eval/metrics";

const SHARED = path.resolve(__dirname, "..", "../../../shared");
const EPS = 1e-12;

function assertValues(got: MetricValues, want: MetricValues, label = ""): void {
  for (const m of METRICS) {
    assert.ok(Math.abs(got[m] - want[m]) <= EPS, `${label} ${m}: got ${got[m]}, want ${want[m]}`);
  }
}

const ZERO: MetricValues = { "nDCG@10": 0, "nDCG@100": 0, "Recall@10": 0, "Recall@100": 0, "MAP@100": 0 };
const ONE: MetricValues = { "nDCG@10": 1, "nDCG@100": 1, "Recall@10": 1, "Recall@100": 1, "MAP@100": 1 };

/** n distinct filler ids that are never relevant. */
const filler = (n: number, prefix = "x") => Array.from({ length: n }, (_, i) => `${prefix}${i + 1}`);
/** A ranking with `gold` at 1-based rank r, fillers elsewhere. */
function goldAt(r: number, total = Math.max(r, 100), gold = "g"): string[] {
  const list = filler(total - 1);
  list.splice(r - 1, 0, gold);
  return list;
}

test("metric names and depth are the paper's", () => {
  assert.deepEqual([...METRICS], ["nDCG@10", "nDCG@100", "Recall@10", "Recall@100", "MAP@100"]);
  assert.equal(DEPTH, 100);
});

test("one gold at rank 1: every metric is 1", () => {
  assertValues(queryMetrics(goldAt(1), new Set(["g"])), ONE);
  assertValues(queryMetrics(["g"], new Set(["g"])), ONE);
});

test("one gold at rank 2", () => {
  const d = 1 / Math.log2(3); // 0.6309297535714575
  assertValues(queryMetrics(goldAt(2), new Set(["g"])), {
    "nDCG@10": d,
    "nDCG@100": d,
    "Recall@10": 1,
    "Recall@100": 1,
    "MAP@100": 0.5,
  });
  assert.ok(Math.abs(d - 0.6309297535714575) < EPS);
});

test("one gold at rank 10 (last inside @10) and 11 (first outside)", () => {
  assertValues(queryMetrics(goldAt(10), new Set(["g"])), {
    "nDCG@10": 1 / Math.log2(11),
    "nDCG@100": 1 / Math.log2(11),
    "Recall@10": 1,
    "Recall@100": 1,
    "MAP@100": 1 / 10,
  });
  assertValues(queryMetrics(goldAt(11), new Set(["g"])), {
    "nDCG@10": 0,
    "nDCG@100": 1 / Math.log2(12), // 0.27894294565112987
    "Recall@10": 0,
    "Recall@100": 1,
    "MAP@100": 1 / 11,
  });
});

test("one gold at rank 100 counts, at rank 101 does not", () => {
  assertValues(queryMetrics(goldAt(100), new Set(["g"])), {
    "nDCG@10": 0,
    "nDCG@100": 1 / Math.log2(101),
    "Recall@10": 0,
    "Recall@100": 1,
    "MAP@100": 1 / 100,
  });
  assertValues(queryMetrics(goldAt(101), new Set(["g"])), ZERO);
});

test("two golds at ranks 1 and 3", () => {
  const ideal = 1 + 1 / Math.log2(3);
  assertValues(queryMetrics(["a", "x", "b", "y"], new Set(["a", "b"])), {
    "nDCG@10": 1.5 / ideal,
    "nDCG@100": 1.5 / ideal,
    "Recall@10": 1,
    "Recall@100": 1,
    "MAP@100": (1 + 2 / 3) / 2,
  });
});

test("two golds, one found at rank 12, the other missing", () => {
  const ideal = 1 + 1 / Math.log2(3);
  assertValues(queryMetrics(goldAt(12, 100, "a"), new Set(["a", "b"])), {
    "nDCG@10": 0,
    "nDCG@100": 1 / Math.log2(13) / ideal,
    "Recall@10": 0,
    "Recall@100": 0.5,
    "MAP@100": 1 / 12 / 2,
  });
});

test("duplicates in the ranking count once, at their first rank", () => {
  assert.deepEqual(dedupeCut(["a", "b", "a", "c"], 2), ["a", "b"]);
  // "x" repeated: after dedupe the gold is at rank 2, not 3.
  assertValues(queryMetrics(["x", "x", "g"], new Set(["g"])), queryMetrics(["x", "g"], new Set(["g"])));
  assert.equal(queryMetrics(["x", "x", "g"], new Set(["g"]))["MAP@100"], 0.5);
  // A gold listed twice is one hit: recall 1/2, not 2/2.
  const twice = queryMetrics(["g", "g", "x"], new Set(["g", "h"]));
  assert.equal(twice["Recall@10"], 0.5);
  assert.equal(twice["Recall@100"], 0.5);
  assert.equal(twice["MAP@100"], 0.5);
  assert.ok(Math.abs(twice["nDCG@10"] - 1 / (1 + 1 / Math.log2(3))) < EPS);
});

test("duplicates are removed before the cut at 100", () => {
  // 101 raw entries with one duplicate: the gold at raw position 101 is rank 100 after dedupe.
  const raw = [...filler(99), "x1", "g"];
  assert.equal(raw.length, 101);
  assert.equal(dedupeCut(raw).length, 100);
  assert.equal(queryMetrics(raw, new Set(["g"]))["Recall@100"], 1);
  assert.ok(Math.abs(queryMetrics(raw, new Set(["g"]))["MAP@100"] - 0.01) < EPS);
});

test("a ranking longer than 100 is cut at 100", () => {
  const long = goldAt(150, 300);
  assert.equal(dedupeCut(long).length, 100);
  assertValues(queryMetrics(long, new Set(["g"])), ZERO);
  // Golds at 1 and 150: only the first counts.
  const two = goldAt(150, 300, "b");
  two[0] = "a";
  assertValues(queryMetrics(two, new Set(["a", "b"])), {
    "nDCG@10": 1 / (1 + 1 / Math.log2(3)),
    "nDCG@100": 1 / (1 + 1 / Math.log2(3)),
    "Recall@10": 0.5,
    "Recall@100": 0.5,
    "MAP@100": 0.5,
  });
});

test("empty ranking scores 0 everywhere", () => {
  assertValues(queryMetrics([], new Set(["g"])), ZERO);
  assertValues(queryMetrics([], new Set(["a", "b", "c"])), ZERO);
});

test("a query with no gold cannot be evaluated alone and is skipped by evaluate", () => {
  assert.throws(() => queryMetrics(["a"], new Set()), RangeError);
  const ev = evaluate(new Map([["q1", ["g"]]]), new Map([["q1", new Set(["g"])], ["q0", new Set<string>()]]));
  assert.deepEqual([...ev.perQuery.keys()], ["q1"]);
  assertValues(ev.mean, ONE);
});

test("a query missing from the run scores 0 and still counts in the mean", () => {
  const qrels = new Map([
    ["q1", new Set(["g"])],
    ["q2", new Set(["h"])],
  ]);
  const run = new Map([
    ["q1", ["x", "g"]],
    ["q9", ["h"]], // not in the qrels: ignored
  ]);
  const ev = evaluate(run, qrels);
  assert.deepEqual([...ev.perQuery.keys()], ["q1", "q2"]);
  assertValues(ev.perQuery.get("q2")!, ZERO);
  const d = 1 / Math.log2(3);
  assertValues(ev.mean, { "nDCG@10": d / 2, "nDCG@100": d / 2, "Recall@10": 0.5, "Recall@100": 0.5, "MAP@100": 0.25 });
});

test("gold set larger than 100: MAP normalised by min(100, |gold|), nDCG ideal by min(k, |gold|)", () => {
  const gold = new Set(filler(150, "g"));
  // The first 100 golds, all relevant: MAP = 100 / min(100,150) = 1, Recall@100 = 100/150.
  const all = filler(100, "g");
  assertValues(queryMetrics(all, gold), {
    "nDCG@10": 1,
    "nDCG@100": 1,
    "Recall@10": 10 / 150,
    "Recall@100": 100 / 150,
    "MAP@100": 1,
  });
  // Golds at ranks 1..50, then non-relevant: MAP = 50 / 100 = 0.5 (not 50/150).
  const half = [...filler(50, "g"), ...filler(50, "x")];
  const r = queryMetrics(half, gold);
  assert.ok(Math.abs(r["MAP@100"] - 0.5) < EPS, `MAP@100 ${r["MAP@100"]}`);
  assert.ok(Math.abs(r["Recall@100"] - 50 / 150) < EPS);
  let dcg = 0;
  let ideal = 0;
  for (let i = 0; i < 100; i++) {
    if (i < 50) dcg += 1 / Math.log2(i + 2);
    ideal += 1 / Math.log2(i + 2);
  }
  assert.ok(Math.abs(r["nDCG@100"] - dcg / ideal) < EPS);
  assert.equal(r["nDCG@10"], 1);
});

test("a gold at rank 32 gives MAP 1/32, an exact tie that prints 0.0312 as trec_eval's printf does", () => {
  const r = queryMetrics(goldAt(32), new Set(["g"]));
  assert.equal(r["MAP@100"], 0.03125);
  assert.equal(formatFixed(r["MAP@100"], 4), "0.0312");
});

test("meanOf averages per metric; empty gives zeros", () => {
  assertValues(meanOf([]), ZERO);
  assertValues(meanOf([ONE, ZERO]), { "nDCG@10": 0.5, "nDCG@100": 0.5, "Recall@10": 0.5, "Recall@100": 0.5, "MAP@100": 0.5 });
});

// ---------------------------------------------------------------------------------------------
// Parity with the paper's evaluation function (metrics-sample.tsv) and with NIST trec_eval.

function readMetricsTsv(file: string): Map<string, MetricValues> {
  const lines = readFileSync(file, "utf8").split("\n").filter((l) => l !== "");
  const header = lines[0].split("\t");
  assert.deepEqual(header, ["query-id", ...METRICS], `header of ${file}`);
  const out = new Map<string, MetricValues>();
  for (const line of lines.slice(1)) {
    const cols = line.split("\t");
    assert.equal(cols.length, 6, `columns in ${file}: ${line}`);
    const v = {} as MetricValues;
    METRICS.forEach((m, i) => (v[m] = Number(cols[i + 1])));
    out.set(cols[0], v);
  }
  return out;
}

const TREC_MEASURES: Record<string, Metric> = {
  recall_10: "Recall@10",
  recall_100: "Recall@100",
  ndcg_cut_10: "nDCG@10",
  ndcg_cut_100: "nDCG@100",
  map_cut_100: "MAP@100",
};

/** trec_eval -q output: `measure<spaces/tab>qid<tab>value`; values kept as printed. */
function readTrecEval(file: string): Map<string, Map<Metric, string>> {
  const out = new Map<string, Map<Metric, string>>();
  for (const line of readFileSync(file, "utf8").split("\n")) {
    if (line.trim() === "") continue;
    const cols = line.trim().split(/\s+/);
    assert.equal(cols.length, 3, `trec_eval line ${JSON.stringify(line)}`);
    const metric = TREC_MEASURES[cols[0]];
    assert.ok(metric, `unexpected measure ${cols[0]}`);
    let row = out.get(cols[1]);
    if (!row) out.set(cols[1], (row = new Map()));
    row.set(metric, cols[2]);
  }
  return out;
}

async function parity(set: string): Promise<{ maxDiff: number; agree: number; total: number }> {
  const oracles = path.join(SHARED, "oracles", set);
  const qrels = await readQrels(path.join(SHARED, "data", set, "qrels", "sample.tsv"));
  const run = await readJsonRun(path.join(oracles, "bm25-greekstemmer-sample.json"));
  const ev = evaluate(run.rankings, qrels);
  const ref = readMetricsTsv(path.join(oracles, "metrics-sample.tsv"));

  assert.equal(qrels.size, 283);
  assert.equal(ev.perQuery.size, 283);
  assert.equal(ref.size, 284, "283 queries and MEAN");
  let maxDiff = 0;
  let worst = "";
  for (const [qid, want] of ref) {
    const got = qid === "MEAN" ? ev.mean : ev.perQuery.get(qid);
    assert.ok(got, `${set}: query ${qid} of metrics-sample.tsv not evaluated`);
    for (const m of METRICS) {
      const d = Math.abs(got[m] - want[m]);
      if (d > maxDiff) {
        maxDiff = d;
        worst = `${qid} ${m}`;
      }
      assert.ok(d <= 1e-9, `${set} ${qid} ${m}: got ${got[m]}, oracle ${want[m]} (diff ${d})`);
    }
  }
  for (const qid of ev.perQuery.keys()) assert.ok(ref.has(qid), `${set}: ${qid} evaluated but absent from the oracle`);

  const te = readTrecEval(path.join(oracles, "trec_eval-sample.txt"));
  assert.equal(te.size, 284, "283 queries and all");
  let agree = 0;
  let total = 0;
  const mismatches: string[] = [];
  for (const [qid, row] of te) {
    const got = qid === "all" ? ev.mean : ev.perQuery.get(qid);
    assert.ok(got, `${set}: trec_eval query ${qid} not evaluated`);
    assert.equal(row.size, 5, `${set}: trec_eval measures of ${qid}`);
    for (const [m, printed] of row) {
      total++;
      const mine = formatFixed(got[m], 4);
      if (mine === printed) agree++;
      else mismatches.push(`${qid} ${m}: ours ${mine} (${got[m]}), trec_eval ${printed}`);
    }
  }
  console.log(
    `${set}: max |ours - metrics-sample.tsv| = ${maxDiff.toExponential(3)}${worst ? ` (${worst})` : ""}; ` +
      `trec_eval 4-decimal agreement ${agree}/${total}`,
  );
  assert.deepEqual(mismatches, [], `${set}: values printing differently from trec_eval`);
  assert.equal(total, 284 * 5);
  return { maxDiff, agree, total };
}

test("PARITY greeklaws-2021: per-query and mean equal metrics-sample.tsv (1e-9) and trec_eval (4 decimals)", async () => {
  const { maxDiff, agree, total } = await parity("greeklaws-2021");
  assert.ok(maxDiff <= 1e-9);
  assert.equal(agree, total);
});

test("PARITY greeklaws-2022: per-query and mean equal metrics-sample.tsv (1e-9) and trec_eval (4 decimals)", async () => {
  const { maxDiff, agree, total } = await parity("greeklaws-2022");
  assert.ok(maxDiff <= 1e-9);
  assert.equal(agree, total);
});

test("PARITY: the published sample means print as in the data README", async () => {
  const expected: Record<string, string[]> = {
    "greeklaws-2021": ["0.7025", "0.7240", "0.8587", "0.9576", "0.6568"],
    "greeklaws-2022": ["0.7550", "0.7660", "0.8869", "0.9399", "0.7146"],
  };
  for (const [set, want] of Object.entries(expected)) {
    const qrels = await readQrels(path.join(SHARED, "data", set, "qrels", "sample.tsv"));
    const run = await readJsonRun(path.join(SHARED, "oracles", set, "bm25-greekstemmer-sample.json"));
    const { mean } = evaluate(run.rankings, qrels);
    assert.deepEqual(METRICS.map((m) => formatFixed(mean[m], 4)), want, set);
  }
});

test("PositionalEvaluator equals queryMetrics to the last bit, with repeated ids and positions, long rankings and gold outside the corpus", () => {
  fc.assert(
    fc.property(
      // Few distinct ids over many positions: repeated ids in the corpus are common.
      fc.array(fc.integer({ min: 0, max: 150 }), { minLength: 1, maxLength: 300 }),
      fc.array(fc.nat(), { maxLength: 160 }),
      fc.array(fc.integer({ min: 0, max: 160 }), { minLength: 1, maxLength: 12 }),
      (idNumbers, picks, goldNumbers) => {
        const docIds = idNumbers.map((n) => `d${n}`);
        const positions = picks.map((p) => p % docIds.length);
        const gold = new Set(goldNumbers.map((n) => `d${n}`));
        const evaluator = new PositionalEvaluator(docIds);
        evaluator.setGold(new Set(["d0"]));
        evaluator.setGold(gold);
        const want = queryMetrics(positions.map((p) => docIds[p]), gold);
        assert.deepEqual(evaluator.metrics(Int32Array.from(positions)), want);
        assert.deepEqual(evaluator.metrics(positions), want, "a second ranking of the same query");
      },
    ),
    { numRuns: 300, seed: 42 },
  );
});

test("PositionalEvaluator refuses positions outside the corpus and a query without gold", () => {
  const evaluator = new PositionalEvaluator(["a", "b"]);
  evaluator.setGold(new Set(["a"]));
  assert.throws(() => evaluator.metrics([2]), /outside the 2 documents/);
  evaluator.setGold(new Set());
  assert.throws(() => evaluator.metrics([0]), /at least one relevant document/);
});
