import { test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { ExactIndex, normalize } from "../../../lib/dense/exact-search";

function naive(docs: number[][], q: number[], k: number): { docs: number[]; scores: number[] } {
  const qn = normalize(q);
  const scored = docs.map((d, i) => {
    const dn = normalize(d);
    let s = 0;
    for (let j = 0; j < q.length; j++) s += qn[j] * dn[j];
    return [s, i] as const;
  });
  scored.sort((a, b) => b[0] - a[0] || a[1] - b[1]);
  return { docs: scored.slice(0, k).map(([, i]) => i), scores: scored.slice(0, k).map(([s]) => s) };
}

test("scores and rankings equal a direct computation, for any sizes (dims not a multiple of 4, remainders of the 3x4 blocks)", () => {
  fc.assert(
    fc.property(
      fc.integer({ min: 1, max: 9 }),
      fc.integer({ min: 1, max: 40 }),
      fc.integer({ min: 1, max: 9 }),
      fc.integer({ min: 1, max: 50 }),
      fc.integer(),
      (dim, n, nq, k, seed) => {
        let s = seed >>> 0;
        const rnd = () => ((s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32) - 0.5;
        // Small integers make exact ties likely, which checks the tie order too.
        const docs = Array.from({ length: n }, () => Array.from({ length: dim }, () => Math.round(rnd() * 4)));
        const queries = Array.from({ length: nq }, () => Array.from({ length: dim }, () => Math.round(rnd() * 4) || 1));
        const index = new ExactIndex(docs);
        const got = index.search(queries, k);
        queries.forEach((q, i) => {
          const want = naive(docs, q, k);
          got[i].scores.forEach((sc, r) => assert.ok(Math.abs(sc - want.scores[r]) < 1e-5, `score at rank ${r}`));
          // Equal scores may differ in the last float32 bit from the float64 reference, so the
          // order is checked where the reference's scores are clearly apart.
          for (let r = 0; r + 1 < want.docs.length; r++) {
            if (want.scores[r] - want.scores[r + 1] > 1e-5) assert.ok(Array.from(got[i].docs).indexOf(want.docs[r]) <= r);
          }
        });
      },
    ),
    { numRuns: 200 },
  );
});

test("exact ties keep document order", () => {
  const index = new ExactIndex([[1, 0], [0, 1], [1, 0], [1, 0]]);
  assert.deepEqual(Array.from(index.search([[1, 0]], 4)[0].docs), [0, 2, 3, 1]);
});

test("more queries than one chunk, stored vectors, and dimension errors", () => {
  const docs = Array.from({ length: 10 }, (_, i) => [i + 1, 10 - i, 1]);
  const index = new ExactIndex(docs);
  const queries = Array.from({ length: 300 }, (_, i) => [i % 7, 1, 0]);
  const results = index.search(queries, 3);
  assert.equal(results.length, 300);
  assert.deepEqual(results[299], index.search([queries[299]], 3)[0]);
  const v = index.vector(2);
  assert.ok(Math.abs(Math.hypot(...v) - 1) < 1e-6);
  assert.throws(() => index.search([[1, 2]], 3), /2 dimensions, expected 3/);
  assert.throws(() => new ExactIndex([[1, 2], [1]]), /document vector 1 has 1 dimensions/);
  assert.throws(() => index.search([[1, 2, 3]], 0), /positive integer/);
});

test("a zero query vector scores 0 everywhere and still returns k documents in order", () => {
  const index = new ExactIndex([[1, 0], [0, 1], [1, 1]]);
  const [r] = index.search([[0, 0]], 2);
  assert.deepEqual(Array.from(r.docs), [0, 1]);
  assert.deepEqual(Array.from(r.scores), [0, 0]);
});
