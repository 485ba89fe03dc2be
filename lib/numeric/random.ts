/** numpy's `default_rng(seed)`: PCG64 (XSL-RR 128/64) seeded through SeedSequence, so a seed gives numpy's stream. */

import { ensureWasmBytes, wasmKernel, type WasmMemory } from "./wasm";
import { SIGN_KERNEL_WASM_BASE64 } from "./sign-kernel-wasm";

const MASK32 = 0xffffffffn;

// SeedSequence's hash constants (numpy/random/bit_generator.pyx).
const INIT_A = 0x43b0d7e5;
const MULT_A = 0x931e8875;
const INIT_B = 0x8b51f9dd;
const MULT_B = 0x58f38ded;
const MIX_MULT_L = 0xca01f9dd;
const MIX_MULT_R = 0x4973f715;
const POOL_SIZE = 4;

/** The 32-bit words of a non-negative integer, least significant first ([0] for 0), as SeedSequence reads a seed. */
function seedWords(seed: number | bigint): number[] {
  if (typeof seed === "number" && !Number.isSafeInteger(seed)) throw new RangeError(`seed must be a safe integer, got ${seed}`);
  if (seed < 0) throw new RangeError(`seed must be non-negative, got ${seed}`);
  const words: number[] = [];
  for (let x = BigInt(seed); x > 0n || words.length === 0; x >>= 32n) words.push(Number(x & MASK32));
  return words;
}

/** SeedSequence(seed).generate_state(n32) as 32-bit words (no spawn key, pool of 4). */
function seedSequenceState(seed: number | bigint, n32: number): Uint32Array {
  const entropy = seedWords(seed);
  let hashConst = INIT_A;
  const hashmix = (value: number): number => {
    value = (value ^ hashConst) >>> 0;
    hashConst = Math.imul(hashConst, MULT_A) >>> 0;
    value = Math.imul(value, hashConst) >>> 0;
    return (value ^ (value >>> 16)) >>> 0;
  };
  const mix = (x: number, y: number): number => {
    const r = (Math.imul(MIX_MULT_L, x) - Math.imul(MIX_MULT_R, y)) >>> 0;
    return (r ^ (r >>> 16)) >>> 0;
  };
  const pool = new Uint32Array(POOL_SIZE);
  for (let i = 0; i < POOL_SIZE; i++) pool[i] = hashmix(i < entropy.length ? entropy[i] : 0);
  for (let src = 0; src < POOL_SIZE; src++) {
    for (let dst = 0; dst < POOL_SIZE; dst++) if (src !== dst) pool[dst] = mix(pool[dst], hashmix(pool[src]));
  }
  for (let src = POOL_SIZE; src < entropy.length; src++) {
    for (let dst = 0; dst < POOL_SIZE; dst++) pool[dst] = mix(pool[dst], hashmix(entropy[src]));
  }
  const out = new Uint32Array(n32);
  let h = INIT_B;
  for (let i = 0; i < n32; i++) {
    let v = (pool[i % POOL_SIZE] ^ h) >>> 0;
    h = Math.imul(h, MULT_B) >>> 0;
    v = Math.imul(v, h) >>> 0;
    out[i] = (v ^ (v >>> 16)) >>> 0;
  }
  return out;
}

// PCG64's multiplier 0x2360ED051FC65DA4_4385DF649FCCF645 enters `step` as 16-bit limbs, least significant first.
const MASK128 = (1n << 128n) - 1n;

function setLimbs(limbs: Float64Array, x: bigint): void {
  for (let i = 0; i < 8; i++) limbs[i] = Number((x >> BigInt(16 * i)) & 0xffffn);
}

/** numpy's PCG64: the 128-bit state and increment as eight 16-bit limbs each, so a step is exact in doubles. */
export class Pcg64 {
  private readonly s = new Float64Array(8);
  private readonly inc = new Float64Array(8);
  /** The high half of the last 64-bit output, when a 32-bit draw left it (numpy's has_uint32). */
  private spare = -1;
  private lo = 0;
  private hi = 0;

  private constructor(inc: bigint) {
    setLimbs(this.inc, inc);
  }

