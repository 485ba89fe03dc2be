import { test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { rrf } from "../../../lib/fusion/rrf";
import { combFuse } from "../../../lib/fusion/comb";
import { normalizeScores } from "../../../lib/fusion/normalize";
import { createRetriever, parseRetrieverName, retrieverNames } from "../../../lib/retrievers";
import { loadBenchmark } from "../../../lib/data/source";
import { main } from "../../../lib/cli/main";
import { GbrError } from "../../../lib/util/errors";
import { rocchio } from "../../../lib/dense/rocchio";
import { normalize } from "../../../lib/dense/exact-search";
import type { Run } from "../../../lib/types";

const run = (entries: Record<string, string[]>): Run => ({ rankings: new Map(Object.entries(entries)) });

test("RRF equals a hand-computed fusion (k = 60), ties by doc id", () => {
  const fused = rrf([run({ q: ["a", "b", "c"] }), run({ q: ["c", "a", "d"] })]);
  // a: 1/61 + 1/62, c: 1/63 + 1/61, b: 1/62, d: 1/63
  assert.deepEqual(fused.rankings.get("q"), ["a", "c", "b", "d"]);
  assert.ok(Math.abs(fused.scores!.get("q")![0] - (1 / 61 + 1 / 62)) < 1e-15);
  // Symmetric inputs tie: b and a both get 1/61 + 1/62; the tie goes to the smaller id.
  assert.deepEqual(rrf([run({ q: ["b", "a"] }), run({ q: ["a", "b"] })]).rankings.get("q"), ["a", "b"]);
});

test("RRF: depth limits each input, top limits the output, duplicates count once, queries of either input are fused", () => {
  const long = Array.from({ length: 150 }, (_, i) => `d${i}`);
  const fused = rrf([run({ q: long, only1: ["x"] }), run({ q: ["d120", "d0"], only2: ["y"] })], { top: 100 });
  const q = fused.rankings.get("q")!;
  assert.equal(q.length, 100);
  assert.equal(q[0], "d0");
  assert.ok(q.includes("d120")); // from the second run's rank 1, although beyond the first run's depth
  assert.deepEqual(fused.rankings.get("only1"), ["x"]);
  assert.deepEqual(fused.rankings.get("only2"), ["y"]);
  assert.deepEqual(rrf([run({ q: ["a", "a", "b"] })]).scores!.get("q"), [1 / 61, 1 / 62]);
});

test("Rocchio equals q + β · mean(feedback), renormalised", () => {
  const q = [3, 4, 0];
  const fb = [normalize([1, 0, 0]), normalize([0, 0, 2])];
  const got = rocchio(q, fb, 0.25);
  const qn = normalize(q);
  const want = normalize([qn[0] + 0.25 * 0.5, qn[1], qn[2] + 0.25 * 0.5]);
  got.forEach((x, i) => assert.ok(Math.abs(x - want[i]) < 1e-7));
  assert.deepEqual(Array.from(rocchio(q, [], 0.25)), Array.from(normalize(q)));
  assert.throws(() => rocchio(q, [new Float32Array(2)]), /2 dimensions/);
});

// ---- Fusion as ranx has it (issue 23, item 8) ----------------------------------------------------------------------
// The reference below is written from ranx's published definitions (ranx/normalization/*.py, ranx/fusion/*.py),
// on ranx's own shape, {qid: {docid: score}}, independently of lib/fusion: normalise each run's list per query with
// every denominator floored at 1e-9 (z-score with the population std, numpy's default), then CombSUM adds a
// document's scores with 0 for a run that lacks it, CombMNZ multiplies that sum by how many runs hold the document.

type RanxRun = Record<string, Record<string, number>>;
type Norm = "minmax" | "max" | "zscore";

function refNormalise(list: Record<string, number>, norm: Norm): Record<string, number> {
  const v = Object.values(list);
  if (v.length === 0) return {};
  const out: Record<string, number> = {};
  if (norm === "minmax") {
    const lo = Math.min(...v);
    const hi = Math.max(...v);
    for (const [d, s] of Object.entries(list)) out[d] = (s - lo) / Math.max(hi - lo, 1e-9);
  } else if (norm === "max") {
    const hi = Math.max(...v);
    for (const [d, s] of Object.entries(list)) out[d] = s / Math.max(hi, 1e-9);
  } else {
    const mean = v.reduce((a, b) => a + b, 0) / v.length;
    const variance = v.reduce((a, b) => a + (b - mean) * (b - mean), 0) / v.length;
    for (const [d, s] of Object.entries(list)) out[d] = (s - mean) / Math.max(Math.sqrt(variance), 1e-9);
  }
  return out;
}

function refComb(runs: RanxRun[], method: "combsum" | "combmnz", norm: Norm): RanxRun {
  const normed = runs.map((r) => Object.fromEntries(Object.entries(r).map(([q, l]) => [q, refNormalise(l, norm)])));
  const out: RanxRun = {};
  for (const q of new Set(runs.flatMap((r) => Object.keys(r)))) {
    out[q] = {};
    for (const d of new Set(normed.flatMap((r) => Object.keys(r[q] ?? {})))) {
      const holding = normed.filter((r) => r[q] && d in r[q]);
      const total = normed.reduce((acc, r) => acc + (r[q]?.[d] ?? 0), 0);
      out[q][d] = method === "combsum" ? total : total * holding.length;
    }
  }
  return out;
}

/** Weighted RRF from its definition: Σ over runs of w_i / (60 + 1-based rank of the document in run i). */
function refWrrf(rankings: string[][], weights: number[]): Record<string, number> {
  const out: Record<string, number> = {};
  rankings.forEach((list, i) => list.forEach((d, r) => (out[d] = (out[d] ?? 0) + weights[i] / (60 + r + 1))));
  return out;
}

/** A ranx-shaped run as ours: each list ranked by score (ties by id, as a retriever's corpus order would). */
function fromRanx(r: RanxRun, name?: string): Run {
  const rankings = new Map<string, string[]>();
  const scores = new Map<string, number[]>();
  for (const [q, list] of Object.entries(r)) {
    const sorted = Object.entries(list).sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
    rankings.set(q, sorted.map(([d]) => d));
    scores.set(q, sorted.map(([, s]) => s));
  }
  return { rankings, scores, ...(name ? { info: { retriever: name } } : {}) };
}

/** Our fused run as {qid: {docid: score}}, after checking its order: score descending, ties by doc id. */
function asRanx(run: Run): RanxRun {
  const out: RanxRun = {};
  for (const [q, ids] of run.rankings) {
    const s = run.scores!.get(q)!;
    ids.forEach((d, i) => {
      if (i > 0) assert.ok(s[i - 1] > s[i] || (s[i - 1] === s[i] && ids[i - 1] < d), `order at ${q}:${i}`);
    });
    out[q] = Object.fromEntries(ids.map((d, i) => [d, s[i]]));
  }
  return out;
}

function assertClose(got: RanxRun, want: RanxRun, tol = 1e-12) {
  assert.deepEqual(Object.keys(got).sort(), Object.keys(want).sort());
  for (const q of Object.keys(want)) {
    assert.deepEqual(Object.keys(got[q]).sort(), Object.keys(want[q]).sort(), `documents of ${q}`);
    for (const [d, s] of Object.entries(want[q])) assert.ok(Math.abs(got[q][d] - s) <= tol * Math.max(1, Math.abs(s)), `${q} ${d}: ${got[q][d]} vs ${s}`);
  }
}

// b is missing from B and d from A; B ties a and d; q2 is in A only; C is a constant run.
const A: RanxRun = { q: { a: 10, b: 6, c: 2 }, q2: { x: 1, y: 3 } };
const B: RanxRun = { q: { c: 0.9, a: 0.5, d: 0.5 } };
const C: RanxRun = { q: { a: 3, e: 3 } };
const METHODS = ["combsum", "combmnz"] as const;
const NORMS = ["minmax", "max", "zscore"] as const;

test("normalisations as ranx: min-max, max and z-score (population std), a 1e-9 floor for a constant or non-positive list", () => {
  assert.deepEqual(normalizeScores([10, 6, 2], "minmax"), [1, 0.5, 0]);
  assert.deepEqual(normalizeScores([10, 6, 2], "max"), [1, 0.6, 0.2]);
  // Population std of 10, 6, 2 is √(32/3); a sample std (√16 = 4) would give ±1.
  const z = normalizeScores([10, 6, 2], "zscore");
  assert.ok(Math.abs(z[0] - Math.sqrt(1.5)) < 1e-15 && z[1] === 0 && Math.abs(z[2] + Math.sqrt(1.5)) < 1e-15);
  assert.deepEqual(normalizeScores([3, 3], "minmax"), [0, 0]);
  assert.deepEqual(normalizeScores([3, 3], "zscore"), [0, 0]);
  assert.deepEqual(normalizeScores([3, 3], "max"), [1, 1]);
  // ranx divides by max(top, 1e-9): a list with no positive score is scaled up, not flipped.
  assert.deepEqual(normalizeScores([-2, -4], "max"), [-2 / 1e-9, -4 / 1e-9]); // about -2e9, -4e9
  assert.deepEqual(normalizeScores([], "zscore"), []);
});

test("CombSUM and CombMNZ equal hand-computed numbers (min-max): a missing document adds 0, MNZ counts holders", () => {
  // min-max: A.q a 1, b 0.5, c 0; B.q c 1, a 0, d 0 (a and d tie at B's minimum).
  const sum = combFuse([fromRanx(A), fromRanx(B)], { method: "combsum", norm: "minmax" });
  assert.deepEqual(sum.rankings.get("q"), ["a", "c", "b", "d"]); // a and c tie at 1: the smaller id first
  assert.deepEqual(sum.scores!.get("q"), [1, 1, 0.5, 0]);
  const mnz = combFuse([fromRanx(A), fromRanx(B)], { method: "combmnz", norm: "minmax" });
  assert.deepEqual(mnz.rankings.get("q"), ["a", "c", "b", "d"]);
  assert.deepEqual(mnz.scores!.get("q"), [2, 2, 0.5, 0]); // d scored 0 in B, yet B retrieved it: 0 × 1
  assert.deepEqual(sum.rankings.get("q2"), ["y", "x"]); // a query one input lacks is fused from the others
  // z-score: b (only in A, at A's mean) scores 0 and beats d (only in B, below B's mean).
  const z = combFuse([fromRanx(A), fromRanx(B)], { method: "combsum", norm: "zscore" });
  assert.deepEqual(z.rankings.get("q"), ["a", "c", "b", "d"]);
  assert.ok(Math.abs(z.scores!.get("q")![0] - (Math.sqrt(1.5) - Math.SQRT1_2)) < 1e-12);
});

test("every CombSUM/CombMNZ × min-max/max/z-score equals the reference from ranx's definitions, a constant run included", () => {
  for (const method of METHODS)
    for (const norm of NORMS) {
      const fused = combFuse([fromRanx(A, "A"), fromRanx(B, "B"), fromRanx(C, "C")], { method, norm, name: `x-${method}-${norm}` });
      assertClose(asRanx(fused), refComb([A, B, C], method, norm));
      assert.equal(fused.info?.retriever, `x-${method}-${norm}`);
      assert.deepEqual(fused.info?.parts?.map((p) => p.retriever), ["A", "B", "C"]);
    }
});

test("score fusion: depth cuts each input before normalising, top cuts the output; a rank-only input is a usage error", () => {
  // depth 2 drops c from A, so A's min-max runs over a 10 and b 6: b → 0.
  const cut = combFuse([fromRanx(A), fromRanx(B)], { method: "combsum", norm: "minmax", depth: 2, top: 3 });
  assertClose(asRanx(cut), { q: { a: 1, c: 1, b: 0 }, q2: { y: 1, x: 0 } });
  const rankOnly: Run = { rankings: new Map([["q", ["a", "b"]]]), info: { retriever: "react-bm25" } };
  assert.throws(
    () => combFuse([fromRanx(A), rankOnly], { method: "combmnz", norm: "max" }),
    (e: GbrError) => e.code === "USAGE" && /input 2 \(react-bm25\) has no scores/.test(e.message) && /rrf:/.test(e.hint ?? ""),
  );
});

test("weighted RRF is Σ w_i / (60 + rank_i); all weights 1 is exactly the paper's RRF", () => {
  const a = run({ q: ["a", "b", "c"] });
  const b = run({ q: ["c", "a", "d"] });
  const fused = rrf([a, b], { weights: [0.7, 0.3] });
  const want = refWrrf([["a", "b", "c"], ["c", "a", "d"]], [0.7, 0.3]);
  assertClose(asRanx(fused), { q: want });
  assert.deepEqual(fused.rankings.get("q"), ["a", "c", "b", "d"]); // a .7/61+.3/62 > c .7/63+.3/61 > b .7/62 > d
  // Weights can reverse the plain order: c leads when the second run counts 3 times as much.
  assert.equal(rrf([a, b], { weights: [1, 3] }).rankings.get("q")![0], "c");
  assert.deepEqual(rrf([a, b], { weights: [1, 1] }), rrf([a, b]));
  assert.throws(() => rrf([a, b], { weights: [1] }), /1 weights for 2 runs/);
});

test("property: the fusions equal the reference on random runs (ties, overlaps, constant lists, missing queries)", () => {
  const list = fc.dictionary(fc.constantFrom("a", "b", "c", "d", "e", "f"), fc.oneof(fc.integer({ min: -3, max: 3 }), fc.double({ min: -50, max: 50, noNaN: true })), { maxKeys: 6 });
  const ranxRun = fc.dictionary(fc.constantFrom("q1", "q2", "q3"), list, { minKeys: 1, maxKeys: 3 });
  fc.assert(
    fc.property(fc.array(ranxRun, { minLength: 2, maxLength: 4 }), fc.array(fc.double({ min: 0.01, max: 5, noNaN: true }), { minLength: 4, maxLength: 4 }), (runs, w) => {
      for (const method of METHODS) for (const norm of NORMS) assertClose(asRanx(combFuse(runs.map((r) => fromRanx(r)), { method, norm })), refComb(runs, method, norm), 1e-9);
      const ours = runs.map((r) => fromRanx(r));
      const weights = w.slice(0, runs.length);
      const fused = asRanx(rrf(ours, { weights }));
      for (const [q, got] of Object.entries(fused)) assertClose({ [q]: got }, { [q]: refWrrf(ours.map((r) => r.rankings.get(q) ?? []), weights) });
    }),
    { numRuns: 300 },
  );
});

test("fuse: names parse into a typed fusion and parts whose own names hold colons; rrf: is unchanged", () => {
  const s = parseRetrieverName("fuse:combsum-minmax:bm25-greekstemmer+dense:qwen3-8b");
  assert.equal(s.kind, "fuse");
  assert.ok(s.kind === "fuse");
  assert.deepEqual(s.fusion, { kind: "comb", method: "combsum", norm: "minmax" });
  assert.deepEqual(s.of.map((p) => [p.kind, p.name]), [["bm25", "bm25-greekstemmer"], ["dense", "dense:qwen3-8b"]]);
  const w = parseRetrieverName("fuse:wrrf:0.7,.3,2e-1:rerank:bge-reranker-v2-m3:bm25-greekstemmer+lsi:64+prf:lsi");
  assert.ok(w.kind === "fuse");
  assert.deepEqual(w.fusion, { kind: "wrrf", weights: [0.7, 0.3, 0.2] });
  assert.deepEqual(w.of.map((p) => p.kind), ["rerank", "lsi", "prf"]);
  for (const [name, norm] of [["fuse:combmnz-zscore:lsi+bm25-spacy", "zscore"], ["fuse:combmnz-max:lsi+bm25-spacy", "max"]] as const) {
    const p = parseRetrieverName(name);
    assert.ok(p.kind === "fuse" && p.fusion.kind === "comb" && p.fusion.norm === norm && p.fusion.method === "combmnz", name);
  }
  assert.deepEqual(parseRetrieverName("rrf:bm25-greekstemmer+lsi").kind, "rrf");
  assert.ok(retrieverNames().includes("fuse:<method>:<a>+<b>"));
});

test("fuse: a malformed name is a usage error that says what was meant", () => {
  const cases: [string, RegExp][] = [
    ["fuse:combsun-minmax:bm25-greekstemmer+lsi", /unknown fusion 'combsun-minmax' \(did you mean 'combsum-minmax'\?\)/],
    ["fuse:combmnz-zscor:bm25-greekstemmer+lsi", /did you mean 'combmnz-zscore'/],
    ["fuse:rrf:bm25-greekstemmer+lsi", /did you mean 'wrrf'\?\); plain RRF is rrf:<a>\+<b>/],
    ["fuse:combsum:bm25-greekstemmer+lsi", /unknown fusion 'combsum' \(did you mean 'combsum-minmax'\?\)/],
    ["fuse:wrrf:0.7:bm25-greekstemmer+lsi", /1 weight for 2 retrievers/],
    ["fuse:wrrf:0.5,0.3,0.2:bm25-greekstemmer+lsi", /3 weights for 2 retrievers/],
    ["fuse:wrrf:bm25-greekstemmer+lsi", /expected fuse:wrrf:<w1>,<w2>/],
    ["fuse:wrrf:bm25-greekstemmer+dense:qwen3-8b", /expected fuse:wrrf:<w1>,<w2>/],
    ["fuse:wrrf:0,1:bm25-greekstemmer+lsi", /positive weights/],
    ["fuse:wrrf:0.5,abc:bm25-greekstemmer+lsi", /positive weights/],
    ["fuse:wrrf:0x1,1:bm25-greekstemmer+lsi", /positive weights/],
    ["fuse:combsum-max:bm25-greekstemmer", /at least two retrievers/],
    ["fuse:combsum-max:bm25-greekstemmer++lsi", /at least two retrievers/],
    ["fuse:combsum-max", /expected fuse:<comb>-<norm>/],
    ["fuse:combsum-max:bm25-greekstemer+lsi", /unknown retriever 'bm25-greekstemer' \(did you mean 'bm25-greekstemmer'\?\)/],
  ];
  for (const [name, message] of cases) {
    assert.throws(() => parseRetrieverName(name), (e: GbrError) => e instanceof GbrError && e.code === "USAGE" && message.test(e.message), name);
  }
});

