#!/usr/bin/env node
// Generates lib/dense/dot-kernel-wasm.ts: a WebAssembly SIMD kernel for blocks of dot products,
// used by exact dense search. The WAT text is produced here (register blocking unrolled by the
// template), assembled with the `wabt` devDependency, and embedded as base64 so the runtime needs
// neither wabt nor a build step. Run `node scripts/build-dot-kernel.js` after editing; a test
// rebuilds it and checks the committed file is current.
//
// Kernel: dots(docs, nDocs, queries, dim, out, stride)
//   docs    byte offset of nDocs rows of `dim` float32 (dim a multiple of 4)
//   queries byte offset of 4 rows of `dim` float32
//   out     byte offset of the score matrix; score(q, d) goes to out + 4 * (q * stride + d)
// Micro-kernel: 3 documents x 4 queries per pass (12 SIMD accumulators), so every loaded
// document chunk is used 4 times and every query chunk 3 times.
const { run, writeKernelFile } = require("./wasm-kernel-file");

const DOCS = 3;
const QUERIES = 4;

function microKernel(nDocs) {
  const acc = [];
  for (let i = 0; i < nDocs; i++) for (let j = 0; j < QUERIES; j++) acc.push(`$a${i}${j}`);
  const lines = [];
  for (const a of acc) lines.push(`(local.set ${a} (v128.const i32x4 0 0 0 0))`);
  lines.push(`(local.set $k (i32.const 0))`);
  lines.push(`(block $kdone${nDocs} (loop $kloop${nDocs}`);
  lines.push(`  (br_if $kdone${nDocs} (i32.ge_u (local.get $k) (local.get $rowBytes)))`);
  for (let i = 0; i < nDocs; i++) lines.push(`  (local.set $x${i} (v128.load (i32.add (local.get $pd${i}) (local.get $k))))`);
  for (let j = 0; j < QUERIES; j++) {
    lines.push(`  (local.set $y (v128.load (i32.add (local.get $pq${j}) (local.get $k))))`);
    for (let i = 0; i < nDocs; i++) lines.push(`  (local.set $a${i}${j} (f32x4.add (local.get $a${i}${j}) (f32x4.mul (local.get $x${i}) (local.get $y))))`);
  }
  lines.push(`  (local.set $k (i32.add (local.get $k) (i32.const 16)))`);
  lines.push(`  (br $kloop${nDocs})))`);
  for (let i = 0; i < nDocs; i++) {
    for (let j = 0; j < QUERIES; j++) {
      const a = `$a${i}${j}`;
      const sum = `(f32.add (f32.add (f32x4.extract_lane 0 (local.get ${a})) (f32x4.extract_lane 1 (local.get ${a}))) (f32.add (f32x4.extract_lane 2 (local.get ${a})) (f32x4.extract_lane 3 (local.get ${a}))))`;
      const addr = `(i32.add (local.get $out) (i32.shl (i32.add (i32.mul (i32.const ${j}) (local.get $stride)) (i32.add (local.get $d) (i32.const ${i}))) (i32.const 2)))`;
      lines.push(`(f32.store ${addr} ${sum})`);
    }
  }
  return lines.join("\n      ");
}

function wat() {
  const locals = [];
  for (let i = 0; i < DOCS; i++) for (let j = 0; j < QUERIES; j++) locals.push(`(local $a${i}${j} v128)`);
  for (let i = 0; i < DOCS; i++) locals.push(`(local $x${i} v128)`, `(local $pd${i} i32)`);
  for (let j = 0; j < QUERIES; j++) locals.push(`(local $pq${j} i32)`);
  const setQueries = [];
  for (let j = 0; j < QUERIES; j++) setQueries.push(`(local.set $pq${j} (i32.add (local.get $queries) (i32.mul (i32.const ${j}) (local.get $rowBytes))))`);
  const setDocs = (n) => {
    const out = [`(local.set $pd0 (i32.add (local.get $docs) (i32.mul (local.get $d) (local.get $rowBytes))))`];
    for (let i = 1; i < n; i++) out.push(`(local.set $pd${i} (i32.add (local.get $pd${i - 1}) (local.get $rowBytes)))`);
    return out.join("\n      ");
  };
  return `(module
  (memory (export "memory") 1)
  (func (export "dots") (param $docs i32) (param $nd i32) (param $queries i32) (param $dim i32) (param $out i32) (param $stride i32)
    (local $d i32) (local $k i32) (local $rowBytes i32) (local $y v128)
    ${locals.join(" ")}
    (local.set $rowBytes (i32.shl (local.get $dim) (i32.const 2)))
    ${setQueries.join("\n    ")}
    (local.set $d (i32.const 0))
    (block $done (loop $blocks
      (br_if $done (i32.gt_s (i32.add (local.get $d) (i32.const ${DOCS})) (local.get $nd)))
      ${setDocs(DOCS)}
      ${microKernel(DOCS)}
      (local.set $d (i32.add (local.get $d) (i32.const ${DOCS})))
      (br $blocks)))
    (block $rdone (loop $rest
      (br_if $rdone (i32.ge_s (local.get $d) (local.get $nd)))
      ${setDocs(1)}
      ${microKernel(1)}
      (local.set $d (i32.add (local.get $d) (i32.const 1)))
      (br $rest))))
)
`;
}

run(() =>
  writeKernelFile({
    script: "build-dot-kernel.js",
    wat: wat(),
    file: "dot-kernel-wasm.ts",
    constant: "DOT_KERNEL_WASM_BASE64",
    summary: "WebAssembly SIMD kernel: blocks of 3 documents x 4 queries of float32 dot products.",
  }),
);
