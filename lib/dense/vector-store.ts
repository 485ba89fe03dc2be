/** Where the embedding cache lives (lib/store/vector-store.ts is the cache), and how close ANN search comes to exact. */
import path from "node:path";
import { readConfig, type Config } from "../config";

/** `GBR_VECTOR_STORE` (a folder or any LanceDB URI), else `<data folder>/lancedb`. */
export function defaultVectorStoreUri(config: Pick<Config, "vectorStore" | "dataDir"> = readConfig()): string {
  return config.vectorStore ?? path.join(config.dataDir, "lancedb");
}

/** Mean over queries of |ann top k ∩ exact top k| / k (0 when there are no queries). */
export function annRecallAtK(exact: readonly (readonly string[])[], ann: readonly (readonly string[])[], k: number): number {
  if (!(Number.isInteger(k) && k > 0)) throw new Error(`annRecallAtK: k must be a positive integer, got ${k}`);
  if (exact.length !== ann.length) throw new Error(`annRecallAtK: ${exact.length} exact rankings but ${ann.length} ANN rankings`);
  if (exact.length === 0) return 0;
  let sum = 0;
  for (let q = 0; q < exact.length; q++) {
    const truth = new Set(exact[q].slice(0, k));
    // A Set of the ANN list too: a repeated id must not count twice.
    let hits = 0;
    for (const id of new Set(ann[q].slice(0, k))) if (truth.has(id)) hits++;
    sum += hits / k;
  }
  return sum / exact.length;
}