test("gbr search --retriever fuse:…: the fused run of its parts; a malformed name exits 2 with a suggestion", async () => {
  const bench = (await loadBenchmark("sample")).benchmark;
  const parts = await Promise.all(["bm25-greekstemmer", "prf:bm25-greekstemmer"].map(async (n) => (await createRetriever(n, bench)).retrieve(bench.queries, 100)));
  const io = () => {
    const o = { out: "", err: "", stdout: (t: string) => void (o.out += t), stderr: (t: string) => void (o.err += t), stdin: async () => "" };
    return o;
  };
  for (const [name, want] of [
    ["fuse:combmnz-zscore:bm25-greekstemmer+prf:bm25-greekstemmer", combFuse(parts, { method: "combmnz", norm: "zscore", top: 10 })],
    ["fuse:wrrf:0.7,0.3:bm25-greekstemmer+prf:bm25-greekstemmer", rrf(parts, { weights: [0.7, 0.3], top: 10 })],
  ] as const) {
    const ok = io();
    assert.equal(await main(["search", "--data", "sample", "--retriever", name, "--k", "10", "--format", "json", "-q"], ok), 0, ok.err);
    assert.deepEqual(JSON.parse(ok.out), Object.fromEntries(want.rankings));
  }
  const bad = io();
  assert.equal(await main(["search", "--data", "sample", "--retriever", "fuse:combsum-minmx:bm25-greekstemmer+lsi", "-q"], bad), 2);
  assert.match(bad.err, /did you mean 'combsum-minmax'/);
  assert.equal(bad.out, "");
});
