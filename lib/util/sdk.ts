/**
 * The heavy optional packages, loaded on first use and in this one place: the provider SDKs
 * (openai, @google/genai), LanceDB with Arrow, danfojs-node, tslab, the o200k rank table and the
 * lock library. Every other import in lib/ is static. Measured here: openai ~25 ms, @google/genai ~50 ms, LanceDB and
 * Arrow ~100 ms, the o200k table ~115 ms, danfojs ~550 ms; commands such as `gbr stem` or
 * `gbr eval`, which need none of them, start without paying for them.
 *
 * Loaded with a typed `require` rather than `import()`: the call sites are synchronous (a chat
 * client is built inside a synchronous factory, an error is classified synchronously), and in
 * this CommonJS package `require` is what `import()` would compile to. The types are those of
 * the packages' own declarations (`typeof import(...)`), so nothing is cast to `any`.
 */

/**
 * The `openai` SDK (OpenAI-compatible chat and embeddings).
 */
export function openaiSdk(): typeof import("openai") {
  return require("openai") as typeof import("openai");
}

/**
 * The `@google/genai` SDK (Gemini chat and embeddings).
 */
export function genaiSdk(): typeof import("@google/genai") {
  return require("@google/genai") as typeof import("@google/genai");
}

/**
 * LanceDB (the embedding cache).
 */
export function lancedbSdk(): typeof import("@lancedb/lancedb") {
  return require("@lancedb/lancedb") as typeof import("@lancedb/lancedb");
}

/**
 * Apache Arrow (LanceDB's column format; the vector cache builds its batches with it).
 */
export function arrowSdk(): typeof import("apache-arrow") {
  return require("apache-arrow") as typeof import("apache-arrow");
}

/**
 * danfojs-node (DataFrames in the notebooks).
 */
export function danfoSdk(): typeof import("danfojs-node") {
  return require("danfojs-node") as typeof import("danfojs-node");
}

/**
 * tslab (present only inside a tslab kernel; throws elsewhere, which callers expect).
 */
export function tslabSdk(): typeof import("tslab") {
  return require("tslab") as typeof import("tslab");
}

/**
 * proper-lockfile (the cross-process locks of lib/cache/file-lock.ts). Light (~9 ms) but loaded on
 * first use all the same: on load it hooks the process's exit and signal handling (signal-exit) to
 * remove held locks, which a command that never locks (`gbr stem`, `gbr eval`) should not carry.
 */
export function lockfileSdk(): typeof import("proper-lockfile") {
  return require("proper-lockfile") as typeof import("proper-lockfile");
}

/**
 * Whether a tslab notebook cell is running now: tslab's own `display` throws "Not ready" outside a
 * cell, and its jupyter module (the one the kernel runs) holds the writer that check reads. False
 * outside a kernel (a script, a test) and when tslab is not installed.
 */
export function tslabCellRunning(): boolean {
  try {
    const jupyter = require("tslab/dist/jupyter") as { lastWriteDisplayData?: unknown };
    return jupyter.lastWriteDisplayData != null;
  } catch {
    return false;
  }
}

/**
 * The little of gpt-tokenizer's o200k_harmony encoder that token counting uses. Declared here
 * rather than imported: the package's own declarations use `export { x as "quoted-name" }`,
 * which TypeScript before 5.6 (tslab's 5.0) cannot parse.
 */
export interface O200kEncoder {
  countTokens(text: string, options?: { disallowedSpecial?: Set<string> }): number;
}

/**
 * gpt-tokenizer's o200k_harmony encoding (building its rank table takes ~0.1 s and some MB).
 * A CommonJS deep path: the package's root export is ESM-first under classic resolution, while
 * this file's `exports` entry ("./cjs/*") resolves under require() on Node 20 and in tsx.
 */
export function o200kHarmony(): O200kEncoder {
  return require("gpt-tokenizer/cjs/encoding/o200k_harmony") as O200kEncoder;
}
