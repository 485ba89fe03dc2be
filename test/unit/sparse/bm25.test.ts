import { test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { Bm25Index, okapiIdf, type Bm25Scorer, type SearchOptions } from "../../../lib/sparse/bm25";
import { newSelectScratch, selectTop, selectTopClearing } from "../../../lib/util/top-k";

/** A query given as tokens: unknown ones map to -1, which adds 0. */
const search = (s: Bm25Scorer, tokens: readonly string[], k: number, opts?: SearchOptions) =>
  s.searchIds(tokens.map((t) => s.index.vocab.get(t) ?? -1), k, opts);

/** rank_bm25's get_scores written the slow, obvious way, as the reference to compare with. */
function referenceScores(docs: string[][], query: string[], k1 = 1.5, b = 0.75, epsilon = 0.25): number[] {
  const N = docs.length;
  const avgdl = docs.reduce((s, d) => s + d.length, 0) / N;
  const nd = new Map<string, number>();
  for (const d of docs) for (const w of new Set(d)) nd.set(w, (nd.get(w) ?? 0) + 1);
  const idf = new Map<string, number>();
  let sum = 0;
  const neg: string[] = [];
  for (const [w, n] of nd) {
    const v = Math.log(N - n + 0.5) - Math.log(n + 0.5);
    idf.set(w, v);
    sum += v;
    if (v < 0) neg.push(w);
  }
  for (const w of neg) idf.set(w, epsilon * (sum / idf.size));
  const scores = new Array(N).fill(0);
  for (const q of query) {
    for (let d = 0; d < N; d++) {
      const tf = docs[d].filter((w) => w === q).length;
      scores[d] += (idf.get(q) ?? 0) * ((tf * (k1 + 1)) / (tf + k1 * (1 - b + (b * docs[d].length) / avgdl)));
    }
  }
  return scores;
}

/** Stable descending sort of indices by score, as the reference ranks. */
function referenceRanking(scores: number[], k: number, positiveOnly = false): number[] {
  return scores
    .map((s, i) => [s, i] as const)
    .filter(([s]) => !positiveOnly || s > 0)
    .sort((x, y) => y[0] - x[0] || x[1] - y[1])
    .slice(0, k)
    .map(([, i]) => i);
}

const docs = [
  ["ΑΓΩΓ", "ΑΚΥΡ", "ΑΓΩΓ"],
  ["ΑΚΥΡ", "ΣΥΜΒΑΣ"],
  ["ΣΥΜΒΑΣ", "ΔΙΚΑΣΤΗΡΙ", "ΑΓΩΓ", "ΑΠΟΦΑΣ"],
  ["ΑΠΟΦΑΣ"],
  ["ΑΚΥΡ", "ΑΚΥΡ"],
];

test("scores equal the direct rank_bm25 formula, repeated query terms counting twice", () => {
  const index = Bm25Index.build(docs);
  const query = ["ΑΓΩΓ", "ΑΓΩΓ", "ΣΥΜΒΑΣ", "ΑΓΝΩΣΤ"];
  const got = Array.from(index.withParams().scoreAll(query));
  const want = referenceScores(docs, query);
  got.forEach((g, i) => assert.ok(Math.abs(g - want[i]) <= 1e-12 * Math.max(1, Math.abs(want[i])), `doc ${i}: ${g} vs ${want[i]}`));
});

test("terms in more than half the corpus get epsilon times the mean idf", () => {
  const index = Bm25Index.build(docs);
  const idf = okapiIdf(index, 0.25);
  const akyr = index.vocab.get("ΑΚΥΡ")!; // in 3 of 5 documents: raw idf < 0
  const raw = [...index.vocab.keys()].map((t) => {
    const n = index.docFreq(index.vocab.get(t)!);
    return Math.log(5 - n + 0.5) - Math.log(n + 0.5);
  });
  const mean = raw.reduce((a, c) => a + c, 0) / raw.length;
  assert.ok(Math.abs(idf[akyr] - 0.25 * mean) < 1e-15);
});

test("ties keep corpus order; fewer matches than k are padded with zero scores in corpus order", () => {
  const index = Bm25Index.build([["Χ"], ["Ψ"], ["Χ"], ["Ω"], ["Χ"]]);
  const top = search(index.withParams(), ["Χ"], 5);
  assert.deepEqual(Array.from(top.docs), [0, 2, 4, 1, 3]);
  assert.equal(top.scores[3], 0);
  const positive = search(index.withParams(), ["Χ"], 5, { positiveOnly: true });
  assert.deepEqual(Array.from(positive.docs), [0, 2, 4]);
});

test("k larger than the corpus returns the whole corpus; k < 1 is rejected", () => {
  const index = Bm25Index.build(docs);
  assert.equal(search(index.withParams(), ["ΑΓΩΓ"], 1000).docs.length, docs.length);
  assert.throws(() => search(index.withParams(), ["ΑΓΩΓ"], 0), /positive integer/);
  // The scratch buffer is clean after the error: the next query is unaffected.
  const again = index.withParams();
  assert.deepEqual(Array.from(search(again, ["ΑΠΟΦΑΣ"], 2).docs), [3, 2]);
});

test("searchIds ignores ids outside the vocabulary and matches search on strings", () => {
  const index = Bm25Index.build(docs);
  const s = index.withParams({ k1: 0.9, b: 0.4 });
  const ids = ["ΑΓΩΓ", "ΣΥΜΒΑΣ"].map((t) => index.vocab.get(t)!);
  assert.deepEqual(s.searchIds([...ids, 999, -1], 5), search(s, ["ΑΓΩΓ", "ΣΥΜΒΑΣ"], 5));
});

test("property: rankings equal a stable sort of the reference scores, for any corpus, query and parameters", () => {
  const word = fc.constantFrom("Α", "Β", "Γ", "Δ", "Ε", "Ζ");
  fc.assert(
    fc.property(
      // No empty documents: with b = 1 the reference computes 0/0 for them (NaN scores).
      fc.array(fc.array(word, { minLength: 1, maxLength: 8 }), { minLength: 1, maxLength: 12 }),
      fc.array(word, { minLength: 0, maxLength: 6 }),
      // k1 = 0 makes the reference divide 0 by 0 for documents without the term (NaN scores).
      fc.double({ min: 0.01, max: 3, noNaN: true }),
      fc.double({ min: 0, max: 1, noNaN: true }),
      fc.integer({ min: 1, max: 15 }),
      fc.boolean(),
      (corpus, query, k1, b, k, positiveOnly) => {
        const index = Bm25Index.build(corpus);
        const scores = referenceScores(corpus, query, k1, b);
        const top = search(index.withParams({ k1, b }), query, k, { positiveOnly });
        // Equal reference scores computed in a different order may differ in the last bit, so
        // compare the ranking the scores we return imply, plus the scores themselves.
        const got = Array.from(top.docs);
        assert.deepEqual(got, referenceRanking(Array.from(index.withParams({ k1, b }).scoreAll(query)), k, positiveOnly));
        got.forEach((d, i) => assert.ok(Math.abs(top.scores[i] - scores[d]) <= 1e-9 * Math.max(1, Math.abs(scores[d]))));
      },
    ),
    { numRuns: 300 },
  );
});

test("a repeated query term is read once, weight times count: within 1e-14 of rank_bm25's repeated addition", () => {
  // The reference adds a repeated term once per occurrence, in query order; the scorer adds it
  // once, multiplied. The sums differ in the last bits at most, far below any real score gap.
  const word = fc.constantFrom("Α", "Β", "Γ", "Δ", "Ε", "Ζ", "Η");
  fc.assert(
    fc.property(
      fc.array(fc.array(word, { minLength: 1, maxLength: 30 }), { minLength: 2, maxLength: 20 }),
      fc.array(word, { minLength: 1, maxLength: 60 }),
      (corpus, query) => {
        const got = Bm25Index.build(corpus).withParams().scoreAll(query);
        const want = referenceScores(corpus, query);
        const scale = Math.max(1, ...want.map(Math.abs));
        want.forEach((w, d) => assert.ok(Math.abs(got[d] - w) <= 1e-14 * scale, `doc ${d}: ${got[d]} vs ${w}`));
      },
    ),
    { numRuns: 300 },
  );
});

test("selectTop: the k best of a stable descending sort, ties in corpus order, zeros filling in", () => {
  // Scores drawn from a few values make ties and zeros the rule.
  const value = fc.oneof(fc.constantFrom(0, 0, 0.5, 1, 1, 2.25, 7), fc.double({ min: -1, max: 10, noNaN: true }));
  fc.assert(
    fc.property(fc.array(value, { minLength: 1, maxLength: 300 }), fc.integer({ min: 1, max: 120 }), fc.boolean(), (values, k, positiveOnly) => {
      const want = values
        .map((s, d) => ({ s, d }))
        .filter(({ s }) => !positiveOnly || s > 0)
        .sort((x, y) => y.s - x.s || x.d - y.d)
        .slice(0, k);
      const got = selectTop(Float64Array.from(values), k, positiveOnly);
      assert.deepEqual(Array.from(got.docs), want.map((w) => w.d));
      assert.deepEqual(Array.from(got.scores), want.map((w) => w.s));
    }),
    { numRuns: 500 },
  );
});

test("selectTopClearing: selectTop's answer for scores in [0, bound], one scratch reused, the scores left all zero", () => {
  const value = fc.oneof(fc.constantFrom(0, 0, 0.5, 1, 1, 2.25, 7), fc.double({ min: 0, max: 10, noNaN: true }));
  const scratch = newSelectScratch(300);
  fc.assert(
    fc.property(
      fc.array(value, { minLength: 1, maxLength: 300 }),
      fc.integer({ min: 1, max: 120 }),
      fc.boolean(),
      fc.constantFrom(1, 1 + 1e-9, 3, 1e6),
      (values, k, positiveOnly, slack) => {
        const scores = new Float64Array(300);
        scores.set(values);
        const want = selectTop(scores.slice(), k, positiveOnly);
        const got = selectTopClearing(scores, k, positiveOnly, Math.max(...values) * slack, scratch);
        assert.deepEqual(Array.from(got.docs), Array.from(want.docs));
        assert.deepEqual(Array.from(got.scores), Array.from(want.scores));
        assert.ok(scores.every((s) => s === 0));
      },
    ),
    { numRuns: 500 },
  );
});
