/** CombSUM and CombMNZ (Fox and Shaw, 1993) over normalised scores, as ranx computes them. */
import type { Run } from "../types";
import { compareCodePoints } from "../util/code-points";
import { GbrError } from "../util/errors";
import { addCosts } from "../util/run-cost";
import { normalizeScores, type ScoreNorm } from "./normalize";

/** combsum: Σ of a document's normalised scores; combmnz: that sum × the number of runs that retrieved it. */
export type CombMethod = "combsum" | "combmnz";

export const COMB_METHODS: readonly CombMethod[] = ["combsum", "combmnz"];

export interface CombOptions {
  method: CombMethod;
  norm: ScoreNorm;
  /** Ranks read per input run (default 100); normalisation is over these. */
  depth?: number;
  /** Length of the fused ranking (default 100). */
  top?: number;
  /** The fused run's name in its record and in messages (default: method-norm). */
  name?: string;
}

/**
 * Score fusion: each input's list for a query is normalised on its own (its top `depth`), then a document's scores
 * are summed over the runs that retrieved it (a run that did not adds nothing, as ranx's 0 default), and for
 * CombMNZ multiplied by how many runs retrieved it (a normalised 0 still counts as retrieved). Sorted by score, ties
 * by doc id in code-point order; keeps `top`. Every input needs scores: a rank-only run is a usage error.
 *
 * @example
 * const fused = combFuse([bm25Run, denseRun], { method: "combmnz", norm: "minmax" });
 */
export function combFuse(runs: readonly Run[], opts: CombOptions): Run {
  const depth = opts.depth ?? 100;
  const top = opts.top ?? 100;
  const name = opts.name ?? `${opts.method}-${opts.norm}`;
  const rankings = new Map<string, string[]>();
  const scores = new Map<string, number[]>();
  for (const q of queryIds(runs)) {
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
    const fused = [...sums]
      .map(([d, s]): [string, number] => [d, opts.method === "combmnz" ? s * hits.get(d)! : s])
      .sort((a, b) => b[1] - a[1] || compareCodePoints(a[0], b[0]))
      .slice(0, top);
    rankings.set(q, fused.map(([d]) => d));
    scores.set(q, fused.map(([, s]) => s));
  }
  const out: Run = { rankings, scores, info: { retriever: name, parts: runs.flatMap((r) => (r.info ? [r.info] : [])) } };
  const cost = addCosts(...runs.map((r) => r.cost));
  if (cost) out.cost = cost;
  return out;
}

/** Every query of any input, in first-seen order (a query one input lacks is an empty list there). */
function queryIds(runs: readonly Run[]): string[] {
  const seen = new Set<string>();
  for (const r of runs) for (const q of r.rankings.keys()) seen.add(q);
  return [...seen];
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
