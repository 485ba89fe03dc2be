import type { Benchmark, Query, Retriever, Run } from "./types";
import type { Bm25Params } from "./sparse/bm25";
import { bm25Search, indexCorpus } from "./sparse/bm25-retriever";
import { TOKENIZERS, createTokenizer, type TokenizerContext } from "./text/registry";

export interface RetrieverOptions extends TokenizerContext {
  /** BM25 parameters (rank_bm25 defaults when absent). */
  bm25?: Partial<Bm25Params>;
  /** Drop documents scoring <= 0 (BM25). */
  positiveOnly?: boolean;
  /** Progress messages for long steps such as indexing. */
  log?: (message: string) => void;
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
 * A retriever by name: `bm25-greekstemmer`, `bm25-spacy`, `bm25-grnlp`, `bm25-english`, or
 * any registered name. The corpus is indexed once, when the retriever is created.
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

async function bm25Factory(name: string, bench: Benchmark, opts: RetrieverOptions): Promise<Retriever> {
  const tokenizer = await createTokenizer(name, opts);
  const t0 = performance.now();
  const corpus = indexCorpus(bench.docs, tokenizer);
  opts.log?.(
    `${name}: indexed ${corpus.index.docCount} documents, ${corpus.index.termCount} terms, ` +
      `${corpus.index.postingCount} postings in ${Math.round(performance.now() - t0)} ms`,
  );
  const scorer = corpus.index.withParams(opts.bm25);
  return {
    name,
    retrieve(queries: Query[], k: number): Run {
      return bm25Search(corpus, scorer, queries, k, { positiveOnly: opts.positiveOnly });
    },
  };
}

for (const name of Object.keys(TOKENIZERS)) registerRetriever(name, bm25Factory);
