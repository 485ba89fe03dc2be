import { test } from "node:test";
import assert from "node:assert/strict";
import { byArea } from "../../../lib/eval/breakdown";
import { METRICS, meanOf, type Metric, type MetricValues } from "../../../lib/eval/metrics";
import { holm, pairedRandomizationTest } from "../../../lib/eval/randomization";
import { bootstrapCI, bootstrapCIs } from "../../../lib/eval/bootstrap";
import { compareRuns, type RunScores } from "../../../lib/eval/compare-runs";
import { baselineSignificance, firstStageOf, missingPairs, paperSignificance, PAPER_TESTS, rerankSignificance, significanceReport, type PerQueryByExperiment } from "../../../lib/eval/significance";
import { formatComparison } from "../../../lib/cli/print-comparison";
import { Pcg64 } from "../../../lib/numeric/random";
import { NO_AREA, type QueryMeta } from "../../../lib/types";

const close = (got: number, want: number, eps: number, label = "") => assert.ok(Math.abs(got - want) <= eps, `${label}: got ${got}, want ${want} (±${eps})`);

/** Uniform values from a seeded generator, so every test sees the same data on every run. */
function uniform(n: number, seed: number, scale = 1, offset = 0): number[] {
  const rng = Pcg64.fromSeed(seed);
  return Array.from({ length: n }, () => offset + scale * rng.nextDouble());
}

/** The exact two-sided p over ALL 2^n sign patterns, summed the obvious way (one sign per query). */
function exactP(a: number[], b: number[]): number {
  const n = a.length;
  const d = a.map((x, i) => x - b[i]);
  const observed = Math.abs(d.reduce((s, x) => s + x, 0) / n);
  let extreme = 0;
  for (let mask = 0; mask < 2 ** n; mask++) {
    let s = 0;
    for (let i = 0; i < n; i++) s += (mask >>> i) & 1 ? -d[i] : d[i];
    if (Math.abs(s / n) >= observed - 1e-12) extreme++;
  }
  return extreme / 2 ** n;
}

/**
 * The test written the slow, obvious way, as the authors' notebook: per flip, n signs of numpy's
 * `choice([-1, 1])` (one 32-bit draw each), summed one query at a time. The fast version must draw
 * exactly these signs, so its p must be identical, not merely close.
 */
function naiveTest(a: number[], b: number[], swaps: number, seed: number): number {
  const n = a.length;
  const d = a.map((x, i) => x - b[i]);
  const observed = Math.abs(d.reduce((s, x) => s + x, 0) / n);
  const rng = Pcg64.fromSeed(seed);
  let extreme = 0;
  for (let f = 0; f < swaps; f++) {
    const signs = rng.choiceSigns(n);
    let s = 0;
    for (let i = 0; i < n; i++) s += signs[i] * d[i];
    if (Math.abs(s / n) >= observed - 1e-12) extreme++;
  }
  return (extreme + 1) / (swaps + 1);
}

// ---------------------------------------------------------------- the randomization test

test("identical runs: every flip ties, p = 1 exactly", () => {
  for (const n of [1, 7, 8, 33, 283]) {
    const a = uniform(n, n);
    const r = pairedRandomizationTest(a, [...a], { swaps: 10_000, seed: 42 });
    assert.equal(r.p, 1, `n=${n}`);
    assert.equal(r.delta, 0);
    assert.equal(r.meanA, r.meanB);
  }
});

test("a large consistent difference: no flip reaches it, p = 1/(swaps+1)", () => {
  const a = uniform(283, 1, 0.2, 0.8);
  const b = uniform(283, 2, 0.2, 0.1);
  const r = pairedRandomizationTest(a, b, { swaps: 100_000, seed: 42 });
  assert.equal(r.p, 1 / 100_001);
  close(r.delta, r.meanA - r.meanB, 0, "delta");
  assert.ok(r.delta > 0.5);
  assert.equal(pairedRandomizationTest(a, b, { swaps: 999 }).p, 1 / 1000);
});

test("symmetry: swapping a and b gives the same p and the negated delta", () => {
  for (const seed of [1, 2, 3]) {
    const a = uniform(101, seed);
    const b = uniform(101, seed + 100, 1.05);
    const ab = pairedRandomizationTest(a, b, { swaps: 20_000, seed: 42 });
    const ba = pairedRandomizationTest(b, a, { swaps: 20_000, seed: 42 });
    assert.equal(ab.p, ba.p);
    assert.equal(ab.delta, -ba.delta);
    assert.equal(ab.meanA, ba.meanB);
    assert.equal(ab.meanB, ba.meanA);
    assert.ok(ab.p > 1 / 20_001 && ab.p < 1, `a mid-range p, got ${ab.p}`);
  }
});

