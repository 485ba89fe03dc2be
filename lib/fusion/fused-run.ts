/** What every fusion ends with, whatever it scores: the fused rankings and scores, the inputs' info and cost. */
import type { DocId, QueryId, Run } from "../types";
import { compareCodePoints } from "../util/code-points";
import { addCosts } from "../eval/run-cost";

/** Per query of any input, `fuse`'s scores sorted, ties by doc id in code-point order (as Python's sort), cut at `top`. */
export function fusedRun(runs: readonly Run[], name: string, top: number, fuse: (query: QueryId) => ReadonlyMap<DocId, number>): Run {
  const queries = new Set<QueryId>();
  for (const r of runs) for (const q of r.rankings.keys()) queries.add(q);
  const rankings = new Map<QueryId, DocId[]>();
  const scores = new Map<QueryId, number[]>();
  for (const q of queries) {
    const fused = [...fuse(q)].sort((a, b) => b[1] - a[1] || compareCodePoints(a[0], b[0])).slice(0, top);
    rankings.set(q, fused.map(([d]) => d));
    scores.set(q, fused.map(([, s]) => s));
  }
  const out: Run = { rankings, scores, info: { retriever: name, parts: runs.flatMap((r) => (r.info ? [r.info] : [])) } };
  const cost = addCosts(...runs.map((r) => r.cost));
  if (cost) out.cost = cost;
  return out;
}
