import { test } from "node:test";
import assert from "node:assert/strict";
import { formatFixed } from "../../../lib/util/format-fixed";

// fast-check ships as ESM with a CommonJS build; require() picks the CommonJS one under tsx.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const fc: typeof import("fast-check") = require("fast-check");

/**
 * Reference: the exact decimal value of the double (m · 2^e, taken from its bits with BigInt),
 * rounded to `digits` decimals half to even, as C's printf("%.*f") does.
 */
function referenceFixed(x: number, digits: number): string {
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat64(0, x);
  const bits = view.getBigUint64(0);
  const negative = bits >> 63n === 1n;
  const biasedExp = Number((bits >> 52n) & 0x7ffn);
  const fraction = bits & ((1n << 52n) - 1n);
  if (biasedExp === 0x7ff) throw new Error("reference does not handle NaN or infinities");
  // value = mant · 2^exp exactly
  const mant = biasedExp === 0 ? fraction : fraction | (1n << 52n);
  const exp = biasedExp === 0 ? -1074 : biasedExp - 1075;
  const scale = 10n ** BigInt(digits);
  let q: bigint;
  if (exp >= 0) {
    q = (mant << BigInt(exp)) * scale;
  } else {
    const num = mant * scale;
    const den = 1n << BigInt(-exp);
    q = num / den;
    const twiceRem = 2n * (num % den);
    if (twiceRem > den || (twiceRem === den && q % 2n === 1n)) q += 1n;
  }
  let s = q.toString();
  if (digits > 0) {
    s = s.padStart(digits + 1, "0");
    s = `${s.slice(0, s.length - digits)}.${s.slice(s.length - digits)}`;
  }
  return (negative ? "-" : "") + s;
}

/** True when x lies exactly halfway between two numbers with `digits` decimals. */
function isExactTie(x: number, digits: number): boolean {
  // x·10^d = k + 1/2 exactly  <=>  2·x·10^d is an odd integer; check with the exact expansion.
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat64(0, Math.abs(x));
  const bits = view.getBigUint64(0);
  const biasedExp = Number((bits >> 52n) & 0x7ffn);
  const fraction = bits & ((1n << 52n) - 1n);
  const mant = biasedExp === 0 ? fraction : fraction | (1n << 52n);
  const exp = biasedExp === 0 ? -1074 : biasedExp - 1075;
  const num = 2n * mant * 10n ** BigInt(digits);
  if (exp >= 0) return false; // 2·integer·10^d is even
  const den = 1n << BigInt(-exp);
  return num % den === 0n && (num / den) % 2n === 1n;
}

test("reference implementation sanity", () => {
  assert.equal(referenceFixed(0.03125, 4), "0.0312");
  assert.equal(referenceFixed(0.03135, 4), "0.0314");
  assert.equal(referenceFixed(2.5, 0), "2");
  assert.equal(referenceFixed(1, 4), "1.0000");
  assert.equal(referenceFixed(-0.09375, 4), "-0.0938");
  assert.equal(isExactTie(0.03125, 4), true);
  assert.equal(isExactTie(0.03135, 4), false);
  assert.equal(isExactTie(0.5, 0), true);
  assert.equal(isExactTie(0.25, 4), false);
});

test("exact ties round half to even (printf / Python), unlike toFixed", () => {
  assert.equal((0.03125).toFixed(4), "0.0313", "premise: toFixed rounds ties away from zero");
  assert.equal(formatFixed(0.03125, 4), "0.0312");
  assert.equal(formatFixed(0.09375, 4), "0.0938"); // last kept digit 7 is odd: rounds up
  assert.equal(formatFixed(0.15625, 4), "0.1562");
  assert.equal(formatFixed(0.5, 0), "0");
  assert.equal(formatFixed(1.5, 0), "2");
  assert.equal(formatFixed(2.5, 0), "2");
  assert.equal(formatFixed(3.5, 0), "4");
  assert.equal(formatFixed(0.125, 2), "0.12");
  assert.equal(formatFixed(0.375, 2), "0.38");
  assert.equal(formatFixed(0.25, 1), "0.2");
  assert.equal(formatFixed(0.75, 1), "0.8");
});