test("determinism: the same seed gives the same p; another seed draws other flips", () => {
  const a = uniform(283, 11);
  const b = uniform(283, 12);
  const p1 = pairedRandomizationTest(a, b, { swaps: 50_000, seed: 42 }).p;
  assert.equal(pairedRandomizationTest(a, b, { swaps: 50_000, seed: 42 }).p, p1);
  assert.equal(pairedRandomizationTest(a, b, { swaps: 50_000 }).p, p1, "seed 42 is the default");
  const p2 = pairedRandomizationTest(a, b, { swaps: 50_000, seed: 43 }).p;
  assert.notEqual(p2, p1);
  close(p2, p1, 0.02, "both estimate the same p");
});

test("the fast sign-flip loop draws exactly the signs of the bit-by-bit definition", () => {
  // n values that are and are not multiples of 8 and 32, to exercise the block padding.
  for (const n of [1, 5, 8, 31, 32, 33, 100, 283]) {
    const a = uniform(n, 3 * n);
    const b = uniform(n, 3 * n + 1, 0.9);
    for (const seed of [42, 7]) {
      assert.equal(pairedRandomizationTest(a, b, { swaps: 5_000, seed }).p, naiveTest(a, b, 5_000, seed), `n=${n} seed=${seed}`);
    }
  }
});

test("agrees with the exact p over all 2^n sign patterns (n ≤ 12) within Monte-Carlo error", () => {
  const swaps = 100_000;
  const cases: [string, number[], number[]][] = [];
  for (const n of [4, 10, 12]) cases.push([`uniform n=${n}`, uniform(n, 100 + n), uniform(n, 200 + n, 0.8)]);
  // Differences on a grid of 0.1 (not exact in binary): many flips tie with the observed mean
  // up to rounding, which the 1e-12 tolerance must count as ties, as the exact version does.
  const grid = [0.3, 0.1, 0, 0.2, 0.1, 0.1, 0.4, 0, 0.3, 0.2];
  cases.push(["ties on a 0.1 grid", grid, grid.map((x, i) => (i % 3 === 0 ? x + 0.1 : i % 3 === 1 ? x - 0.1 : x))]);
  cases.push(["metric-like", [1, 0.5, 0.6309, 0, 1, 0.3333, 1, 0.5, 0, 1], [0.5, 0.5, 0.3869, 0, 1, 0.5, 0.6309, 0, 0, 0.5]]);
  for (const [label, a, b] of cases) {
    const exact = exactP(a, b);
    const { p } = pairedRandomizationTest(a, b, { swaps, seed: 42 });
    // p = (count + 1)/(swaps + 1): its standard error is √(p(1−p)/swaps); allow 5 of them.
    const se = Math.sqrt((exact * (1 - exact)) / swaps);
    close(p, exact, 5 * se + 2 / swaps, `${label} (exact ${exact})`);
  }
  // A case whose exact p is known by hand: d = (1, 3): sums ±1 ±3 → |4| twice in 4 patterns.
  close(exactP([1, 3], [0, 0]), 0.5, 0, "hand-computed exact p");
  close(pairedRandomizationTest([1, 3], [0, 0], { swaps }).p, 0.5, 0.01, "n=2");
});

test("input errors are RangeErrors that say what is wrong", () => {
  assert.throws(() => pairedRandomizationTest([1, 2], [1], {}), /equally long/);
  assert.throws(() => pairedRandomizationTest([], [], {}), /at least one/);
  assert.throws(() => pairedRandomizationTest([NaN], [1], {}), /finite/);
  assert.throws(() => pairedRandomizationTest([1], [1], { swaps: 0 }), /swaps/);
});

// ---------------------------------------------------------------- Holm

test("holm: hand-computed values, in input order", () => {
  // sorted: 0.005·4 = 0.02, 0.01·3 = 0.03, 0.03·2 = 0.06, 0.04·1 = 0.04 → max so far 0.06
  const got = holm([0.01, 0.04, 0.03, 0.005]);
  [0.03, 0.06, 0.06, 0.02].forEach((w, i) => close(got[i], w, 1e-15, `p${i}`));
  // 0.02·3 = 0.06, 0.3·2 = 0.6, 0.9·1 = 0.9
  const g2 = holm([0.3, 0.9, 0.02]);
  [0.6, 0.9, 0.06].forEach((w, i) => close(g2[i], w, 1e-15, `q${i}`));
  // The cap: 0.5·2 = 1, 0.6·1 = 0.6 → 1 by monotonicity.
  assert.deepEqual(holm([0.6, 0.5]), [1, 1]);
  assert.deepEqual(holm([0.7, 0.9, 0.8]), [1, 1, 1]);
  // Ties get the same adjusted value.
  const g3 = holm([0.01, 0.01, 0.2]);
  close(g3[0], 0.03, 1e-15, "tie");
  assert.equal(g3[0], g3[1]);
  close(g3[2], 0.2, 1e-15, "last");
  assert.deepEqual(holm([]), []);
  assert.deepEqual(holm([0.04]), [0.04]);
  assert.throws(() => holm([0.1, NaN]), /\[0, 1\]/);
  assert.throws(() => holm([1.5]), /\[0, 1\]/);
});

