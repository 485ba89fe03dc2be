/** Sparse rows × dense matrix in WebAssembly SIMD: LSI's products (lib/dense/svd.ts) and the bootstrap's resample means. */
import { ensureWasmBytes, wasmKernel, type WasmMemory } from "./wasm";
import { GATHER_KERNEL_WASM_BASE64 } from "./gather-kernel-wasm";

const instantiate = wasmKernel(GATHER_KERNEL_WASM_BASE64);

/** 64 Ki entries are 768 KB of indices and weights. */
const CHUNK_ENTRIES = 1 << 16;
const CHUNK_ROWS = 256;

/** The kernel with its own memory; one per thread is enough (calls are synchronous). */
export class GatherKernel {
  private readonly memory: WasmMemory;
  private readonly gather: (starts: number, nRows: number, idx: number, w: number, X: number, c: number, out: number) => void;
  private readonly gramKernel: (X: number, Y: number, m: number, n: number, G: number) => void;

  constructor() {
    const { memory, exports } = instantiate();
    this.memory = memory;
    this.gather = exports.gather as GatherKernel["gather"];
    this.gramKernel = exports.gram as GatherKernel["gramKernel"];
  }

  /** The upper triangle of Xᵀ Y (lower one zero); undefined when memory cannot hold it. */
  gramUpper(X: Float64Array, Y: Float64Array, m: number, n: number): Float64Array | undefined {
    const bytes = align16(m * n * 8);
    const yAt = X === Y ? 0 : bytes;
    const gAt = yAt + bytes;
    if (!this.room(gAt + n * n * 8)) return undefined;
    const buffer = this.memory.buffer;
    new Float64Array(buffer, 0, m * n).set(X.subarray(0, m * n));
    if (yAt) new Float64Array(buffer, yAt, m * n).set(Y.subarray(0, m * n));
    new Float64Array(buffer, gAt, n * n).fill(0);
    this.gramKernel(0, yAt, m, n, gAt);
    return new Float64Array(this.memory.buffer, gAt, n * n).slice();
  }

  private room(bytes: number): boolean {
    try {
      ensureWasmBytes(this.memory, bytes);
      return true;
    } catch (err) {
      if (err instanceof RangeError) return false;
      throw err;
    }
  }

  /** Rows [from, to) of out[r] = Σ weight[p] · X[index[p]]; false, writing nothing, if X and a chunk don't fit. */
  rows(starts: ArrayLike<number>, index: Int32Array, weight: Float64Array, X: Float64Array, c: number, out: Float64Array, from: number, to: number): boolean {
    if (to <= from || c === 0) return true;
    if (to * c > out.length) throw new RangeError(`rows ${from}..${to} × ${c} do not fit an output of ${out.length}`);
    // All chunks cut first, so the memory grows once.
    const ends: number[] = [];
    let most = 0;
    for (let r0 = from; r0 < to; ) {
      let r1 = r0 + 1;
      while (r1 < to && r1 - r0 < CHUNK_ROWS && starts[r1 + 1] - starts[r0] <= CHUNK_ENTRIES) r1++;
      const entries = starts[r1] - starts[r0];
      most = Math.max(most, align16((r1 - r0) * c * 8) + align16(entries * 8) + align16(entries * 4) + (r1 - r0 + 1) * 4);
      ends.push(r1);
      r0 = r1;
    }
    const xBytes = align16(X.length * 8);
    if (!this.room(xBytes + most)) return false;
    new Float64Array(this.memory.buffer, 0, X.length).set(X);
    const rowBytes = c * 8;
    let r0 = from;
    for (const r1 of ends) {
      const s0 = starts[r0];
      const entries = starts[r1] - s0;
      const nRows = r1 - r0;
      const outAt = xBytes;
      const wAt = outAt + align16(nRows * rowBytes);
      const idxAt = wAt + align16(entries * 8);
      const startsAt = idxAt + align16(entries * 4);
      const buffer = this.memory.buffer;
      const o = r0 * c;
      new Float64Array(buffer, outAt, nRows * c).fill(0);
      new Float64Array(buffer, wAt, entries).set(weight.subarray(s0, s0 + entries));
      new Int32Array(buffer, idxAt, entries).set(index.subarray(s0, s0 + entries));
      const st = new Int32Array(buffer, startsAt, nRows + 1);
      for (let r = 0; r <= nRows; r++) st[r] = starts[r0 + r] - s0;
      this.gather(startsAt, nRows, idxAt, wAt, 0, c, outAt);
      out.set(new Float64Array(this.memory.buffer, outAt, nRows * c), o);
      r0 = r1;
    }
    return true;
  }
}

let shared: GatherKernel | undefined;

export function gatherKernel(): GatherKernel {
  shared ??= new GatherKernel();
  return shared;
}

/** Drops this thread's kernel, so its memory (a copy of the largest X) can be collected. */
export function releaseGatherKernel(): void {
  shared = undefined;
}

function align16(bytes: number): number {
  return Math.ceil(bytes / 16) * 16;
}
