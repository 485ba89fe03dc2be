#!/usr/bin/env node
// Generates lib/numeric/gather-kernel-wasm.ts: the WebAssembly SIMD kernel of LSI's sparse and
// dense products and of the bootstrap's resample means (lib/numeric/gather-kernel.ts). The WAT text
// is produced here, assembled with the `wabt` devDependency and embedded as base64, as
// scripts/build-dot-kernel.js does for the dot kernel. Run `node scripts/build-gather-kernel.js`
// after editing; a test checks the committed file is current.
//
// Kernel 1: gather(starts, nRows, idx, w, X, c, out), every pointer a byte offset in its memory
//   starts  nRows + 1 int32 positions into idx/w: row r's entries are [starts[r], starts[r+1])
//   idx     int32 row numbers of X;  w  float64 weights
//   X       float64 matrix, c per row;  out  nRows × c float64, accumulated into
// For each row r: out[r] += Σ_p w[p] · X[idx[p]], four entries per pass over the output row, in
// exactly the order of the JavaScript kernel it replaces (gatherRow in lib/dense/svd.ts):
//   out[j] + (((w0·x0[j] + w1·x1[j]) + w2·x2[j]) + w3·x3[j])   then, for the last < 4 entries,
//   out[j] + w·x[j]
// with separate multiplications and additions (no fused multiply-add), so every element is
// rounded as it was, and the result is the same to the bit. Two lanes per SIMD operation, two
// vectors per step.
// Kernel 2: gram(X, Y, m, n, G): the upper triangle of G (n × n) += Xᵀ Y for row-major m × n X
// and Y, four rows of X and Y per pass over G, in the order of `gram` in lib/dense/svd.ts
// (G[i][j] + (((x0·y0 + x1·y1) + x2·y2) + x3·y3), then single rows: G[i][j] + x·y).
const { run, writeKernelFile } = require("./wasm-kernel-file");

const get = (name) => `(local.get $${name})`;

/** One output element block of `width` f64 at byte offset $j: four weighted rows. */
function fourTerm(type, load, store, splat) {
  const term = (i) => `(${type}.mul ${splat(i)} (${load} (i32.add ${get(`x${i}`)} ${get("j")})))`;
  const sum = `(${type}.add (${type}.add (${type}.add ${term(0)} ${term(1)}) ${term(2)}) ${term(3)})`;
  return `(${store} (i32.add ${get("o")} ${get("j")}) (${type}.add (${load} (i32.add ${get("o")} ${get("j")})) ${sum}))`;
}

function oneTerm(type, load, store, splat) {
  return `(${store} (i32.add ${get("o")} ${get("j")}) (${type}.add (${load} (i32.add ${get("o")} ${get("j")})) (${type}.mul ${splat} (${load} (i32.add ${get("x0")} ${get("j")})))))`;
}

/** A loop over j (bytes) from its current value while j + step <= limit, running `body` per step. */
function loop(label, step, limit, body) {
  return `(block $${label}_done (loop $${label}
        (br_if $${label}_done (i32.gt_u (i32.add ${get("j")} (i32.const ${step})) ${limit}))
        ${body}
        (local.set $j (i32.add ${get("j")} (i32.const ${step})))
        (br $${label})))`;
}

