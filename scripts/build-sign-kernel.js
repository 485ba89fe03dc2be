#!/usr/bin/env node
// Generates lib/numeric/sign-kernel-wasm.ts: numpy's PCG64 stream as the sign flips of
// `rng.choice([-1, 1], size=(flips, n))`, packed for the randomization test (lib/eval/randomization.ts), and as
// `random()` doubles in bulk (doubles(out, count): (output >> 11) × 2^-53, f64 from `out`; no spare half is used).
// Run `node scripts/build-sign-kernel.js` after editing; a test checks the committed file is current.
//
// signs(out, flips, n): the generator state is at byte 0 (state low, state high, inc low, inc high:
// four i64), at byte 32 whether a spare 32-bit half is held (i32 0 or 1) and at byte 36 that half. For each flip,
// n draws of 32 bits (the low half of a 64-bit output, then its high half), each giving the sign
// by its top bit (1: +1, 0: -1); the flip's "negate" bits go 8 queries to a byte, query j of a
// block at bit j, ceil(n / 8) bytes per flip from `out`. The state and spare are written back.
// PCG64: state = state × 0x2360ED051FC65DA44385DF649FCCF645 + inc (mod 2^128), then XSL-RR of
// the new state: (high ^ low) rotated right by the state's top 6 bits.
const { run, writeKernelFile } = require("./wasm-kernel-file");

const ML = "0x4385DF649FCCF645";
const MH = "0x2360ED051FC65DA4";
const B0 = "0x9FCCF645";
const B1 = "0x4385DF64";
const MASK = "0xFFFFFFFF";

// One PCG64 draw: the state steps, and $o is the XSL-RR output of the new state.
const STEP = `            ;; the 128-bit step: low 64 bits of state × M, and its high 64 bits
            (local.set $p (i64.mul (local.get $sl) (i64.const ${ML})))
            (local.set $a0 (i64.and (local.get $sl) (i64.const ${MASK})))
            (local.set $a1 (i64.shr_u (local.get $sl) (i64.const 32)))
            (local.set $t (i64.mul (local.get $a0) (i64.const ${B0})))
            (local.set $k (i64.shr_u (local.get $t) (i64.const 32)))
            (local.set $t (i64.add (i64.mul (local.get $a1) (i64.const ${B0})) (local.get $k)))
            (local.set $w1 (i64.and (local.get $t) (i64.const ${MASK})))
            (local.set $w2 (i64.shr_u (local.get $t) (i64.const 32)))
            (local.set $t (i64.add (i64.mul (local.get $a0) (i64.const ${B1})) (local.get $w1)))
            (local.set $k (i64.shr_u (local.get $t) (i64.const 32)))
            (local.set $sh
              (i64.add
                (i64.add
                  (i64.add (i64.mul (local.get $a1) (i64.const ${B1})) (i64.add (local.get $w2) (local.get $k)))
                  (i64.add (i64.mul (local.get $sl) (i64.const ${MH})) (i64.mul (local.get $sh) (i64.const ${ML}))))
                (local.get $ih)))
            (local.set $sl (i64.add (local.get $p) (local.get $il)))
            (local.set $sh (i64.add (local.get $sh) (i64.extend_i32_u (i64.lt_u (local.get $sl) (local.get $p)))))
            (local.set $o (i64.rotr (i64.xor (local.get $sh) (local.get $sl)) (i64.shr_u (local.get $sh) (i64.const 58))))`;

const wat = `(module
  (memory (export "memory") 1)
  (func (export "signs") (param $out i32) (param $flips i32) (param $n i32)
    (local $sl i64) (local $sh i64) (local $il i64) (local $ih i64) (local $has i32) (local $spare i32)
    (local $f i32) (local $i i32) (local $acc i32) (local $bit i32)
    (local $p i64) (local $a0 i64) (local $a1 i64) (local $t i64) (local $k i64) (local $w1 i64) (local $w2 i64) (local $o i64)
    (local.set $sl (i64.load (i32.const 0)))
    (local.set $sh (i64.load (i32.const 8)))
    (local.set $il (i64.load (i32.const 16)))
    (local.set $ih (i64.load (i32.const 24)))
    (local.set $has (i32.load (i32.const 32)))
    (local.set $spare (i32.load (i32.const 36)))
    (local.set $f (i32.const 0))
    (block $fdone (loop $floop
      (br_if $fdone (i32.ge_u (local.get $f) (local.get $flips)))
      (local.set $i (i32.const 0))
      (local.set $acc (i32.const 0))
      (block $idone (loop $iloop
        (br_if $idone (i32.ge_u (local.get $i) (local.get $n)))
        (if (local.get $has)
          (then
            (local.set $bit (i32.shr_u (local.get $spare) (i32.const 31)))
            (local.set $has (i32.const 0)))
          (else
${STEP}            (local.set $bit (i32.wrap_i64 (i64.and (i64.shr_u (local.get $o) (i64.const 31)) (i64.const 1))))
            (local.set $spare (i32.wrap_i64 (i64.shr_u (local.get $o) (i64.const 32))))
            (local.set $has (i32.const 1))))
        (local.set $acc (i32.or (local.get $acc) (i32.shl (i32.xor (local.get $bit) (i32.const 1)) (i32.and (local.get $i) (i32.const 7)))))
        (if (i32.eq (i32.and (local.get $i) (i32.const 7)) (i32.const 7))
          (then
            (i32.store8 (local.get $out) (local.get $acc))
            (local.set $out (i32.add (local.get $out) (i32.const 1)))
            (local.set $acc (i32.const 0))))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $iloop)))
      (if (i32.and (local.get $n) (i32.const 7))
        (then
          (i32.store8 (local.get $out) (local.get $acc))
          (local.set $out (i32.add (local.get $out) (i32.const 1)))))
      (local.set $f (i32.add (local.get $f) (i32.const 1)))
      (br $floop)))
    (i64.store (i32.const 0) (local.get $sl))
    (i64.store (i32.const 8) (local.get $sh))
    (i32.store (i32.const 32) (local.get $has))
    (i32.store (i32.const 36) (local.get $spare)))
  (func (export "doubles") (param $out i32) (param $count i32)
    (local $sl i64) (local $sh i64) (local $il i64) (local $ih i64) (local $end i32)
    (local $p i64) (local $a0 i64) (local $a1 i64) (local $t i64) (local $k i64) (local $w1 i64) (local $w2 i64) (local $o i64)
    (local.set $sl (i64.load (i32.const 0)))
    (local.set $sh (i64.load (i32.const 8)))
    (local.set $il (i64.load (i32.const 16)))
    (local.set $ih (i64.load (i32.const 24)))
    (local.set $end (i32.add (local.get $out) (i32.shl (local.get $count) (i32.const 3))))
    (block $done (loop $next
      (br_if $done (i32.ge_u (local.get $out) (local.get $end)))
${STEP}
      (f64.store (local.get $out) (f64.mul (f64.convert_i64_u (i64.shr_u (local.get $o) (i64.const 11))) (f64.const 0x1p-53)))
      (local.set $out (i32.add (local.get $out) (i32.const 8)))
      (br $next)))
    (i64.store (i32.const 0) (local.get $sl))
    (i64.store (i32.const 8) (local.get $sh)))
)
`;

run(() =>
  writeKernelFile({
    script: "build-sign-kernel.js",
    wat,
    file: "sign-kernel-wasm.ts",
    dir: "numeric",
    constant: "SIGN_KERNEL_WASM_BASE64",
    summary: "numpy's PCG64 stream as packed sign flips of choice([-1, 1], size=(flips, n)), and as random() doubles.",
  }),
);
