/**
 * The few parts of the WebAssembly API the project's SIMD kernels use (lib/dense/exact-search.ts,
 * lib/dense/gather-kernel.ts). The WebAssembly global is not in the type libraries this project
 * compiles with (no DOM lib, and tslab's older @types/node), so they are typed here, once.
 */

/** A kernel's linear memory: grows by 64 KiB pages; its buffer is replaced when it grows. */
export interface WasmMemory {
  readonly buffer: ArrayBuffer;
  grow(pages: number): number;
}

interface WasmApi {
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object, imports: object) => { exports: Record<string, unknown> };
}

const Wasm = (globalThis as unknown as { WebAssembly: WasmApi }).WebAssembly;

/** Bytes in a WebAssembly memory page. */
export const WASM_PAGE = 65536;

/**
 * A function that instantiates the module embedded as base64, compiling it on first use only:
 * every instance has its own memory, the compiled code is shared.
 */
export function wasmKernel(base64: string): () => { memory: WasmMemory; exports: Record<string, unknown> } {
  let compiled: object | undefined;
  return () => {
    compiled ??= new Wasm.Module(Buffer.from(base64, "base64"));
    const { exports } = new Wasm.Instance(compiled, {});
    return { memory: exports.memory as WasmMemory, exports };
  };
}

/**
 * Grows `memory` to hold at least `bytes`; a no-op when it already does.
 */
export function ensureWasmBytes(memory: WasmMemory, bytes: number): void {
  const have = memory.buffer.byteLength;
  if (bytes > have) memory.grow(Math.ceil((bytes - have) / WASM_PAGE));
}
