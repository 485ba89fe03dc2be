import type { Query, Retriever, Run } from "../types";
import { createRetriever, registerRetriever, supportsFeedback } from "../registry";
import { rrf } from "./rrf";

/**
 * `rrf:<a>+<b>[+<c>…]`: reciprocal rank fusion (k = 60) of the named retrievers' top 100.
 * Names may themselves contain colons (`rrf:bm25-greekstemmer+dense:qwen3-8b`).
 */
registerRetriever("rrf:", async (name, bench, opts) => {
  const parts = name.slice("rrf:".length).split("+").filter(Boolean);
  if (parts.length < 2) throw new Error(`'${name}': rrf needs at least two retrievers, as rrf:<a>+<b>`);
  const inputs: Retriever[] = [];
  for (const p of parts) inputs.push(await createRetriever(p, bench, opts));
  return {
    name,
    async retrieve(queries: Query[], k: number) {
      const runs: Run[] = [];
      for (const r of inputs) runs.push(await r.retrieve(queries, 100));
      return rrf(runs, { top: k, name });
    },
  };
});

/**
 * `prf:<name>`: the named retriever's own pseudo-relevance feedback (query expansion for
 * BM25, Rocchio for dense and LSI).
 */
registerRetriever("prf:", async (name, bench, opts) => {
  const innerName = name.slice("prf:".length);
  const inner = await createRetriever(innerName, bench, opts);
  if (!supportsFeedback(inner)) throw new Error(`'${innerName}' has no pseudo-relevance feedback; prf: works with BM25, dense and lsi retrievers`);
  return { name, retrieve: (queries: Query[], k: number) => inner.retrieveWithFeedback(queries, k) };
});
