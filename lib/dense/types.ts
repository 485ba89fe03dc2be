/** What dense/'s vector stores keep beside the vectors (the embedding port itself is lib/models/embed.ts). */

/** What produced a table's vectors. */
export interface EmbeddingProvenance {
  /** Model names the servers reported, each once. */
  servedModels: string[];
  /** Some vectors came from the project's test double. */
  standIn: boolean;
}

/** Every served model name once (`a`'s first), stand-in if either is. */
export function mergeProvenance(a: EmbeddingProvenance, b: EmbeddingProvenance): EmbeddingProvenance {
  return { servedModels: [...new Set([...a.servedModels, ...b.servedModels])], standIn: a.standIn || b.standIn };
}

/** A cached vector, with its share of the batch's reported tokens when known. */
export interface CachedVector {
  vector: Float32Array;
  tokens?: number;
}
