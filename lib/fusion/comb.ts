/** CombSUM and CombMNZ (Fox and Shaw, 1993) over normalised scores, as ranx computes them. */
import type { Run } from "../types";
import { GbrError } from "../util/errors";
import { fusedRun } from "./fused-run";
import { normalizeScores, type ScoreNorm } from "./normalize";

/** combsum: Σ of a document's normalised scores; combmnz: that sum × the number of runs that retrieved it. */
export const COMB_METHODS = ["combsum", "combmnz"] as const;
export type CombMethod = (typeof COMB_METHODS)[number];

/** Ranks read per run (`depth`, normalised over) and kept (`top`) default to 100; `name` to method-norm. */
type CombOptions = { method: CombMethod; norm: ScoreNorm; depth?: number; top?: number; name?: string };

/**
 * Each input's top `depth` normalised on its own, a document's scores summed over the runs that retrieved it (ranx's
 * 0 default), for CombMNZ times how many did (a normalised 0 counts). A rank-only input is a usage error.
 */
export function combFuse(runs: readonly Run[], opts: CombOptions): Run {
  const depth = opts.depth ?? 100;
  const top = opts.top ?? 100;
  const name = opts.name ?? `${opts.method}-${opts.norm}`;
  return fusedRun(runs, name, top, (q) => {
    const sums = new Map<string, number>();
    const hits = new Map<string, number>();
    runs.forEach((run, i) => {
      const list = topScored(run, q, depth, `${name}: input ${i + 1} (${run.info?.retriever ?? "unnamed"})`);
      const normed = normalizeScores(list.scores, opts.norm);
      list.ids.forEach((d, j) => {
        sums.set(d, (sums.get(d) ?? 0) + normed[j]);
        hits.set(d, (hits.get(d) ?? 0) + 1);
      });
    });
    return opts.method === "combmnz" ? new Map([...sums].map(([d, s]) => [d, s * hits.get(d)!])) : sums;
  });
}

/** A run's first `depth` distinct documents for a query with their scores; a duplicate keeps its first (best) place. */
function topScored(run: Run, q: string, depth: number, label: string): { ids: string[]; scores: number[] } {
  const list = run.rankings.get(q) ?? [];
  const given = run.scores?.get(q);
  if (list.length > 0 && (!given || given.length !== list.length)) {
    throw new GbrError(`${label} has no scores for query '${q}': CombSUM and CombMNZ fuse scores`, "USAGE", {
      hint: "fuse rank-only runs (react-bm25, rerank:llm:…) with rrf:<a>+<b> or fuse:wrrf:<w1>,<w2>:<a>+<b>",
    });
  }
  const ids: string[] = [];
  const scores: number[] = [];
  const seen = new Set<string>();
  for (let i = 0; i < list.length && ids.length < depth; i++) {
    if (seen.has(list[i])) continue;
    seen.add(list[i]);
    const s = given![i];
    if (!Number.isFinite(s)) throw new GbrError(`${label}: score ${s} for '${list[i]}' in query '${q}' is not a finite number`, "DATA");
    ids.push(list[i]);
    scores.push(s);
  }
  return { ids, scores };
}
