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

const bits = (a: Float64Array) => Buffer.from(a.buffer, a.byteOffset, a.byteLength).toString("hex");

test("the WebAssembly gather kernel equals the JavaScript one to the bit, on random products of every column count", () => {
  const rng = Pcg64.fromSeed(7);
  for (const c of [1, 2, 3, 4, 5, 6, 7, 8, 9, 17, 64, 266]) {
    for (const maxLen of [0, 1, 3, 4, 5, 9, 40]) {
      const rows = 1 + (rng.nextUint32() % 60);
      const xRows = 1 + (rng.nextUint32() % 50);
      const { starts, index, weight } = randomRows(rng, rows, maxLen, xRows);
      const X = randomMatrix(rng, xRows * c);
      const js = new Float64Array(rows * c);
      const wasm = new Float64Array(rows * c).fill(Number.NaN); // rows are written, not added to
      gatherRows(starts, index, weight, X, c, js, 0, rows, 0, "js");
      gatherRows(starts, index, weight, X, c, wasm, 0, rows, 0, "wasm");
      assert.equal(bits(wasm), bits(js), `c=${c} maxLen=${maxLen} rows=${rows}`);
    }
  }
});

test("the gather kernel's chunks (rows longer than a chunk, many rows) and a share of rows at an offset give the same bits", () => {
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
  const js = new Float64Array(rows * c);
  gatherRows(s2, idx2, w2, X, c, js, 0, rows, 0, "js");
  const wasm = new Float64Array(rows * c);
  new GatherKernel().rows(s2, idx2, w2, X, c, wasm, 0, rows);
  assert.equal(bits(wasm), bits(js));
  // Rows 300..650 written from the start of a smaller output (base 300), as a worker's share is.
  const share = new Float64Array(350 * c);
  gatherRows(s2, idx2, w2, X, c, share, 300, 650, 300, "wasm");
  assert.equal(bits(share), bits(js.subarray(300 * c, 650 * c)));
  assert.throws(() => gatherRows(s2, idx2, w2, X, c, share, 300, 651, 300, "wasm"), /do not fit/);
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

test("the WebAssembly Gram kernel equals the JavaScript one to the bit, for X = Y and X ≠ Y, every row remainder", () => {
  const rng = Pcg64.fromSeed(5);
  for (const [m, n] of [[1, 1], [3, 2], [4, 3], [5, 5], [6, 7], [7, 8], [9, 1], [33, 17], [200, 66]]) {
    const X = randomMatrix(rng, m * n);
    const Y = randomMatrix(rng, m * n);
    assert.equal(bits(gram(X, Y, m, n, "wasm")), bits(gram(X, Y, m, n, "js")), `m=${m} n=${n}`);
    assert.equal(bits(gram(X, X, m, n, "wasm")), bits(gram(X, X, m, n, "js")), `m=${m} n=${n}, X = Y`);
  }
  const G = gram(Float64Array.of(1, 2, 3, 4), Float64Array.of(5, 6, 7, 8), 2, 2);
  assert.deepEqual([...G], [1 * 5 + 3 * 7, 1 * 6 + 3 * 8, 1 * 6 + 3 * 8, 2 * 6 + 4 * 8]); // upper triangle mirrored
});

test("when the kernel's memory cannot grow, products and Gram matrices are computed in JavaScript, the same bits", () => {
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
    const expected = new Float64Array(300 * c);
    gatherRows(starts, index, weight, X, c, expected, 0, 300, 0, "js");
    assert.equal(kernel.rows(starts, index, weight, X, c, new Float64Array(300 * c), 0, 300), false, "the kernel declines");
    const got = new Float64Array(300 * c);
    gatherRows(starts, index, weight, X, c, got, 0, 300);
    assert.equal(bits(got), bits(expected));
    const Y = randomMatrix(rng, 2000 * c);
    assert.equal(kernel.gramUpper(X, Y, 2000, c), undefined);
    assert.equal(bits(gram(X, Y, 2000, c)), bits(gram(X, Y, 2000, c, "js")));
    assert.equal(kernel.xArea(1 << 20), undefined);
  } finally {
    releaseGatherKernel();
  }
});
