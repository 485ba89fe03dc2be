import { test } from "node:test";
import assert from "node:assert/strict";
import { splitWork } from "../../lib/util/worker";

const range = (n: number) => Array.from({ length: n }, (_, i) => i);

test("splitWork keeps every item once, in order, in the number of parts asked", () => {
  for (const n of [0, 1, 2, 7, 100, 1001]) {
    for (const parts of [1, 2, 3, 4]) {
      const split = splitWork(range(n), parts);
      assert.equal(split.length, parts);
      assert.deepEqual(split.flat(), range(n));
    }
  }
});

test("splitWork gives the main thread mainShare of a worker's count", () => {
  const [mine, a, b] = splitWork(range(280), 3, 0.8);
  // 280 × 0.8 / 2.8 = 80; the rest shared evenly.
  assert.deepEqual([mine.length, a.length, b.length], [80, 100, 100]);
  assert.deepEqual(splitWork(range(10), 2, 1).map((p) => p.length), [5, 5]);
});

test("splitWork with a cost shares the summed cost, not the count", () => {
  // Ten heavy items (cost 10) then ninety light ones (cost 1): 190 in all, 95 each.
  const items = range(100);
  const cost = (i: number) => (i < 10 ? 10 : 1);
  const [mine, theirs] = splitWork(items, 2, 1, cost);
  const sum = (xs: number[]) => xs.reduce((a, i) => a + cost(i), 0);
  assert.deepEqual([...mine, ...theirs], items);
  // An even count would give 145 and 45; by cost the parts are within one item of 95.
  assert.ok(Math.abs(sum(mine) - 95) <= 10 && Math.abs(sum(theirs) - 95) <= 10, `${sum(mine)} / ${sum(theirs)}`);
  // The tenth heavy item's midpoint falls on 95, so it is the main thread's: 100 against 90.
  assert.equal(mine.length, 10);
});

test("splitWork with a cost of zero everywhere still returns every item", () => {
  const split = splitWork(range(9), 3, 1, () => 0);
  assert.deepEqual(split.flat(), range(9));
});