  static fromSeed(seed: number | bigint): Pcg64 {
    const w = seedSequenceState(seed, 8);
    // generate_state(4, uint64): words pair up (low, high); PCG64 takes the first two as the seed, high one first.
    const u64 = (k: number) => (BigInt(w[2 * k + 1]) << 32n) | BigInt(w[2 * k]);
    const initState = (u64(0) << 64n) | u64(1);
    const initSeq = (u64(2) << 64n) | u64(3);
    const rng = new Pcg64(((initSeq << 1n) | 1n) & MASK128);
    rng.step();
    setLimbs(rng.s, (rng.state.state + initState) & MASK128);
    rng.step();
    return rng;
  }

  /** The 128-bit state and increment (numpy's `bit_generator.state`). */
  get state(): { state: bigint; inc: bigint } {
    const big = (l: Float64Array) => l.reduceRight((acc, x) => (acc << 16n) | BigInt(x), 0n);
    return { state: big(this.s), inc: big(this.inc) };
  }

  /** state = state × M + inc (mod 2^128), then the XSL-RR output into `lo`/`hi`. */
  private step(): void {
    const s = this.s;
    const inc = this.inc;
    const s0 = s[0], s1 = s[1], s2 = s[2], s3 = s[3], s4 = s[4], s5 = s[5], s6 = s[6], s7 = s[7];
    // Column sums of the 16×16-bit products (each column below 2^36: exact), plus the increment.
    let c = s0 * 0xf645 + inc[0];
    s[0] = c % 65536;
    c = (c - s[0]) / 65536 + s0 * 0x9fcc + s1 * 0xf645 + inc[1];
    s[1] = c % 65536;
    c = (c - s[1]) / 65536 + s0 * 0xdf64 + s1 * 0x9fcc + s2 * 0xf645 + inc[2];
    s[2] = c % 65536;
    c = (c - s[2]) / 65536 + s0 * 0x4385 + s1 * 0xdf64 + s2 * 0x9fcc + s3 * 0xf645 + inc[3];
    s[3] = c % 65536;
    c = (c - s[3]) / 65536 + s0 * 0x5da4 + s1 * 0x4385 + s2 * 0xdf64 + s3 * 0x9fcc + s4 * 0xf645 + inc[4];
    s[4] = c % 65536;
    c = (c - s[4]) / 65536 + s0 * 0x1fc6 + s1 * 0x5da4 + s2 * 0x4385 + s3 * 0xdf64 + s4 * 0x9fcc + s5 * 0xf645 + inc[5];
    s[5] = c % 65536;
    c = (c - s[5]) / 65536 + s0 * 0xed05 + s1 * 0x1fc6 + s2 * 0x5da4 + s3 * 0x4385 + s4 * 0xdf64 + s5 * 0x9fcc + s6 * 0xf645 + inc[6];
    s[6] = c % 65536;
    c = (c - s[6]) / 65536 + s0 * 0x2360 + s1 * 0xed05 + s2 * 0x1fc6 + s3 * 0x5da4 + s4 * 0x4385 + s5 * 0xdf64 + s6 * 0x9fcc + s7 * 0xf645 + inc[7];
    s[7] = c % 65536;
    // XSL-RR: (high 64 ^ low 64) rotated right by the top 6 bits of the state.
    const xlo = ((s[1] * 65536 + s[0]) ^ (s[5] * 65536 + s[4])) >>> 0;
    const xhi = ((s[3] * 65536 + s[2]) ^ (s[7] * 65536 + s[6])) >>> 0;
    const rot = s[7] >>> 10;
    if (rot === 0) {
      this.lo = xlo;
      this.hi = xhi;
    } else if (rot < 32) {
      this.lo = ((xlo >>> rot) | (xhi << (32 - rot))) >>> 0;
      this.hi = ((xhi >>> rot) | (xlo << (32 - rot))) >>> 0;
    } else if (rot === 32) {
      this.lo = xhi;
      this.hi = xlo;
    } else {
      const r = rot - 32;
      this.lo = ((xhi >>> r) | (xlo << (32 - r))) >>> 0;
      this.hi = ((xlo >>> r) | (xhi << (32 - r))) >>> 0;
    }
  }

  /** The next 64-bit output (numpy's `random_raw`) as a bigint; a spare 32-bit half stays for `nextUint32`, as in numpy. */
  nextUint64(): bigint {
    this.step();
    return (BigInt(this.hi) << 32n) | BigInt(this.lo);
  }

