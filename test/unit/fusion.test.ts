import { test } from "node:test";
import assert from "node:assert/strict";
import { rrf } from "../../lib/fusion/rrf";
import { rocchio } from "../../lib/dense/rocchio";
import { normalize } from "../../lib/dense/exact-search";
import type { Run } from "../../lib/types";

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
