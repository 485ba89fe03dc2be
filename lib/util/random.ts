/** The one seeded generator (LSI, tuning folds, significance tests): a seed means one stream everywhere. */

/**
 * xoshiro128** 1.1 (Blackman & Vigna, 2018), seeded through SplitMix32; 32-bit integer ops only. Not cryptographic,
 * not numpy's: p-values agree with a Python implementation within Monte-Carlo error, not digit for digit.
 */
export class Xoshiro128ss {
  /** The four state words, kept as int32 so every step stays in V8's small-integer fast path. */
  readonly state: Int32Array;

  constructor(state: ArrayLike<number>) {
    if (state.length !== 4) throw new RangeError("xoshiro128** needs exactly 4 state words");
    this.state = Int32Array.from(state, (x) => x | 0);
    if ((this.state[0] | this.state[1] | this.state[2] | this.state[3]) === 0) throw new RangeError("xoshiro128** state must not be all zero");
  }

  /** A generator seeded from an integer (taken modulo 2^32). */
  static fromSeed(seed: number): Xoshiro128ss {
    return new Xoshiro128ss(seedState(seed));
  }

  /** The next 32 random bits as an unsigned integer. */
  nextUint32(): number {
    const s = this.state;
    const s0 = s[0];
    const s1 = s[1];
    const r = rotl(Math.imul(s1, 5), 7);
    const out = Math.imul(r, 9) >>> 0;
    const t = s1 << 9;
    const s2 = s[2] ^ s0;
    const s3 = s[3] ^ s1;
    s[1] = s1 ^ s2;
    s[0] = s0 ^ s3;
    s[2] = s2 ^ t;
    s[3] = rotl(s3, 11);
    return out;
  }

  /** A uniform number in [0, 1) with 32 random bits (plenty for resampling indices). */
  nextFloat(): number {
    return this.nextUint32() / 4294967296;
  }
}

/** 32-bit rotate left (inlined by hot loops that cannot afford a call). */
export function rotl(x: number, k: number): number {
  return (x << k) | (x >>> (32 - k));
}

/** Four SplitMix32 outputs from a seed: the initial state, four distinct words, never all zero. */
export function seedState(seed: number): Int32Array {
  if (!Number.isInteger(seed)) throw new RangeError(`seed must be an integer, got ${seed}`);
  // Fold the bits above 2^32 in too, so large seeds (e.g. Date.now()) do not collide trivially.
  let x = (seed % 4294967296) ^ Math.floor(seed / 4294967296);
  const out = new Int32Array(4);
  for (let i = 0; i < 4; i++) {
    x = (x + 0x9e3779b9) | 0;
    let z = x;
    z = Math.imul(z ^ (z >>> 16), 0x21f0aaad);
    z = Math.imul(z ^ (z >>> 15), 0x735a2d97);
    out[i] = z ^ (z >>> 15);
  }
  return out;
}
