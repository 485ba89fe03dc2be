import { TopKHeap, type TopK } from "../util/top-k";
import { ensureWasmBytes, wasmKernel, type WasmMemory } from "../numeric/wasm";
import { DOT_KERNEL_WASM_BASE64 } from "./dot-kernel-wasm";

const instantiate = wasmKernel(DOT_KERNEL_WASM_BASE64);

/** Documents per tile: 48 rows of 4,096 floats (768 KB) stay in a 1-2 MB L2 cache while every query passes over them. */
const TILE_DOCS = 48;
/** Queries per scoring chunk; bounds the score matrix at CHUNK × documents floats. */
const QUERY_CHUNK = 256;

/** A zero vector stays zero. */
export function normalize(v: ArrayLike<number>): Float32Array {
  let s = 0;
  for (let i = 0; i < v.length; i++) s += v[i] * v[i];
  const out = new Float32Array(v.length);
  if (s === 0) return out;
  const inv = 1 / Math.sqrt(s);
  for (let i = 0; i < v.length; i++) out[i] = v[i] * inv;
  return out;
}

/** Exact max-inner-product search on unit vectors (the paper's setting), WebAssembly SIMD; ties keep document order. */
export class ExactIndex {
  readonly size: number;
  readonly dim: number;
  /** dim rounded up to a multiple of 4 (zero padded) for SIMD. */
  private readonly stride: number;
  private readonly memory: WasmMemory;
  private readonly dots: (docs: number, nd: number, queries: number, dim: number, out: number, stride: number) => void;
  private readonly docsBytes: number;

  constructor(docs: readonly ArrayLike<number>[]) {
    if (docs.length === 0) throw new RangeError("ExactIndex needs at least one document vector");
    this.size = docs.length;
    this.dim = docs[0].length;
    this.stride = Math.ceil(this.dim / 4) * 4;
    const { memory, exports } = instantiate();
    this.memory = memory;
    this.dots = exports.dots as ExactIndex["dots"];
    this.docsBytes = this.size * this.stride * 4;
    ensureWasmBytes(this.memory, this.docsBytes);
    const view = new Float32Array(this.memory.buffer, 0, this.size * this.stride);
    docs.forEach((v, i) => {
      if (v.length !== this.dim) throw new RangeError(`document vector ${i} has ${v.length} dimensions, expected ${this.dim}`);
      view.set(normalize(v), i * this.stride);
    });
  }

  /** Document i as stored; a copy, because the kernel's memory may move when it grows. */
  vector(i: number): Float32Array {
    return new Float32Array(this.memory.buffer, i * this.stride * 4, this.dim).slice();
  }

  search(queries: readonly ArrayLike<number>[], k: number): TopK[] {
    if (!Number.isInteger(k) || k < 1) throw new RangeError(`k must be a positive integer, got ${k}`);
    const results: TopK[] = [];
    for (let start = 0; start < queries.length; start += QUERY_CHUNK) {
      const chunk = queries.slice(start, start + QUERY_CHUNK);
      const scores = this.scoreChunk(chunk);
      for (let q = 0; q < chunk.length; q++) {
        const row = scores.subarray(q * this.size, (q + 1) * this.size);
        const heap = new TopKHeap(Math.min(k, this.size));
        for (let d = 0; d < row.length; d++) heap.offer(d, row[d]);
        results.push(heap.sorted());
      }
    }
    return results;
  }

  /** Scores one chunk into the kernel's memory; the returned view is valid until the next call. */
  private scoreChunk(queries: readonly ArrayLike<number>[]): Float32Array {
    const groups = Math.ceil(queries.length / 4);
    const qBase = this.docsBytes;
    const qBytes = groups * 4 * this.stride * 4;
    const outBase = qBase + qBytes;
    ensureWasmBytes(this.memory, outBase + groups * 4 * this.size * 4);
    const qView = new Float32Array(this.memory.buffer, qBase, groups * 4 * this.stride);
    qView.fill(0);
    queries.forEach((v, i) => {
      if (v.length !== this.dim) throw new RangeError(`query vector ${i} has ${v.length} dimensions, expected ${this.dim}`);
      qView.set(normalize(v), i * this.stride);
    });
    const rowBytes = this.stride * 4;
    for (let t = 0; t < this.size; t += TILE_DOCS) {
      const n = Math.min(TILE_DOCS, this.size - t);
      for (let g = 0; g < groups; g++) {
        this.dots(t * rowBytes, n, qBase + g * 4 * rowBytes, this.stride, outBase + (g * 4 * this.size + t) * 4, this.size);
      }
    }
    return new Float32Array(this.memory.buffer, outBase, queries.length * this.size);
  }
}