  /** numpy's `next_uint32`: the low half of a 64-bit output, then its high half on the next call. */
  nextUint32(): number {
    if (this.spare >= 0) {
      const v = this.spare;
      this.spare = -1;
      return v;
    }
    this.step();
    this.spare = this.hi;
    return this.lo;
  }

  /** numpy's `random()`: the top 53 bits of a 64-bit output over 2^53, in [0, 1). */
  nextDouble(): number {
    this.step();
    return ((this.hi >>> 0) * 2097152 + (this.lo >>> 11)) / 9007199254740992;
  }

  /** numpy's `choice([-1, 1], size=count)` (equal weights): each sign from the top bit of one 32-bit draw. */
  choiceSigns(count: number): Int8Array {
    const out = new Int8Array(count);
    for (let i = 0; i < count; i++) out[i] = this.nextUint32() >= 0x80000000 ? 1 : -1;
    return out;
  }

  /** `choiceSigns(flips · n)` packed, bit j of byte b of a flip set when query 8b + j is negated; WebAssembly, 40× faster. */
  packedSigns(flips: number, n: number): Uint8Array {
    const bytes = flips * Math.ceil(n / 8);
    const k = this.toKernel(64 + bytes);
    k.signs(64, flips, n);
    this.fromKernel(k);
    return new Uint8Array(k.memory.buffer, 64, bytes).slice();
  }

  /** `out.length` doubles of `random()` (the same stream as `nextDouble`), drawn in WebAssembly. */
  fillDoubles(out: Float64Array): Float64Array {
    const CHUNK = 1 << 16;
    for (let at = 0; at < out.length; at += CHUNK) {
      const count = Math.min(CHUNK, out.length - at);
      const k = this.toKernel(64 + 8 * count);
      k.doubles(64, count);
      this.fromKernel(k);
      out.set(new Float64Array(k.memory.buffer, 64, count), at);
    }
    return out;
  }

  private toKernel(bytes: number): SignKernel {
    const k = signKernel();
    ensureWasmBytes(k.memory, bytes);
    const words = new Uint32Array(k.memory.buffer, 0, 10);
    const limb32 = (l: Float64Array, i: number) => l[2 * i + 1] * 65536 + l[2 * i];
    for (let i = 0; i < 4; i++) {
      words[i] = limb32(this.s, i);
      words[4 + i] = limb32(this.inc, i);
    }
    words[8] = this.spare < 0 ? 0 : 1;
    words[9] = this.spare < 0 ? 0 : this.spare;
    return k;
  }

  private fromKernel(k: SignKernel): void {
    const after = new Uint32Array(k.memory.buffer, 0, 10);
    for (let i = 0; i < 4; i++) {
      this.s[2 * i] = after[i] & 0xffff;
      this.s[2 * i + 1] = after[i] >>> 16;
    }
    this.spare = after[8] ? after[9] : -1;
  }

  /** numpy's `Generator.shuffle` of an array in place: from the end, each index drawn by masked rejection. */
  shuffle<T>(items: T[]): T[] {
    for (let i = items.length - 1; i > 0; i--) {
      const j = this.interval(i);
      [items[i], items[j]] = [items[j], items[i]];
    }
    return items;
  }

  /** numpy's `random_interval(max)` for max < 2^32: a uniform integer in [0, max] by masked rejection. */
  private interval(max: number): number {
    // Every bit up to max's highest (a shift by 32 is none in JavaScript, hence max 0 apart).
    const mask = max === 0 ? 0 : 0xffffffff >>> Math.clz32(max);
    for (;;) {
      const v = (this.nextUint32() & mask) >>> 0;
      if (v <= max) return v;
    }
  }
}

interface SignKernel {
  memory: WasmMemory;
  signs: (out: number, flips: number, n: number) => void;
  doubles: (out: number, count: number) => void;
}

let kernel: SignKernel | undefined;
function signKernel(): SignKernel {
  if (!kernel) {
    const { memory, exports } = wasmKernel(SIGN_KERNEL_WASM_BASE64)();
    kernel = { memory, signs: exports.signs as SignKernel["signs"], doubles: exports.doubles as SignKernel["doubles"] };
  }
  return kernel;
}
