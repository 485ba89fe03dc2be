/** Heavy packages loaded on first use (openai ~25 ms … danfojs ~550 ms), by a typed `require` as callers are sync. */

export const openaiSdk = () => require("openai") as typeof import("openai");

export const genaiSdk = () => require("@google/genai") as typeof import("@google/genai");

export const lancedbSdk = () => require("@lancedb/lancedb") as typeof import("@lancedb/lancedb");

export const arrowSdk = () => require("apache-arrow") as typeof import("apache-arrow");

/** danfojs-node (DataFrames), an optional peer dependency: when absent, an error says how to install it. */
export function danfoSdk(): typeof import("danfojs-node") {
  try {
    return require("danfojs-node") as typeof import("danfojs-node");
  } catch (err) {
    if (!(err as Error).message.startsWith("Cannot find module 'danfojs-node'")) throw err;
    throw new Error("A DataFrame needs the optional package danfojs-node: npm install danfojs-node (first add the overrides for xlsx and @tensorflow/tfjs-node that greekbar-retrieval's README lists)", { cause: err });
  }
}

/** tslab, an optional peer dependency (present only inside a tslab kernel; throws elsewhere, which callers expect). */
export const tslabSdk = () => require("tslab") as typeof import("tslab");

export const playwrightSdk = () => require("playwright-core") as typeof import("playwright-core");

/** proper-lockfile, lazy though light (~9 ms): on load it hooks exit and signals, needless where nothing locks. */
export const lockfileSdk = () => require("proper-lockfile") as typeof import("proper-lockfile");

/** One display message: outputs by MIME type (binary ones base64). */
export interface DisplayBundle {
  data: Record<string, string>;
  metadata: Record<string, unknown>;
  transient?: { display_id?: string };
}

/** The cell's display writer, or undefined: tslab's public `display` sends one MIME type per message, a figure needs several. */
export function tslabDisplayWriter(): ((bundle: DisplayBundle, update: boolean) => void) | undefined {
  try {
    const jupyter = require("tslab/dist/jupyter") as { lastWriteDisplayData?: ((bundle: DisplayBundle, update: boolean) => void) | null };
    return jupyter.lastWriteDisplayData ?? undefined;
  } catch {
    return undefined;
  }
}

/** The part of gpt-tokenizer's encoder we use; its own declarations need TypeScript >= 5.6 (tslab has 5.0). */
export interface O200kEncoder {
  countTokens(text: string, options?: { disallowedSpecial?: Set<string> }): number;
}

/** gpt-tokenizer's o200k_harmony (~0.1 s to build) via "./cjs/*": the root is ESM-first under classic resolution. */
export function o200kHarmony(): O200kEncoder {
  return require("gpt-tokenizer/cjs/encoding/o200k_harmony") as O200kEncoder;
}
