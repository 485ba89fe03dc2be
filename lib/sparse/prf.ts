import type { Bm25Scorer } from "./bm25";

export interface SparsePrfOptions {
  /** Feedback documents from the first pass (default 10). */
  docs?: number;
  /** Expansion terms added to the query (default 30). */
  terms?: number;
}

/**
 * The paper's BM25 pseudo-relevance feedback: terms of the top feedback docs scored by total tf × idf; query terms
 * and idf ≤ 0 (rank_bm25's, after the ε floor) dropped. Returns the query ids, then the best `terms` new ones.
 */
export function expandQuery(
  scorer: Bm25Scorer,
  queryIds: ArrayLike<number>,
  feedbackDocs: ArrayLike<number>,
  opts: SparsePrfOptions = {},
): number[] {
  const n = opts.terms ?? 30;
  const termText = scorer.index.terms();
  const forward = scorer.index.forward();
  const inQuery = new Set(Array.from(queryIds));
  const tf = new Map<number, number>();
  for (let i = 0; i < feedbackDocs.length; i++) {
    const d = feedbackDocs[i];
    for (let p = forward.start[d]; p < forward.start[d + 1]; p++) {
      const t = forward.term[p];
      tf.set(t, (tf.get(t) ?? 0) + forward.tf[p]);
    }
  }
  const candidates: [number, number][] = [];
  for (const [t, f] of tf) {
    if (inQuery.has(t) || !(scorer.idf[t] > 0)) continue;
    candidates.push([t, f * scorer.idf[t]]);
  }
  candidates.sort((a, b) => b[1] - a[1] || (termText[a[0]] < termText[b[0]] ? -1 : termText[a[0]] > termText[b[0]] ? 1 : 0));
  return [...Array.from(queryIds), ...candidates.slice(0, n).map(([t]) => t)];
}