test("holm: monotone in the raw p, never below it, never above 1", () => {
  for (let seed = 0; seed < 20; seed++) {
    const raw = uniform(1 + (seed % 25), seed, 0.2);
    const adj = holm(raw);
    const order = raw.map((_, i) => i).sort((i, j) => raw[i] - raw[j]);
    for (let k = 0; k < order.length; k++) {
      assert.ok(adj[order[k]] >= raw[order[k]] && adj[order[k]] <= 1);
      if (k > 0) assert.ok(adj[order[k]] >= adj[order[k - 1]], "non-decreasing along the raw order");
    }
  }
});

// ---------------------------------------------------------------- bootstrap

test("bootstrapCI: contains the mean, shrinks with more data, widens with the level, is seeded", () => {
  const small = uniform(50, 1);
  const large = uniform(2000, 2);
  const s = bootstrapCI(small, { resamples: 5_000 });
  const l = bootstrapCI(large, { resamples: 5_000 });
  for (const ci of [s, l]) assert.ok(ci.lower < ci.mean && ci.mean < ci.upper, JSON.stringify(ci));
  close(s.mean, small.reduce((x, y) => x + y, 0) / small.length, 1e-15, "mean");
  assert.ok(l.upper - l.lower < (s.upper - s.lower) / 3, `width ${l.upper - l.lower} vs ${s.upper - s.lower}`);
  // For uniform(0,1) the mean's sd is √(1/12/n): the 95% width is about 2·1.96 of it.
  close(l.upper - l.lower, 2 * 1.96 * Math.sqrt(1 / 12 / 2000), 0.005, "95% width, n=2000");
  const wide = bootstrapCI(small, { resamples: 5_000, level: 0.99 });
  assert.ok(wide.lower < s.lower && wide.upper > s.upper);
  assert.deepEqual(bootstrapCI(small, { resamples: 5_000 }), s);
  assert.notDeepEqual(bootstrapCI(small, { resamples: 5_000, seed: 1 }), s);
  assert.deepEqual(bootstrapCI([0.25, 0.25, 0.25]), { mean: 0.25, lower: 0.25, upper: 0.25, level: 0.95, resamples: 10_000 });
  assert.throws(() => bootstrapCI([]), /at least one/);
  assert.throws(() => bootstrapCI([1], { level: 1 }), /level/);
});

test("bootstrapCI draws numpy's resamples: idx = (rng.random((R, n)) * n).astype(int), np.quantile of the means", () => {
  // numpy 2.4: x[idx].mean(axis=1) over default_rng(7)'s 2,000 × 10 doubles; np.quantile at 0.025/0.975 and 0.05/0.95.
  const x = [0, 1, 0.5, 0.25, 1, 0, 0.75, 1 / 3, 1, 0.2];
  const ci = bootstrapCI(x, { seed: 7, resamples: 2_000 });
  close(ci.lower, 0.265, 1e-12, "2.5%");
  close(ci.upper, 0.745, 1e-12, "97.5%");
  const ninety = bootstrapCI(x, { seed: 7, resamples: 2_000, level: 0.9 });
  close(ninety.lower, 0.2983333333333334, 1e-12, "5%");
  close(ninety.upper, 0.7, 1e-12, "95%");
});

test("bootstrapCIs: one set of resamples for every series, each series' interval what bootstrapCI gives it alone", () => {
  const a = uniform(300, 3);
  const b = uniform(300, 4, 0.5, 0.2);
  const lumpy = a.map((v) => (v < 0.3 ? 0 : 1));
  const all = bootstrapCIs([a, b, lumpy], { resamples: 3_000, seed: 9 });
  assert.deepEqual(all, [a, b, lumpy].map((v) => bootstrapCI(v, { resamples: 3_000, seed: 9 })), "to the bit: a column's sums do not depend on the others");
  // Paired: a series shifted by a constant has the very resamples, so its interval shifts by that constant.
  const [shifted] = bootstrapCIs([a.map((v) => v + 0.25)], { resamples: 3_000, seed: 9 });
  close(shifted.lower, all[0].lower + 0.25, 1e-12, "shifted lower");
  close(shifted.upper, all[0].upper + 0.25, 1e-12, "shifted upper");
  for (const ci of all) assert.ok(ci.lower <= ci.mean && ci.mean <= ci.upper, JSON.stringify(ci));
  assert.deepEqual(bootstrapCIs([]), []);
  assert.throws(() => bootstrapCIs([a, b.slice(1)]), /same length: series 1 has 299, series 0 has 300/);
  assert.throws(() => bootstrapCIs([a], { resamples: 0 }), /resamples/);
});

// ---------------------------------------------------------------- comparing runs

