/** The authors' experiment list: which rows are their runs and which go beyond them (`--official` runs theirs only). */
import { AUTHORS_SERVED_NAMES } from "../dense/presets";

// Their dense models (the served names they record), without the quickstart's raw-text EmbeddingGemma.
const DENSE = Object.keys(AUTHORS_SERVED_NAMES).filter((p) => p !== "embgemma-300m-raw");
const LOCAL = DENSE.filter((p) => AUTHORS_SERVED_NAMES[p].model !== "gemini-embedding-001");
const BM25 = ["bm25-greekstemmer", "bm25-spacy", "bm25-grnlp"];

/** The runs of the authors' experiments notebook (DESIGN.md §6), by experiment id. */
export const AUTHORS_EXPERIMENTS: ReadonlySet<string> = new Set([
  ...BM25,
  ...DENSE.map((p) => `dense:${p}`),
  "prf:bm25-greekstemmer",
  "prf:dense:qwen3-8b",
  "prf:dense:embgemma-300m",
  ...LOCAL.map((p) => `rrf:bm25-greekstemmer+dense:${p}`),
  ...BM25.map((b) => `reform:${b}`),
  ...LOCAL.map((p) => `reform:dense:${p}`),
  "translate:bm25-english",
  ...LOCAL.map((p) => `translate:dense:${p}`),
  "oracle:bm25-greekstemmer",
  "oracle:reform:bm25-greekstemmer",
  "react-bm25",
]);

/** Why an experiment is beyond the authors' list, or undefined for one of their runs. */
export function beyondAuthors(id: string): string | undefined {
  if (AUTHORS_EXPERIMENTS.has(id)) return undefined;
  if (/(^|[:+])lsi($|[:+])/.test(id)) return "LSI is the project's addition";
  if (id.startsWith("rerank:")) return "re-ranking is the project's addition";
  if (id.startsWith("tuned:")) return "the cross-validated estimate is the project's addition";
  if (id === "dense:embgemma-300m-raw") return "the retrieval quickstart's raw-text encoding, not the experiments notebook's";
  if (id.includes("gemini-001")) return "the authors ran no Gemini reformulation, translation, PRF or RRF";
  if (id.startsWith("prf:dense:")) return "the authors ran dense PRF for Qwen3-8B and EmbeddingGemma-300M only";
  return "not in the authors' experiment list";
}

/** The `list` column: "authors" for one of the authors' runs, else "beyond the authors: why". */
export function listOf(beyond: string | undefined): string {
  return beyond ? `beyond the authors: ${beyond}` : "authors";
}