function wat() {
  const vec = (i) => get(`v${i}`);
  const sc = (i) => get(`w${i}`);
  const four = (offset) => fourTerm("f64x2", "v128.load offset=" + offset, "v128.store offset=" + offset, vec);
  const fourVec = `${four(0)}\n        ${four(16)}`;
  const fourVecTail = four(0);
  const fourScalar = fourTerm("f64", "f64.load", "f64.store", sc);
  const oneVec = (offset) => oneTerm("f64x2", "v128.load offset=" + offset, "v128.store offset=" + offset, vec(0));
  const oneScalar = oneTerm("f64", "f64.load", "f64.store", sc(0));
  const xAddr = (i, p) => `(i32.add ${get("X")} (i32.mul (i32.load (i32.add ${get("idx")} (i32.shl ${p} (i32.const 2)))) ${get("rowBytes")}))`;
  const wLoad = (p) => `(f64.load (i32.add ${get("w")} (i32.shl ${p} (i32.const 3))))`;
  const pPlus = (i) => `(i32.add ${get("p")} (i32.const ${i}))`;
  const setFour = [0, 1, 2, 3]
    .map((i) => `(local.set $w${i} ${wLoad(pPlus(i))}) (local.set $v${i} (f64x2.splat ${sc(i)})) (local.set $x${i} ${xAddr(i, pPlus(i))})`)
    .join("\n      ");
  const setOne = `(local.set $w0 ${wLoad(get("p"))}) (local.set $v0 (f64x2.splat ${sc(0)})) (local.set $x0 ${xAddr(0, get("p"))})`;
  return `(module
  (memory (export "memory") 1)
  (func (export "gather") (param $starts i32) (param $nRows i32) (param $idx i32) (param $w i32) (param $X i32) (param $c i32) (param $out i32)
    (local $r i32) (local $p i32) (local $end i32) (local $o i32) (local $j i32)
    (local $rowBytes i32) (local $pairBytes i32) (local $quadBytes i32)
    (local $x0 i32) (local $x1 i32) (local $x2 i32) (local $x3 i32)
    (local $w0 f64) (local $w1 f64) (local $w2 f64) (local $w3 f64)
    (local $v0 v128) (local $v1 v128) (local $v2 v128) (local $v3 v128)
    (local.set $rowBytes (i32.shl ${get("c")} (i32.const 3)))
    ;; bytes covered by whole pairs of columns, and by whole groups of four
    (local.set $pairBytes (i32.shl (i32.shr_u ${get("c")} (i32.const 1)) (i32.const 4)))
    (local.set $quadBytes (i32.shl (i32.shr_u ${get("c")} (i32.const 2)) (i32.const 5)))
    (local.set $r (i32.const 0))
    (block $rows_done (loop $rows
      (br_if $rows_done (i32.ge_u ${get("r")} ${get("nRows")}))
      (local.set $o (i32.add ${get("out")} (i32.mul ${get("r")} ${get("rowBytes")})))
      (local.set $p (i32.load (i32.add ${get("starts")} (i32.shl ${get("r")} (i32.const 2)))))
      (local.set $end (i32.load (i32.add ${get("starts")} (i32.shl (i32.add ${get("r")} (i32.const 1)) (i32.const 2)))))
      (block $fours_done (loop $fours
        (br_if $fours_done (i32.ge_s (i32.add ${get("p")} (i32.const 3)) ${get("end")}))
        ${setFour}
        (local.set $j (i32.const 0))
        ${loop("f4v2", 32, get("quadBytes"), fourVec)}
        ${loop("f4v1", 16, get("pairBytes"), fourVecTail)}
        ${loop("f4s", 8, get("rowBytes"), fourScalar)}
        (local.set $p (i32.add ${get("p")} (i32.const 4)))
        (br $fours)))
      (block $ones_done (loop $ones
        (br_if $ones_done (i32.ge_s ${get("p")} ${get("end")}))
        ${setOne}
        (local.set $j (i32.const 0))
        ${loop("f1v2", 32, get("quadBytes"), `${oneVec(0)}\n        ${oneVec(16)}`)}
        ${loop("f1v1", 16, get("pairBytes"), oneVec(0))}
        ${loop("f1s", 8, get("rowBytes"), oneScalar)}
        (local.set $p (i32.add ${get("p")} (i32.const 1)))
        (br $ones)))
      (local.set $r (i32.add ${get("r")} (i32.const 1)))
      (br $rows))))
  (func (export "gram") (param $X i32) (param $Y i32) (param $m i32) (param $n i32) (param $G i32)
    (local $r i32) (local $i i32) (local $o i32) (local $j i32) (local $rowBytes i32) (local $xr i32)
    (local $x0 i32) (local $x1 i32) (local $x2 i32) (local $x3 i32)
    (local $w0 f64) (local $w1 f64) (local $w2 f64) (local $w3 f64)
    (local $v0 v128) (local $v1 v128) (local $v2 v128) (local $v3 v128)
    (local.set $rowBytes (i32.shl ${get("n")} (i32.const 3)))
    (local.set $r (i32.const 0))
    (block $groups_done (loop $groups
      (br_if $groups_done (i32.ge_s (i32.add ${get("r")} (i32.const 3)) ${get("m")}))
      ${[0, 1, 2, 3].map((k) => `(local.set $x${k} (i32.add ${get("Y")} (i32.mul (i32.add ${get("r")} (i32.const ${k})) ${get("rowBytes")})))`).join("\n      ")}
      (local.set $xr (i32.add ${get("X")} (i32.mul ${get("r")} ${get("rowBytes")})))
      (local.set $i (i32.const 0))
      (block $cols_done (loop $cols
        (br_if $cols_done (i32.ge_u ${get("i")} ${get("n")}))
        ${[0, 1, 2, 3].map((k) => `(local.set $w${k} (f64.load (i32.add (i32.add ${get("xr")} (i32.mul (i32.const ${k}) ${get("rowBytes")})) (i32.shl ${get("i")} (i32.const 3))))) (local.set $v${k} (f64x2.splat ${sc(k)}))`).join("\n        ")}
        (local.set $o (i32.add ${get("G")} (i32.mul ${get("i")} ${get("rowBytes")})))
        (local.set $j (i32.shl ${get("i")} (i32.const 3)))
        ${loop("g4v2", 32, get("rowBytes"), fourVec)}
        ${loop("g4v1", 16, get("rowBytes"), fourVecTail)}
        ${loop("g4s", 8, get("rowBytes"), fourScalar)}
        (local.set $i (i32.add ${get("i")} (i32.const 1)))
        (br $cols)))
      (local.set $r (i32.add ${get("r")} (i32.const 4)))
      (br $groups)))
    (block $singles_done (loop $singles
      (br_if $singles_done (i32.ge_s ${get("r")} ${get("m")}))
      (local.set $x0 (i32.add ${get("Y")} (i32.mul ${get("r")} ${get("rowBytes")})))
      (local.set $xr (i32.add ${get("X")} (i32.mul ${get("r")} ${get("rowBytes")})))
      (local.set $i (i32.const 0))
      (block $scols_done (loop $scols
        (br_if $scols_done (i32.ge_u ${get("i")} ${get("n")}))
        (local.set $w0 (f64.load (i32.add ${get("xr")} (i32.shl ${get("i")} (i32.const 3))))) (local.set $v0 (f64x2.splat ${sc(0)}))
        (local.set $o (i32.add ${get("G")} (i32.mul ${get("i")} ${get("rowBytes")})))
        (local.set $j (i32.shl ${get("i")} (i32.const 3)))
        ${loop("g1v2", 32, get("rowBytes"), `${oneVec(0)}\n        ${oneVec(16)}`)}
        ${loop("g1v1", 16, get("rowBytes"), oneVec(0))}
        ${loop("g1s", 8, get("rowBytes"), oneScalar)}
        (local.set $i (i32.add ${get("i")} (i32.const 1)))
        (br $scols)))
      (local.set $r (i32.add ${get("r")} (i32.const 1)))
      (br $singles))))
)
`;
}

run(() =>
  writeKernelFile({
    script: "build-gather-kernel.js",
    wat: wat(),
    file: "gather-kernel-wasm.ts",
    dir: "numeric",
    constant: "GATHER_KERNEL_WASM_BASE64",
    summary: "WebAssembly SIMD kernels: out[r] += Σ w[p] · X[idx[p]] over each row's entries, and the\nupper triangle of a Gram product Xᵀ Y; float64.",
  }),
);