const qids = Array.from({ length: 40 }, (_, i) => `q${i + 1}`);
function runOf(name: string, f: (i: number) => number): RunScores {
  return { name, perQuery: new Map(qids.map((q, i) => [q, Object.fromEntries(METRICS.map((m, k) => [m, Math.min(1, Math.max(0, f(i) - 0.01 * k))])) as MetricValues])) };
}
const QRELS = new Map(qids.map((q, i) => [q, new Set([`ΑΚ::${i}`])]));

test("compareRuns: every pair × metric, the JSON shape of DESIGN.md §4, Holm over all tests", () => {
  const runs = [runOf("good", () => 0.9), runOf("bad", (i) => 0.2 + 0.01 * (i % 5)), runOf("copy", (i) => 0.2 + 0.01 * (i % 5))];
  const { tests } = compareRuns(runs, QRELS, { swaps: 10_000, seed: 42 });
  assert.equal(tests.length, 3 * METRICS.length);
  assert.deepEqual(Object.keys(tests[0]), ["a", "b", "metric", "meanA", "meanB", "delta", "p", "pHolm"]);
  assert.deepEqual(
    tests.map((t) => `${t.a}/${t.b}/${t.metric}`),
    [["good", "bad"], ["good", "copy"], ["bad", "copy"]].flatMap(([a, b]) => METRICS.map((m) => `${a}/${b}/${m}`)),
  );
  assert.deepEqual(tests.map((t) => t.pHolm), holm(tests.map((t) => t.p)));
  for (const t of tests) {
    const [ra, rb] = [runs.find((r) => r.name === t.a)!, runs.find((r) => r.name === t.b)!];
    assert.equal(t.meanA, meanOf([...ra.perQuery.values()])[t.metric], "the same sum as evaluate's mean");
    assert.equal(t.meanB, meanOf([...rb.perQuery.values()])[t.metric]);
    assert.equal(t.delta, t.meanA - t.meanB);
    if (t.b === "copy" && t.a === "bad") assert.equal(t.p, 1);
    else assert.equal(t.p, 1 / 10_001);
  }
  // JSON round trip keeps exactly that shape.
  assert.deepEqual(Object.keys(JSON.parse(JSON.stringify({ tests })).tests[3]), Object.keys(tests[3]));
});

test("compareRuns: missing queries score 0, only queries with gold count, a test's p ignores the other tests", () => {
  const full = runOf("full", (i) => (i < 20 ? 0.5 : 0));
  const partial: RunScores = { name: "partial", perQuery: new Map([...full.perQuery].filter(([, v]) => v["nDCG@10"] > 0)) };
  const other = runOf("other", (i) => 0.1 * (i % 10));
  const a = compareRuns([full, other], qids, { swaps: 5_000 }).tests;
  const b = compareRuns([partial, other], qids, { swaps: 5_000 }).tests;
  assert.deepEqual(b.map((t) => [t.meanA, t.p]), a.map((t) => [t.meanA, t.p]));
  // A qrels map: the query without relevant documents is not one of the compared queries.
  const qrels = new Map<string, Set<string>>([...QRELS, ["q-empty", new Set<string>()]]);
  assert.deepEqual(compareRuns([full, other], qrels, { swaps: 5_000 }).tests, a);
  // The same test within a larger family has the same p (only pHolm changes).
  const third = runOf("third", (i) => 0.3 + 0.001 * i);
  const big = compareRuns([full, other, third], qids, { swaps: 5_000 }).tests;
  for (const t of a) assert.equal(big.find((u) => u.a === t.a && u.b === t.b && u.metric === t.metric)!.p, t.p);
});

