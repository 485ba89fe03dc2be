import type { Query, Retriever, Run } from "../types";
import { rrf } from "./rrf";

/** `rrf:<a>+<b>[+<c>…]`: reciprocal rank fusion (k = 60) of its inputs' top 100. */
export function rrfRetriever(name: string, inputs: readonly Retriever[]): Retriever {
  return {
    name,
    async retrieve(queries: Query[], k: number) {
      const runs: Run[] = [];
      for (const r of inputs) runs.push(await r.retrieve(queries, 100));
      return rrf(runs, { top: k, name });
    },
  };
}
