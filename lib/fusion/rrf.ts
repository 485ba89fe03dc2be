import type { Run } from "../types";
import { fusedRun } from "./fused-run";

/** k (default 60, the paper's), ranks read per run and kept (`depth`, `top`: 100), name (default "rrf"), weights. */
type RrfOptions = { k?: number; depth?: number; top?: number; name?: string; weights?: readonly number[] };

/**
 * Reciprocal rank fusion: Σ w/(k + rank) (w = 1 without `weights`) over the runs ranking a document within `depth`,
 * sorted by score, ties by doc id in code-point order (as the reference's Python sort); keeps `top`.
 *
 * @example
 * const fused = rrf([bm25Run, denseRun]); // k = 60, top 100, as in the paper
 * const weighted = rrf([bm25Run, denseRun], { weights: [0.7, 0.3] });
 */
export function rrf(runs: readonly Run[], opts: RrfOptions = {}): Run {
  const k = opts.k ?? 60;
  const depth = opts.depth ?? 100;
  const top = opts.top ?? 100;
  const weights = opts.weights ?? runs.map(() => 1);
  if (weights.length !== runs.length) throw new RangeError(`rrf: ${weights.length} weights for ${runs.length} runs`);
  return fusedRun(runs, opts.name ?? "rrf", top, (q) => {
    const acc = new Map<string, number>();
    runs.forEach((r, i) => {
      const list = r.rankings.get(q) ?? [];
      const seen = new Set<string>();
      let rank = 0;
      for (const d of list) {
        if (seen.has(d)) continue; // a duplicate keeps its first (best) rank
        seen.add(d);
        if (++rank > depth) break;
        acc.set(d, (acc.get(d) ?? 0) + weights[i] / (k + rank));
      }
    });
    return acc;
  });
}