test("compareRuns: given pairs and metrics; errors name the problem", () => {
  const runs = [runOf("x", () => 0.5), runOf("y", (i) => 0.4 + 0.01 * (i % 3)), runOf("z", () => 0.1)];
  const { tests } = compareRuns(runs, qids, { pairs: [["z", "x"]], metrics: ["Recall@100", "nDCG@10"], swaps: 1_000 });
  assert.deepEqual(tests.map((t) => [t.a, t.b, t.metric]), [["z", "x", "Recall@100"], ["z", "x", "nDCG@10"]]);
  assert.ok(tests.every((t) => t.delta < 0));
  assert.throws(() => compareRuns(runs, qids, { pairs: [["x", "nope"]] }), /no run named 'nope'/);
  assert.throws(() => compareRuns([runs[0], runs[0]], qids), /two runs are named 'x'/);
  assert.throws(() => compareRuns(runs, qids, { metrics: ["P@5" as Metric] }), /'P@5' is one of gbr eval's metrics at any cut/);
});

test("PAPER_TESTS: the paper's 5 pairs × 4 metrics = 20 tests, Holm over those 20", () => {
  const names = ["bm25-greekstemmer", "reform:bm25-greekstemmer", "dense:qwen3-8b", "reform:dense:qwen3-8b", "react-bm25", "dense:gemini-001"];
  const runs = names.map((n, k) => runOf(n, (i) => (0.3 + 0.07 * k + 0.02 * ((i * (k + 1)) % 7)) % 1));
  const { tests } = compareRuns(runs, qids, { ...PAPER_TESTS, swaps: 2_000 });
  assert.equal(tests.length, 20);
  assert.deepEqual([...new Set(tests.map((t) => t.metric))], ["nDCG@10", "nDCG@100", "Recall@100", "MAP@100"]);
  assert.deepEqual(
    [...new Set(tests.map((t) => `${t.a} vs ${t.b}`))],
    [
      "reform:bm25-greekstemmer vs bm25-greekstemmer",
      "reform:dense:qwen3-8b vs dense:qwen3-8b",
      "react-bm25 vs reform:bm25-greekstemmer",
      "react-bm25 vs reform:dense:qwen3-8b",
      "react-bm25 vs dense:gemini-001",
    ],
  );
  assert.deepEqual(tests.map((t) => t.pHolm), holm(tests.map((t) => t.p)));
});

// ---------------------------------------------------------------- the paper's family and significance.json

const PAPER_RUNS = ["bm25-greekstemmer", "reform:bm25-greekstemmer", "dense:qwen3-8b", "reform:dense:qwen3-8b", "react-bm25", "dense:gemini-001"];
/** Noisy runs with gains of every size, so that some of the 20 tests are significant after Holm and some not. */
function paperRuns(names: readonly string[] = PAPER_RUNS): RunScores[] {
  const gains = [0, 0.25, 0, 0.08, 0.02, 0.06];
  return names.map((n) => {
    const k = PAPER_RUNS.indexOf(n);
    const rng = Pcg64.fromSeed(100 + k);
    return runOf(n, () => 0.3 + gains[k] + 0.4 * rng.nextDouble());
  });
}
const byExperiment = (runs: readonly RunScores[]): PerQueryByExperiment => new Map(runs.map((r) => [r.name, r.perQuery]));
const testKey = (t: { a: string; b: string; metric: string }) => `${t.a} vs ${t.b} (${t.metric})`;

test("paperSignificance: all runs present gives exactly compareRuns over the paper's 20 tests", () => {
  const runs = paperRuns();
  const fam = paperSignificance(byExperiment(runs), QRELS, { swaps: 2_000, seed: 7 });
  const { tests } = compareRuns(runs, QRELS, { ...PAPER_TESTS, swaps: 2_000, seed: 7 });
  assert.equal(fam.of, 20);
  assert.equal(fam.computed, 20);
  assert.equal(fam.tests.length, 20);
  assert.deepEqual(
    fam.tests.map((t) => (t.status === "computed" ? { a: t.a, b: t.b, metric: t.metric, meanA: t.meanA, meanB: t.meanB, delta: t.delta, p: t.p, pHolm: t.pHolm } : t)),
    tests,
  );
  assert.ok(fam.tests.some((t) => t.pHolm < 0.05) && fam.tests.some((t) => t.pHolm > 0.05), "a mix of significant and not");
});

test("paperSignificance: always 20 tests; missing ones at p = 1, Holm over all 20; the authors' stream only when all ran", () => {
  const all = paperRuns();
  const full = compareRuns(all, QRELS, { ...PAPER_TESTS, swaps: 2_000 }).tests;
  const fullByKey = new Map(full.map((t) => [testKey(t), t]));
  // Drop each run in turn, then pairs of runs, then everything.
  const drops: string[][] = [...PAPER_RUNS.map((n) => [n]), ["react-bm25", "dense:qwen3-8b"], ["reform:bm25-greekstemmer", "dense:gemini-001"], PAPER_RUNS];
  for (const drop of drops) {
    const kept = all.filter((r) => !drop.includes(r.name));
    const fam = paperSignificance(byExperiment(kept), QRELS, { swaps: 2_000 });
    const label = `without ${drop.join(", ")}`;
    assert.equal(fam.tests.length, 20, label);
    assert.equal(fam.of, 20);
    // The same 20 tests in the same order, whatever is missing.
    assert.deepEqual(fam.tests.map(testKey), full.map(testKey), label);
    const missing = fam.tests.filter((t) => t.status === "missing");
    assert.equal(fam.computed, 20 - missing.length, label);
    assert.equal(fam.authorsStream, missing.length === 0, label);
    assert.match(fam.stream, missing.length ? /not comparable with theirs digit for digit/ : /as the authors' notebook/);
    // The computed tests are compareRuns' on the present pairs, in the paper's order, on one stream.
    const present = PAPER_TESTS.pairs.filter(([a, b]) => !drop.includes(a) && !drop.includes(b));
    const same = present.length ? compareRuns(kept, QRELS, { pairs: present, metrics: PAPER_TESTS.metrics, swaps: 2_000 }).tests : [];
    const sameByKey = new Map(same.map((t) => [testKey(t), t]));
    for (const t of fam.tests) {
      const ids = [t.a, t.b].filter((id) => drop.includes(id));
      if (t.status === "missing") {
        assert.ok(ids.length > 0, `${testKey(t)} is missing though both runs exist`);
        assert.deepEqual(t.missing, ids);
        for (const id of ids) assert.match(t.reason, new RegExp(`no run of ${id.replace(/[.+:]/g, "\\$&")}`));
        assert.equal(t.p, 1);
        assert.equal(t.pHolm, 1);
      } else {
        assert.equal(ids.length, 0, `${testKey(t)} computed without its runs`);
        const f = sameByKey.get(testKey(t))!;
        assert.deepEqual([t.meanA, t.meanB, t.delta, t.p], [f.meanA, f.meanB, f.delta, f.p]);
        if (!missing.length) assert.equal(t.p, fullByKey.get(testKey(t))!.p);
      }
    }
    // The property that matters: the adjusted p-values are Holm over the 20, missing ones as 1.
    assert.deepEqual(fam.tests.map((t) => t.pHolm), holm(fam.tests.map((t) => (t.status === "computed" ? t.p : 1))), label);
    // And stricter than (or as strict as) Holm over the computed tests alone, the old behaviour.
    const computedOnly = fam.tests.filter((t) => t.status === "computed");
    const small = holm(computedOnly.map((t) => t.p));
    computedOnly.forEach((t, i) => assert.ok(t.pHolm >= small[i], `${label}: ${testKey(t)}`));
  }
});

test("paperSignificance: a hand-checked family, reasons from notRun", () => {
  // Only the first pair can run; its 4 tests sit among 16 at p = 1, so each gets ×20, ×19, … by rank.
  const runs = [runOf("reform:bm25-greekstemmer", () => 0.9), runOf("bm25-greekstemmer", (i) => 0.2 + 0.01 * (i % 5))];
  const notRun = new Map([["react-bm25", "skipped: no chat model configured"]]);
  const fam = paperSignificance(byExperiment(runs), QRELS, { swaps: 999, notRun });
  assert.equal(fam.computed, 4);
  assert.match(fam.correction, /Holm over all 20 tests .* p = 1/);
  const [first, ...rest] = fam.tests;
  assert.deepEqual(Object.keys(first), ["a", "b", "metric", "status", "meanA", "meanB", "delta", "p", "pHolm"]);
  for (const t of fam.tests.slice(0, 4)) {
    assert.equal(t.status, "computed");
    assert.equal(t.p, 1 / 1000);
    // Four equal smallest p-values: the first is ×20, the running maximum carries it to the rest.
    assert.equal(t.pHolm, 20 / 1000);
  }
  const react = rest.find((t) => t.a === "react-bm25" && t.b === "dense:gemini-001")!;
  assert.deepEqual(Object.keys(react), ["a", "b", "metric", "status", "missing", "reason", "p", "pHolm"]);
  assert.deepEqual(react, {
    a: "react-bm25",
    b: "dense:gemini-001",
    metric: "nDCG@10",
    status: "missing",
    missing: ["react-bm25", "dense:gemini-001"],
    reason: "react-bm25 did not run (skipped: no chat model configured); no run of dense:gemini-001",
    p: 1,
    pHolm: 1,
  });
  // The short list: one entry per missing pair, its four metrics, its reason.
  assert.deepEqual(missingPairs(fam.tests), [
    { a: "reform:dense:qwen3-8b", b: "dense:qwen3-8b", metrics: [...PAPER_TESTS.metrics], reason: "no run of reform:dense:qwen3-8b; no run of dense:qwen3-8b" },
    { a: "react-bm25", b: "reform:bm25-greekstemmer", metrics: [...PAPER_TESTS.metrics], reason: "react-bm25 did not run (skipped: no chat model configured)" },
    { a: "react-bm25", b: "reform:dense:qwen3-8b", metrics: [...PAPER_TESTS.metrics], reason: "react-bm25 did not run (skipped: no chat model configured); no run of reform:dense:qwen3-8b" },
    { a: "react-bm25", b: "dense:gemini-001", metrics: [...PAPER_TESTS.metrics], reason: react.reason },
  ]);
  // Nothing at all: 20 missing tests, nothing computed, no test run (so no query is needed).
  const none = paperSignificance(new Map(), [], {});
  assert.equal(none.computed, 0);
  assert.ok(none.tests.every((t) => t.status === "missing" && t.p === 1 && t.pHolm === 1));
});

test("baselineSignificance: every other experiment against BM25, its own Holm; null without BM25", () => {
  const runs = [runOf("lsi", (i) => 0.1 * (i % 10)), runOf("bm25-greekstemmer", () => 0.5), runOf("prf:bm25-greekstemmer", (i) => 0.5 + 0.001 * i)];
  const base = baselineSignificance(byExperiment(runs), QRELS, { swaps: 3_000 })!;
  assert.equal(base.against, "bm25-greekstemmer");
  assert.equal(base.of, 8);
  assert.match(base.correction, /Holm over these 8 tests only/);
  // Exactly compareRuns with those pairs (the JSON of gbr compare for them).
  const { tests } = compareRuns(runs, QRELS, { pairs: [["lsi", "bm25-greekstemmer"], ["prf:bm25-greekstemmer", "bm25-greekstemmer"]], metrics: PAPER_TESTS.metrics, swaps: 3_000 });
  assert.deepEqual(base.tests, tests);
  assert.equal(baselineSignificance(byExperiment(runs.filter((r) => r.name !== "bm25-greekstemmer")), QRELS), null);
  assert.deepEqual(baselineSignificance(byExperiment([runs[1]]), QRELS), { against: "bm25-greekstemmer", of: 0, correction: "Holm over these 0 tests only (exploratory, beyond the paper; not part of its family)", tests: [] });
});

test("significanceReport: the significance.json shape, families apart, round trip through JSON", () => {
  const runs = [...paperRuns(["bm25-greekstemmer", "reform:bm25-greekstemmer", "react-bm25"]), runOf("lsi", (i) => 0.05 * (i % 20))];
  const qrels = new Map<string, Set<string>>([...QRELS, ["q-no-gold", new Set<string>()]]);
  const report = significanceReport(byExperiment(runs), qrels, { swaps: 1_000, seed: 9 });
  assert.deepEqual(Object.keys(report), ["swaps", "seed", "queries", "paper", "baseline", "rerank"]);
  assert.equal(report.rerank, null, "no re-ranked run here");
  assert.deepEqual([report.swaps, report.seed, report.queries], [1_000, 9, 40]);
  assert.deepEqual(Object.keys(report.paper), ["computed", "of", "correction", "authorsStream", "stream", "tests"]);
  assert.deepEqual(report.paper, paperSignificance(byExperiment(runs), qrels, { swaps: 1_000, seed: 9 }));
  // reform vs BM25 (4) and react vs reform:bm25 (4) can run.
  assert.equal(report.paper.computed, 8);
  assert.deepEqual(Object.keys(report.baseline!), ["against", "of", "correction", "tests"]);
  assert.deepEqual(report.baseline!.tests.map((t) => t.a), ["reform:bm25-greekstemmer", "react-bm25", "lsi"].flatMap((a) => PAPER_TESTS.metrics.map(() => a)));
  assert.deepEqual(report.baseline, baselineSignificance(byExperiment(runs), qrels, { swaps: 1_000, seed: 9 }));
  // The two families are corrected separately: the same test (reform vs BM25) differs only in pHolm.
  const inPaper = report.paper.tests[0];
  const inBase = report.baseline!.tests[0];
  assert.equal(testKey(inPaper), testKey(inBase));
  assert.equal(inPaper.p, inBase.p);
  assert.deepEqual(JSON.parse(JSON.stringify(report)), report);
  // Defaults: the paper's swaps and seed; with nothing run the file still has all 20 tests.
  const empty = significanceReport(new Map(), qrels);
  assert.deepEqual([empty.swaps, empty.seed, empty.paper.computed, empty.paper.tests.length, empty.baseline], [100_000, 42, 0, 20, null]);
  assert.throws(() => significanceReport(new Map(), qrels, { swaps: 0 }), /swaps/);
  assert.throws(() => significanceReport(new Map(), qrels, { seed: 1.5 }), /seed/);
});

test("the re-ranking family: each re-ranked run against its own first stage, Holm over these tests only", () => {
  const runs = [
    ...paperRuns(["bm25-greekstemmer", "reform:bm25-greekstemmer"]),
    runOf("rerank:bge-reranker-v2-m3:bm25-greekstemmer", (i) => 0.04 * (i % 25)),
    runOf("rerank:llm:reform:bm25-greekstemmer", (i) => 0.03 * (i % 30)),
    runOf("rerank:llm:react-bm25", () => 0.5), // its first stage did not run: no test
  ];
  assert.equal(firstStageOf("rerank:llm:reform:bm25-greekstemmer"), "reform:bm25-greekstemmer");
  assert.equal(firstStageOf("reform:bm25-greekstemmer"), undefined);
  const fam = rerankSignificance(byExperiment(runs), QRELS, { swaps: 2_000, seed: 3 })!;
  assert.deepEqual(
    fam.tests.map((t) => `${t.a} vs ${t.b}`),
    ["rerank:bge-reranker-v2-m3:bm25-greekstemmer vs bm25-greekstemmer", "rerank:llm:reform:bm25-greekstemmer vs reform:bm25-greekstemmer"].flatMap((x) => PAPER_TESTS.metrics.map(() => x)),
  );
  assert.equal(fam.of, 8);
  // The same tests as compareRuns over exactly these pairs: Holm over 8.
  const { tests } = compareRuns(runs, QRELS, {
    pairs: [["rerank:bge-reranker-v2-m3:bm25-greekstemmer", "bm25-greekstemmer"], ["rerank:llm:reform:bm25-greekstemmer", "reform:bm25-greekstemmer"]],
    metrics: PAPER_TESTS.metrics,
    swaps: 2_000,
    seed: 3,
  });
  assert.deepEqual(fam.tests, tests);
  assert.equal(rerankSignificance(byExperiment(runs.slice(0, 2)), QRELS), null);
});

test("formatComparison: ranx-style superscripts for significant wins only, a legend, and the test list", () => {
  const runs = [runOf("bm25", (i) => 0.2 + 0.01 * (i % 5)), runOf("react", () => 0.9), runOf("noise", (i) => (i % 2 ? 0.3 : 0.1))];
  const comparison = compareRuns(runs, qids, { swaps: 10_000, metrics: ["nDCG@10", "Recall@100"] });
  const text = formatComparison(runs.map((r) => ({ name: r.name, mean: meanOf([...r.perQuery.values()]) })), comparison, ["nDCG@10", "Recall@100"], { swaps: 10_000, seed: 42, queries: 40 });
  const lines = text.split("\n");
  const row = (name: string) => lines.find((l) => l.split(/\s+/)[1] === name)!;
  assert.match(row("react"), /^b\s+react\s+0\.9000ᵃᶜ\s+0\.8700ᵃᶜ$/);
  assert.match(row("bm25"), /^a\s+bm25\s+0\.2200\s+0\.1900$/);
  assert.match(row("noise"), /^c\s+noise\s+0\.2000\s+0\.1700$/, "no significant win of c over a");
  assert.match(text, /Superscripts: significantly better than the run with that label \(two-sided paired randomization test, 10,000 random sign flips, seed 42, 40 queries, Holm over all 6 tests; p_Holm < 0\.05\)/);
  assert.match(text, /^bm25\s+react\s+nDCG@10\s+-0\.6800\s+0\.00010\s+0\.00060$/m);
});

// ---------------------------------------------------------------- breakdowns

test("byArea: counts and means per group", () => {
  const v = (x: number) => Object.fromEntries(METRICS.map((m) => [m, x])) as MetricValues;
  const perQuery = new Map([
    ["q1", v(1)],
    ["q2", v(0.5)],
    ["q3", v(0)],
    ["q4", v(0.25)],
  ]);
  const meta = new Map<string, QueryMeta>([
    ["q1", { area: "civil" }],
    ["q2", { area: "criminal" }],
    ["q3", { area: "civil" }],
    ["q4", {}],
  ]);
  const areas = byArea(perQuery, meta);
  assert.deepEqual(areas.map((g) => [g.group, g.queries, g.mean["Recall@100"], g.mean["nDCG@10"]]), [
    [NO_AREA, 1, 0.25, 0.25],
    ["civil", 2, 0.5, 0.5],
    ["criminal", 1, 0.5, 0.5],
  ]);
  assert.equal(areas.reduce((s, g) => s + g.queries, 0), perQuery.size, "areas partition the queries");
  // The spread inside a group: civil's two Recall@100 values, worked by hand; NaN for a group of one.
  const civil = perQuery.get("q1")!["Recall@100"] - perQuery.get("q3")!["Recall@100"];
  close(areas[1].sd["Recall@100"], Math.abs(civil) / Math.SQRT2, 1e-12, "sd of two values is |x − y| / √2");
  assert.ok(Number.isNaN(areas[2].sd["Recall@100"]));
  assert.deepEqual(byArea(new Map(), meta), []);
});

// ---------------------------------------------------------------- speed

test("benchmark: the paper's 20 tests × 100,000 swaps × 283 queries", (t) => {
  const names = ["bm25-greekstemmer", "reform:bm25-greekstemmer", "dense:qwen3-8b", "reform:dense:qwen3-8b", "react-bm25", "dense:gemini-001"];
  const queries = Array.from({ length: 283 }, (_, i) => `q${i}`);
  const runs: RunScores[] = names.map((name, k) => {
    const u = uniform(283 * METRICS.length, 1000 + k);
    return { name, perQuery: new Map(queries.map((q, i) => [q, Object.fromEntries(METRICS.map((m, j) => [m, u[i * METRICS.length + j] * (0.6 + 0.05 * k)])) as MetricValues])) };
  });
  const t0 = performance.now();
  const { tests } = compareRuns(runs, queries, { ...PAPER_TESTS, swaps: 100_000, seed: 42 });
  const ms = performance.now() - t0;
  t.diagnostic(`compareRuns, 20 tests × 100,000 swaps × 283 queries: ${ms.toFixed(0)} ms`);
  assert.equal(tests.length, 20);
  assert.ok(ms < 30_000, `took ${ms} ms`);
});