test("0.03135 is not a tie in binary and rounds up", () => {
  assert.equal(formatFixed(0.03135, 4), "0.0314");
});

test("negative ties round half to even with the sign kept", () => {
  assert.equal(formatFixed(-0.03125, 4), "-0.0312");
  assert.equal(formatFixed(-0.09375, 4), "-0.0938");
  assert.equal(formatFixed(-2.5, 0), "-2");
  assert.equal(formatFixed(-1.5, 0), "-2");
  assert.equal(formatFixed(-0.5, 0), "-0"); // printf("%.0f", -0.5) prints "-0"
});

test("default digits is 4 and integers get trailing zeros", () => {
  assert.equal(formatFixed(1, 4), "1.0000");
  assert.equal(formatFixed(1), "1.0000");
  assert.equal(formatFixed(0), "0.0000");
  assert.equal(formatFixed(0.5), "0.5000");
});

test("non-finite values print as String(x)", () => {
  assert.equal(formatFixed(NaN), "NaN");
  assert.equal(formatFixed(Infinity), "Infinity");
  assert.equal(formatFixed(-Infinity), "-Infinity");
});

test("values that are not ties match toFixed", () => {
  const values = [0.8586572438162544, 0.702508620450043, 0.6309297535714575, 1 / 3, 2 / 3, 0.1, 0.2, 0.3, 0.00005, 0.99995, 0.123456789, 0.03135, 1.005, 0.7240, 0.33333];
  for (const x of values) {
    for (const d of [0, 1, 2, 3, 4, 6]) {
      assert.equal(isExactTie(x, d), false, `${x} at ${d} digits is not a tie`);
      assert.equal(formatFixed(x, d), x.toFixed(d), `formatFixed(${x}, ${d})`);
      assert.equal(formatFixed(-x, d), (-x).toFixed(d), `formatFixed(${-x}, ${d})`);
    }
  }
});

test("property: random doubles in [0,1] match the exact half-even reference (4 digits)", () => {
  fc.assert(
    fc.property(fc.double({ min: 0, max: 1, noNaN: true }), (x) => {
      const got = formatFixed(x, 4);
      assert.equal(got, referenceFixed(x, 4), `formatFixed(${x}, 4)`);
      if (!isExactTie(x, 4)) assert.equal(got, x.toFixed(4), `toFixed agreement for ${x}`);
    }),
    { numRuns: 20000 },
  );
});

test("property: random doubles and digit counts 0..12 match the reference, both signs", () => {
  fc.assert(
    fc.property(
      fc.double({ min: -1000, max: 1000, noNaN: true }).filter((x) => !Object.is(x, -0)),
      fc.integer({ min: 0, max: 12 }),
      (x, d) => {
        assert.equal(formatFixed(x, d), referenceFixed(x, d), `formatFixed(${x}, ${d})`);
      },
    ),
    { numRuns: 20000 },
  );
});

test("property: every exact tie (2m+1)/2^(d+1) at d digits rounds half to even", () => {
  // x·10^d = (2m+1)·5^d / 2 is a half-integer, so these are exact ties at d digits.
  fc.assert(
    fc.property(fc.integer({ min: 0, max: 8 }), fc.integer({ min: 0, max: 2 ** 20 }), fc.boolean(), (d, m, neg) => {
      const x = ((neg ? -1 : 1) * (2 * m + 1)) / 2 ** (d + 1);
      assert.equal(isExactTie(x, d), true);
      assert.equal(formatFixed(x, d), referenceFixed(x, d), `formatFixed(${x}, ${d})`);
    }),
    { numRuns: 5000 },
  );
});

test("all 4-digit ties in [0,1] are the odd multiples of 1/32", () => {
  for (let m = 0; m < 16; m++) {
    const x = (2 * m + 1) / 32;
    assert.equal(isExactTie(x, 4), true);
    assert.equal(formatFixed(x, 4), referenceFixed(x, 4), `formatFixed(${x}, 4)`);
  }
});
