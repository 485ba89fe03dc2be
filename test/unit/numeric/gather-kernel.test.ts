import { test } from "node:test";
import assert from "node:assert/strict";
import { gatherRows, gram, mulDense } from "../../../lib/dense/svd";
import { GatherKernel, gatherKernel, releaseGatherKernel } from "../../../lib/numeric/gather-kernel";
import { Pcg64 } from "../../../lib/numeric/random";

/** A random sparse matrix by rows: `rows` rows of 0..maxLen entries into `xRows` rows of X. */
function randomRows(rng: Pcg64, rows: number, maxLen: number, xRows: number) {
  const starts = new Int32Array(rows + 1);
  for (let r = 0; r < rows; r++) starts[r + 1] = starts[r] + (rng.nextUint32() % (maxLen + 1));
  const n = starts[rows];
  const index = Int32Array.from({ length: n }, () => rng.nextUint32() % xRows);
  // Magnitudes spread over twelve orders, so any change in the order of additions shows in the bits.
  const weight = Float64Array.from({ length: n }, () => (rng.nextDouble() - 0.5) * 10 ** ((rng.nextUint32() % 13) - 6));
  return { starts, index, weight };
}

function randomMatrix(rng: Pcg64, size: number): Float64Array {
  return Float64Array.from({ length: size }, () => (rng.nextDouble() - 0.5) * 10 ** ((rng.nextUint32() % 9) - 4));
}

/** Row by row, entry by entry: the product the kernel computes (its order of additions is pinned by lsi.test.ts). */
type Rows = { starts: Int32Array; index: Int32Array; weight: Float64Array };
function naiveRows({ starts, index, weight }: Rows, X: Float64Array, c: number, from: number, to: number): Float64Array {
  const out = new Float64Array((to - from) * c);
  for (let r = from; r < to; r++) {
    for (let p = starts[r]; p < starts[r + 1]; p++) {
      for (let j = 0; j < c; j++) out[(r - from) * c + j] += weight[p] * X[index[p] * c + j];
    }
  }
  return out;
}

function assertClose(got: Float64Array, want: Float64Array, what: string): void {
  assert.equal(got.length, want.length, what);
  let scale = 0;
  for (const v of want) scale = Math.max(scale, Math.abs(v));
  for (let i = 0; i < want.length; i++) {
    assert.ok(Math.abs(got[i] - want[i]) <= 1e-12 * (1 + scale), `${what} [${i}]: ${got[i]} vs ${want[i]}`);
  }
}

test("the WebAssembly gather kernel computes the sparse product, on random products of every column count", () => {
  const rng = Pcg64.fromSeed(7);
  for (const c of [1, 2, 3, 4, 5, 6, 7, 8, 9, 17, 64, 266]) {
    for (const maxLen of [0, 1, 3, 4, 5, 9, 40]) {
      const rows = 1 + (rng.nextUint32() % 60);
      const xRows = 1 + (rng.nextUint32() % 50);
      const { starts, index, weight } = randomRows(rng, rows, maxLen, xRows);
      const X = randomMatrix(rng, xRows * c);
      const got = new Float64Array(rows * c).fill(Number.NaN); // rows are written, not added to
      gatherRows(starts, index, weight, X, c, got, rows);
      assertClose(got, naiveRows({ starts, index, weight }, X, c, 0, rows), `c=${c} maxLen=${maxLen} rows=${rows}`);
    }
  }
});

