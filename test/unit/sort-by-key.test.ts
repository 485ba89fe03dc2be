import { test } from "node:test";
import assert from "node:assert/strict";
import { sortByKeyDescending } from "../../lib/util/top-k";
import { Xoshiro128ss } from "../../lib/util/random";

test("sortByKeyDescending orders by key descending, ties by item ascending, as a comparator sort does (random, tie-heavy, sorted and reversed inputs)", () => {
  const rng = Xoshiro128ss.fromSeed(9);
  for (let trial = 0; trial < 400; trial++) {
    const size = rng.nextUint32() % 300;
    const distinct = 1 + (rng.nextUint32() % (trial % 3 === 0 ? 3 : 1000));
    const key = Float64Array.from({ length: size + 5 }, () => (rng.nextUint32() % distinct) / 7 - 20);
    const items = Int32Array.from({ length: size }, (_, i) => i);
    if (trial % 4 === 1) items.reverse();
    if (trial % 4 === 2) for (let i = size - 1; i > 0; i--) { const j = rng.nextUint32() % (i + 1); [items[i], items[j]] = [items[j], items[i]]; }
    const n = trial % 5 === 0 ? size >> 1 : size; // only a prefix is sorted
    const expected = [...items.subarray(0, n)].sort((x, y) => key[y] - key[x] || x - y);
    const rest = [...items.subarray(n)];
    sortByKeyDescending(items, n, key);
    assert.deepEqual([...items.subarray(0, n)], expected, `trial ${trial}`);
    assert.deepEqual([...items.subarray(n)], rest, "items past n are untouched");
  }
  const none = new Int32Array(0);
  sortByKeyDescending(none, 0, new Float64Array(0));
  assert.equal(none.length, 0);
});
