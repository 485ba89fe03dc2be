import { normalize } from "./exact-search";

/** Rocchio PRF for dense retrieval: q' = q + β · mean(feedback), renormalised (paper: β = 0.25 over the top 10). */
export function rocchio(query: ArrayLike<number>, feedback: readonly ArrayLike<number>[], beta = 0.25): Float32Array {
  const q = normalize(query);
  if (feedback.length === 0) return q;
  const out = new Float64Array(q.length);
  for (const v of feedback) {
    if (v.length !== q.length) throw new RangeError(`feedback vector has ${v.length} dimensions, query has ${q.length}`);
    for (let i = 0; i < q.length; i++) out[i] += v[i];
  }
  const scale = beta / feedback.length;
  for (let i = 0; i < q.length; i++) out[i] = q[i] + scale * out[i];
  return normalize(out);
}
