import type { Benchmark, Query, Retriever, Run } from "./types";
import type { Bm25Params } from "./sparse/bm25";
import type { TokenizerContext } from "./text/registry";

export interface RetrieverOptions extends TokenizerContext {
  /** BM25 parameters (rank_bm25 defaults when absent). */
  bm25?: Partial<Bm25Params>;
  /** Drop documents scoring <= 0 (BM25). */
  positiveOnly?: boolean;
  /** Progress messages for long steps such as indexing. */
  log?: (message: string) => void;
  /** LanceDB URI of the embedding cache (default `<data>/lancedb`). */
  vectorStore?: string;
  /**
   * Dense retrieval through the store's approximate (IVF_PQ) index instead of exact search;
   * built on first use. Its recall@100 against exact search is logged.
   */
  ann?: { nprobes?: number; refineFactor?: number };
  /** Chat model for the LLM methods (`--llm`; default GBR_CHAT_MODEL or the provider's default). */
  llm?: string;
  /** Replay cache mode for LLM calls: "use" (default), "refresh" (`--no-cache`), "off". */
  replay?: "use" | "refresh" | "off";
  /** Sample index for `--repeat N` (part of the replay key) and the provider seed to send. */
  sample?: number;
  seed?: number;
  /** Prompt set for the LLM methods: the project's (default) or the authors' official ones. */
  promptSet?: "project" | "official";
  /** REACT-BM25 rounds (default 10) and trace folder. */
  rounds?: number;
  traceDir?: string;
  /** Where LLM methods keep rewrites, translations and traces (default `<data>/llm`). */
  workDir?: string;
  /** Reports progress of long embedding jobs. */
  onProgress?: (label: string, done: number, total: number) => void;
}

/**
 * A retriever that can run a second, pseudo-relevance-feedback pass of its own kind (query
 * expansion for BM25, Rocchio for dense); `prf:<name>` uses it.
 */
export interface FeedbackRetriever extends Retriever {
  retrieveWithFeedback(queries: Query[], k: number): Promise<Run> | Run;
}

/**
 * Type guard for `FeedbackRetriever`.
 *
 * @example
 * if (supportsFeedback(r)) await r.retrieveWithFeedback(queries, 100);
 */
export function supportsFeedback(r: Retriever): r is FeedbackRetriever {
  return typeof (r as FeedbackRetriever).retrieveWithFeedback === "function";
}

/** Builds a retriever over a benchmark's corpus. */
export type RetrieverFactory = (name: string, bench: Benchmark, opts: RetrieverOptions) => Promise<Retriever>;

const factories = new Map<string, RetrieverFactory>();

/**
 * Makes a retriever available by name to `createRetriever`, and so to `gbr search` when the
 * registering module is loaded. A name ending in `:` registers a prefix (`mine:` serves
 * `mine:anything`).
 *
 * @example
 * registerRetriever("first-doc", async (_name, bench) => ({
 *   name: "first-doc",
 *   retrieve: (queries) => ({ rankings: new Map(queries.map((q) => [q.id, [bench.docs[0].id]])) }),
 * }));
 */
export function registerRetriever(name: string, factory: RetrieverFactory): void {
  factories.set(name, factory);
}

/**
 * Names `createRetriever` accepts (prefixes end in `:`), in registration order: the built-in
 * BM25 variants first, then whatever other loaded modules registered.
 *
 * @example
 * retrieverNames(); // ["bm25-greekstemmer", "bm25-spacy", "bm25-grnlp", "bm25-english"]
 */
export function retrieverNames(): string[] {
  return [...factories.keys()];
}

/**
 * A retriever by name: `bm25-greekstemmer`, `bm25-spacy`, `bm25-grnlp`, `bm25-english`,
 * `dense:<preset>`, `lsi`, `prf:<name>`, `rrf:<a>+<b>`, or any registered name. The corpus is
 * indexed (or embedded) once, when the retriever is created.
 *
 * @example
 * const bm25 = await createRetriever("bm25-greekstemmer", bench, { bm25: { k1: 1.2 } });
 * const run = await bm25.retrieve(bench.queries, 100);
 */
export async function createRetriever(name: string, bench: Benchmark, opts: RetrieverOptions = {}): Promise<Retriever> {
  const exact = factories.get(name);
  if (exact) return exact(name, bench, opts);
  const colon = name.indexOf(":");
  const prefixed = colon > 0 ? factories.get(name.slice(0, colon + 1)) : undefined;
  if (prefixed) return prefixed(name, bench, opts);
  throw new Error(`unknown retriever '${name}'; available: ${retrieverNames().join(", ")}`);
}