test("the gather kernel's chunks (rows longer than a chunk, many rows) and a range of rows give the product", () => {
  const rng = Pcg64.fromSeed(11);
  const c = 3;
  const rows = 700;
  // Rows of up to 400 entries, and two of 70,000 (over the 65,536-entry chunk).
  const { starts, index, weight } = randomRows(rng, rows, 400, 900);
  const long = 70_000;
  const s2 = Int32Array.from(starts, (s, r) => s + (r > 10 ? long : 0) + (r > 500 ? long : 0));
  const idx2 = new Int32Array(s2[rows]);
  const w2 = new Float64Array(s2[rows]);
  for (let r = 0, at = 0; r < rows; r++) {
    const extra = (r === 10 || r === 500 ? long : 0);
    for (let p = starts[r]; p < starts[r + 1]; p++, at++) {
      idx2[at] = index[p];
      w2[at] = weight[p];
    }
    for (let e = 0; e < extra; e++, at++) {
      idx2[at] = rng.nextUint32() % 900;
      w2[at] = rng.nextDouble() - 0.5;
    }
  }
  const X = randomMatrix(rng, 900 * c);
  const all = new Float64Array(rows * c);
  new GatherKernel().rows(s2, idx2, w2, X, c, all, 0, rows);
  assertClose(all, naiveRows({ starts: s2, index: idx2, weight: w2 }, X, c, 0, rows), "all rows");
  // Rows 300..650 only: the rest of the output is left alone.
  const part = new Float64Array(rows * c);
  gatherKernel().rows(s2, idx2, w2, X, c, part, 300, 650);
  const m2 = { starts: s2, index: idx2, weight: w2 };
  assertClose(part.subarray(300 * c, 650 * c), naiveRows(m2, X, c, 300, 650), "rows 300..650");
  assert.ok(part.subarray(0, 300 * c).every((v) => v === 0));
  assert.throws(() => gatherKernel().rows(s2, idx2, w2, X, c, new Float64Array(350 * c), 300, 651), /do not fit/);
});

test("mulDense through the kernel is the plain row-by-column product", () => {
  const rng = Pcg64.fromSeed(3);
  const [m, n, yCols, c] = [7, 5, 6, 4];
  const X = randomMatrix(rng, m * n);
  const Y = randomMatrix(rng, n * yCols);
  const P = mulDense(X, m, n, Y, yCols, c);
  for (let i = 0; i < m; i++) {
    for (let j = 0; j < c; j++) {
      let s = 0;
      for (let k = 0; k < n; k++) s += X[i * n + k] * Y[k * yCols + j];
      assert.ok(Math.abs(P[i * c + j] - s) <= 1e-12 * (1 + Math.abs(s)), `(${i}, ${j}): ${P[i * c + j]} vs ${s}`);
    }
  }
});

test("the Gram kernel sums Xᵀ Y's upper triangle, for X = Y and X ≠ Y, every row remainder", () => {
  const rng = Pcg64.fromSeed(5);
  for (const [m, n] of [[1, 1], [3, 2], [4, 3], [5, 5], [6, 7], [7, 8], [9, 1], [33, 17], [200, 66]]) {
    const X = randomMatrix(rng, m * n);
    const Y = randomMatrix(rng, m * n);
    for (const [A, B, what] of [[X, Y, ""], [X, X, ", X = Y"]] as const) {
      const want = new Float64Array(n * n);
      for (let i = 0; i < n; i++) {
        for (let j = i; j < n; j++) for (let r = 0; r < m; r++) want[i * n + j] += A[r * n + i] * B[r * n + j];
      }
      for (let i = 0; i < n; i++) for (let j = 0; j < i; j++) want[i * n + j] = want[j * n + i];
      assertClose(gram(A, B, m, n), want, `m=${m} n=${n}${what}`);
    }
  }
  const G = gram(Float64Array.of(1, 2, 3, 4), Float64Array.of(5, 6, 7, 8), 2, 2);
  assert.deepEqual([...G], [1 * 5 + 3 * 7, 1 * 6 + 3 * 8, 1 * 6 + 3 * 8, 2 * 6 + 4 * 8]); // upper triangle mirrored
});

test("when the kernel's memory cannot grow, a product or Gram matrix is a clear error", () => {
  const rng = Pcg64.fromSeed(21);
  releaseGatherKernel(); // a fresh kernel, one 64 KiB page of memory
  const kernel = gatherKernel();
  // The memory refuses to grow, as it does past 4 GiB.
  (kernel as unknown as { memory: { grow: () => number } }).memory.grow = () => {
    throw new RangeError("WebAssembly.Memory.grow(): Maximum memory size exceeded");
  };
  try {
    const c = 40;
    const { starts, index, weight } = randomRows(rng, 300, 30, 2000);
    const X = randomMatrix(rng, 2000 * c); // 640 KB: more than the kernel's first 64 KiB page
    assert.equal(kernel.rows(starts, index, weight, X, c, new Float64Array(300 * c), 0, 300), false, "the kernel declines");
    const out = new Float64Array(300 * c);
    assert.throws(() => gatherRows(starts, index, weight, X, c, out, 300), /300 rows × 40 columns does not fit/);
    assert.throws(() => gram(X, randomMatrix(rng, 2000 * c), 2000, c), /Gram matrix of 2000 × 40 does not fit/);
  } finally {
    releaseGatherKernel();
  }
});
