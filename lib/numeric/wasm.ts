/** The WebAssembly API parts the SIMD kernels use, typed here (no DOM lib; tslab's older @types/node lack them). */

/** A kernel's linear memory: grows by 64 KiB pages; its buffer is replaced when it grows. */
export type WasmMemory = { readonly buffer: ArrayBuffer; grow(pages: number): number };

interface WasmApi {
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object, imports: object) => { exports: Record<string, unknown> };
}

const Wasm = (globalThis as unknown as { WebAssembly: WasmApi }).WebAssembly;

const WASM_PAGE = 65536;

/** Instantiates the base64-embedded module, compiled once: each instance has its own memory, the code is shared. */
export function wasmKernel(base64: string): () => { memory: WasmMemory; exports: Record<string, unknown> } {
  let compiled: object | undefined;
  return () => {
    compiled ??= new Wasm.Module(Buffer.from(base64, "base64"));
    const { exports } = new Wasm.Instance(compiled, {});
    return { memory: exports.memory as WasmMemory, exports };
  };
}

/** Grows `memory` to hold at least `bytes`. */
export function ensureWasmBytes(memory: WasmMemory, bytes: number): void {
  const have = memory.buffer.byteLength;
  if (bytes > have) memory.grow(Math.ceil((bytes - have) / WASM_PAGE));
}
