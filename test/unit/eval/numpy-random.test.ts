/**
 * The project's generator is numpy's `default_rng`: PCG64 seeded through SeedSequence, checked against numpy's own
 * states, raw outputs and `choice` results (shared/oracles/numpy-rng/pcg64.json), and the randomization test's
 * counts against whole families run as the authors' notebook runs them (authors-randomization.json).
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { holm, pairedRandomizationTest } from "../../../lib/eval/randomization";
import { compareRuns } from "../../../lib/eval/compare-runs";
import { METRICS, type MetricValues } from "../../../lib/eval/metrics";
import { Pcg64 } from "../../../lib/numeric/random";
import { requireShared } from "../../helpers/shared";

interface GeneratorOracle {
  seed: string;
  state: string;
  inc: string;
  raw64: string[];
  choiceCalls: [number[], number[], number[], number[][]];
}
interface FamilyOracle {
  seed: number;
  swaps: number;
  n: number;
  diffs: number[][];
  tests: { delta: number; extreme: number; p: number; pHolm: number }[];
}

const oracle = <T>(name: string): T => JSON.parse(readFileSync(requireShared("oracles", "numpy-rng", name), "utf8")) as T;

test("default_rng(seed): numpy's state, increment and first 24 raw outputs, for seeds up to 2^100", () => {
  const { generators } = oracle<{ generators: GeneratorOracle[] }>("pcg64.json");
  assert.ok(generators.length >= 8);
  for (const g of generators) {
    const rng = Pcg64.fromSeed(BigInt(g.seed));
    assert.deepEqual({ state: rng.state.state.toString(), inc: rng.state.inc.toString() }, { state: g.state, inc: g.inc }, `seed ${g.seed}`);
    assert.deepEqual(g.raw64.map(() => rng.nextUint64().toString()), g.raw64, `seed ${g.seed}`);
  }
  // A number seed is the same as its bigint.
  assert.equal(Pcg64.fromSeed(42).nextUint64(), Pcg64.fromSeed(42n).nextUint64());
  assert.throws(() => Pcg64.fromSeed(-1), /non-negative/);
  assert.throws(() => Pcg64.fromSeed(1.5), /integer/);
});

test("choice([-1, 1]): numpy's signs over consecutive calls of odd sizes and a 2-D call, scalar and packed", () => {
  const { generators } = oracle<{ generators: GeneratorOracle[] }>("pcg64.json");
  for (const g of generators) {
    const scalar = Pcg64.fromSeed(BigInt(g.seed));
    const flat = [7, 7, 7].map((n) => Array.from(scalar.choiceSigns(n)));
    const grid = Array.from(scalar.choiceSigns(15));
    assert.deepEqual([...flat, [grid.slice(0, 5), grid.slice(5, 10), grid.slice(10)]], g.choiceCalls, `seed ${g.seed}`);
    // The packed form of the same calls: bit set = −1.
    const packed = Pcg64.fromSeed(BigInt(g.seed));
    const unpack = (flips: number, n: number) => {
      const bytes = packed.packedSigns(flips, n);
      const per = Math.ceil(n / 8);
      return Array.from({ length: flips }, (_, f) => Array.from({ length: n }, (_, i) => ((bytes[f * per + (i >> 3)] >> (i & 7)) & 1 ? -1 : 1)));
    };
    assert.deepEqual([...[7, 7, 7].map((n) => unpack(1, n)[0]), unpack(3, 5)], g.choiceCalls, `seed ${g.seed} packed`);
  }
});

test("property: for random seeds and sizes, every sign is the top bit of the next 32-bit half (low, then high)", () => {
  const meta = Pcg64.fromSeed(2026);
  for (let trial = 0; trial < 60; trial++) {
    const seed = (BigInt(meta.nextUint32()) << BigInt(meta.nextUint32() % 100)) + BigInt(meta.nextUint32());
    const draw = (n: number) => meta.nextUint32() % n;
    const calls = Array.from({ length: 1 + draw(5) }, () => [1 + draw(4), 1 + draw(40)] as const);
    // The documented rule, on raw 64-bit outputs.
    const raw = Pcg64.fromSeed(seed);
    const halves: number[] = [];
    const next = () => {
      if (!halves.length) {
        const x = raw.nextUint64();
        halves.push(Number(x & 0xffffffffn), Number(x >> 32n));
      }
      return halves.shift()!;
    };
    const scalar = Pcg64.fromSeed(seed);
    const packed = Pcg64.fromSeed(seed);
    for (const [flips, n] of calls) {
      const want = Array.from({ length: flips * n }, () => (next() >= 0x80000000 ? 1 : -1));
      assert.deepEqual(Array.from(scalar.choiceSigns(flips * n)), want, `seed ${seed}`);
      const bytes = packed.packedSigns(flips, n);
      const per = Math.ceil(n / 8);
      const got = Array.from({ length: flips * n }, (_, k) => {
        const f = Math.floor(k / n);
        const i = k % n;
        return (bytes[f * per + (i >> 3)] >> (i & 7)) & 1 ? -1 : 1;
      });
      assert.deepEqual(got, want, `seed ${seed} packed ${flips}×${n}`);
    }
    // All three stay on one stream afterwards, a spare half included.
    const after = next();
    assert.equal(scalar.nextUint32(), after);
    assert.equal(packed.nextUint32(), after);
  }
});

test("random() follows numpy's rule on the raw stream", () => {
  const raw = Pcg64.fromSeed(42);
  const doubles = Pcg64.fromSeed(42);
  for (let i = 0; i < 200; i++) assert.equal(doubles.nextDouble(), Number(raw.nextUint64() >> 11n) / 2 ** 53);
  assert.equal(Pcg64.fromSeed(42).nextDouble(), 0.7739560485559633, "numpy: default_rng(42).random()");
});

test("the authors' randomization families: every count, p and Holm p of numpy's run, exactly", () => {
  const { families } = oracle<{ families: FamilyOracle[] }>("authors-randomization.json");
  assert.ok(families.length >= 2);
  for (const fam of families) {
    const rng = Pcg64.fromSeed(fam.seed);
    const got = fam.diffs.map((d) => pairedRandomizationTest(d, new Array(d.length).fill(0), { rng, swaps: fam.swaps }));
    assert.deepEqual(
      got.map((g) => g.extreme),
      fam.tests.map((t) => t.extreme),
      `seed ${fam.seed}, n ${fam.n}`,
    );
    assert.deepEqual(
      got.map((g) => g.p),
      fam.tests.map((t) => t.p),
    );
    holm(got.map((g) => g.p)).forEach((h, i) => assert.ok(Math.abs(h - fam.tests[i].pHolm) < 1e-15, `pHolm ${i}`));
    got.forEach((g, i) => assert.ok(Math.abs(g.delta - fam.tests[i].delta) < 1e-12, `delta ${i}`));
  }
});

test("compareRuns runs a family as the authors do: pairs in order, each pair's metrics in order, one stream", () => {
  const values = Pcg64.fromSeed(3);
  const qids = Array.from({ length: 57 }, (_, i) => `q${i + 1}`);
  const metrics = ["nDCG@10", "MAP@100", "Recall@100"] as const;
  const runs = ["a", "b", "c"].map((name, k) => ({
    name,
    perQuery: new Map(qids.map((q) => [q, { ...Object.fromEntries(METRICS.map((m) => [m, 0])), ...Object.fromEntries(metrics.map((m) => [m, values.nextDouble() * (0.6 + 0.1 * k)])) } as MetricValues])),
  }));
  const pairs = [["c", "a"], ["a", "b"]] as const;
  const got = compareRuns(runs, qids, { pairs, metrics: [...metrics], swaps: 5_000, seed: 7 }).tests;
  // The authors' loop: one generator, pairs outer, metrics inner, queries in the order given.
  const rng = Pcg64.fromSeed(7);
  const column = (name: string, m: (typeof metrics)[number]) => qids.map((q) => runs.find((r) => r.name === name)!.perQuery.get(q)![m]);
  const want = pairs.flatMap(([x, y]) => metrics.map((m) => pairedRandomizationTest(column(x, m), column(y, m), { rng, swaps: 5_000 }).p));
  assert.deepEqual(
    got.map((t) => [t.a, t.b, t.metric]),
    pairs.flatMap(([x, y]) => metrics.map((m) => [x, y, m])),
  );
  assert.deepEqual(
    got.map((t) => t.p),
    want,
  );
  // Not the per-test seeding of 0.8: the second test continues the first one's stream.
  assert.notDeepEqual(got[1].p, pairedRandomizationTest(column("c", metrics[1]), column("a", metrics[1]), { seed: 7, swaps: 5_000 }).p);
});

test("fillDoubles is nextDouble in bulk, across its chunks, and leaves a spare 32-bit half alone", () => {
  const bulk = Pcg64.fromSeed(11);
  const one = Pcg64.fromSeed(11);
  const first = bulk.nextUint32();
  assert.equal(one.nextUint32(), first);
  const got = bulk.fillDoubles(new Float64Array(70_000));
  for (let i = 0; i < got.length; i++) if (got[i] !== one.nextDouble()) assert.fail(`double ${i}`);
  assert.equal(bulk.nextUint32(), one.nextUint32(), "the spare half survives");
});
