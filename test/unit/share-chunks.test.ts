import { test } from "node:test";
import assert from "node:assert/strict";
import { guidedChunks, shareChunks, type WorkerClient } from "../../lib/util/worker";

const range = (n: number) => Array.from({ length: n }, (_, i) => i);
// shareChunks only hands its clients to `there`, so plain objects stand in for workers.
const fakeClients = (n: number) => range(n).map((i) => ({ name: `w${i}` }) as unknown as WorkerClient);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

test("shareChunks runs every chunk once, returns results in chunk order, and keeps each worker at most inFlight ahead", async () => {
  const chunks = range(40).map((i) => [i, i * 10]);
  const ran = new Map<number, string>();
  const outstanding = new Map<string, number>();
  let maxOutstanding = 0;
  const results = await shareChunks(
    chunks,
    fakeClients(2),
    (c) => {
      ran.set(c[0], (ran.has(c[0]) ? "twice " : "") + "here");
      return c[0] + c[1];
    },
    async (client, c) => {
      const name = (client as unknown as { name: string }).name;
      outstanding.set(name, (outstanding.get(name) ?? 0) + 1);
      maxOutstanding = Math.max(maxOutstanding, outstanding.get(name)!);
      await sleep(1 + (c[0] % 3));
      outstanding.set(name, outstanding.get(name)! - 1);
      ran.set(c[0], (ran.has(c[0]) ? "twice " : "") + name);
      return c[0] + c[1];
    },
    2,
  );
  assert.deepEqual(results, chunks.map((c) => c[0] + c[1]));
  assert.equal(ran.size, 40);
  assert.ok(![...ran.values()].some((v) => v.startsWith("twice")), "a chunk ran twice");
  assert.ok(maxOutstanding <= 2, `a worker had ${maxOutstanding} chunks out`);
  const sides = new Set(ran.values());
  assert.ok(sides.has("here") && sides.has("w0") && sides.has("w1"), `every side took chunks: ${[...sides]}`);
});

test("shareChunks: the faster side takes more chunks", async () => {
  const chunks = range(30);
  let here = 0;
  await shareChunks(
    chunks,
    fakeClients(1),
    (c) => {
      here++;
      const until = Date.now() + 1; // about 1 ms of work here
      while (Date.now() < until);
      return c;
    },
    async (_w, c) => {
      await sleep(25); // a slow worker
      return c;
    },
  );
  assert.ok(here >= 20, `this thread took ${here} of 30 chunks from a slow worker`);
});

test("shareChunks runs a chunk here when its worker fails, and handles no chunks and no workers", async () => {
  const results = await shareChunks(
    range(12),
    fakeClients(1),
    (c) => `here ${c}`,
    async (_w, c) => {
      if (c % 2 === 0) throw new Error("worker died");
      return `there ${c}`;
    },
  );
  assert.equal(results.length, 12);
  results.forEach((r, i) => assert.ok(r === `here ${i}` || (i % 2 === 1 && r === `there ${i}`), r));
  assert.deepEqual(await shareChunks([], fakeClients(1), (c: number) => c, async (_w, c) => c), []);
  assert.deepEqual(await shareChunks(range(5), [], (c) => c * 2, async () => -1), [0, 2, 4, 6, 8]);
});

test("guidedChunks keeps every item once and in order, and its chunks shrink from 1/16 of the work towards 1/256", () => {
  for (const n of [0, 1, 5, 100, 4355]) {
    const chunks = guidedChunks(range(n), 2);
    assert.deepEqual(chunks.flat(), range(n));
    assert.ok(chunks.every((c) => c.length > 0));
  }
  const chunks = guidedChunks(range(4096), 2);
  const sizes = chunks.map((c) => c.length);
  assert.equal(sizes[0], 256); // 1/16 while much is left
  assert.ok(sizes[sizes.length - 2] <= 24, `late chunks are small: ${sizes}`);
  for (let i = 1; i < sizes.length - 1; i++) assert.ok(sizes[i] <= sizes[i - 1], `sizes never grow: ${sizes}`);
  assert.ok(sizes.length >= 20 && sizes.length <= 60, `${sizes.length} chunks`);
  // By cost: a heavy item is a chunk of its own, and shares are of cost, not count.
  const cost = (i: number) => (i === 10 ? 1000 : 1);
  const byCost = guidedChunks(range(1000), 2, cost);
  assert.deepEqual(byCost.flat(), range(1000));
  assert.ok(byCost.some((c) => c.length === 1 && c[0] === 10), "the heavy item stands alone");
  // A cost of zero everywhere still returns every item.
  assert.deepEqual(guidedChunks(range(9), 2, () => 0).flat(), range(9));
});
