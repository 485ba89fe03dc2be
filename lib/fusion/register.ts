import type { Query, Retriever, Run } from "../types";
import { createRetriever, registerRetriever } from "../registry";
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
