/**
 * Reproducibility measures of Breuer et al., "How to Measure the Reproducibility of System-oriented IR Experiments"
 * (SIGIR 2020), as their repro_eval computes them: KTU and RBO between rankings, RMSE, ER, ΔRI and paired t-tests.
 */
import type { Qrels, Ranking, Run } from "../types";
import { comparedQueries } from "./compare-runs";
import { dedupeCut, evaluate, type Metric } from "./metrics";
import { pairedTTest } from "./statistics";

/** repro_eval's defaults: runs cut at 1,000 documents, RBO's persistence p = 0.8. */
export const REPRO_DEPTH = 1000;
export const RBO_P = 0.8;

/**
 * Kendall's τ Union of one topic, repro_eval's recipe: each ranking's documents replaced by their positions in the
 * sorted union of both, then τ between the two sequences, rank by rank. A repeated id counts at its first rank, so
 * neither sequence has ties and τ-b is τ-a; lists of unequal length (which repro_eval cannot pair) are cut to the
 * shorter. NaN below two documents.
 *
 * @example
 * kendallTauUnion(["a", "b", "c"], ["b", "a", "c"], 1000); // 1/3
 */
export function kendallTauUnion(orig: Ranking, rep: Ranking, depth = REPRO_DEPTH): number {
  const [a0, b0] = [dedupeCut(orig, depth), dedupeCut(rep, depth)];
  const n = Math.min(a0.length, b0.length);
  if (n < 2) return NaN;
  const [a, b] = [a0.slice(0, n), b0.slice(0, n)];
  const union = [...new Set([...a, ...b])].sort();
  const position = new Map(union.map((d, i) => [d, i]));
  const [x, y] = [a.map((d) => position.get(d)!), b.map((d) => position.get(d)!)];
  let score = 0;
  for (let i = 0; i < n; i++) for (let j = i + 1; j < n; j++) score += Math.sign(x[i] - x[j]) * Math.sign(y[i] - y[j]);
  return score / ((n * (n - 1)) / 2);
}

/**
 * Rank-biased overlap of one topic, extrapolated (Webber, Moffat and Zobel, TOIS 2010, eq. 32, which takes lists of
 * unequal length), repro_eval's `misinfo=False` variant (its default now truncates at 1,000 instead; the two agree to
 * ~1e-9 at p = 0.8 on rankings of 50 or more). 1 for equal lists, 0 for disjoint ones.
 *
 * @example
 * rankBiasedOverlap(["a", "b", "c"], ["b", "a", "c"], 0.8, 1000); // 0.8
 */
export function rankBiasedOverlap(orig: Ranking, rep: Ranking, p = RBO_P, depth = REPRO_DEPTH): number {
  const [short, long] = [dedupeCut(orig, depth), dedupeCut(rep, depth)].sort((u, v) => u.length - v.length);
  const [s, l] = [short.length, long.length];
  if (s === 0) return 0;
  // overlap[d]: documents in the first d of both (the short list stops at s), each counted from the deeper of its ranks.
  const rankInLong = new Map(long.map((doc, i) => [doc, i + 1]));
  const overlap = new Array<number>(l + 1).fill(0);
  short.forEach((doc, i) => {
    const r = rankInLong.get(doc);
    if (r !== undefined) overlap[Math.max(i + 1, r)]++;
  });
  for (let d = 1; d <= l; d++) overlap[d] += overlap[d - 1];
  let sum = 0;
  for (let d = 1; d <= l; d++) sum += (overlap[d] / d + (d > s ? (overlap[s] * (d - s)) / (s * d) : 0)) * p ** d;
  return ((1 - p) / p) * sum + ((overlap[l] - overlap[s]) / l + overlap[s] / s) * p ** l;
}

/** The mean of the topics that have a value (a topic of one document has no τ). */
export function meanOverTopics(values: readonly number[]): number {
  const defined = values.filter((v) => !Number.isNaN(v));
  return defined.reduce((a, b) => a + b, 0) / defined.length;
}

/**
 * Root mean square error between original and reproduced per-topic scores of one metric.
 *
 * @example
 * rmse([0.5, 1, 0], [0.25, 1, 0.5]); // √(0.3125 / 3) ≈ 0.3227
 */
export function rmse(orig: readonly number[], rep: readonly number[]): number {
  if (orig.length !== rep.length) throw new RangeError(`rmse needs equally long inputs, got ${orig.length} and ${rep.length}`);
  return Math.sqrt(orig.reduce((sum, x, i) => sum + (x - rep[i]) ** 2, 0) / orig.length);
}

/** The means of one metric for a pair of systems. */
export type PairMeans = { baseline: number; advanced: number };

/**
 * Effect Ratio: the mean per-topic improvement of the advanced system over the baseline, reproduced over original.
 * A mean of differences is the difference of means, so the paper's table of means is enough. 1: the same effect;
 * below 1 a smaller one; ±Infinity when the original improves nothing.
 *
 * @example
 * effectRatio({ baseline: 0.4, advanced: 0.5 }, { baseline: 0.4, advanced: 0.45 }); // 0.5
 */
export function effectRatio(orig: PairMeans, rep: PairMeans): number {
  return (rep.advanced - rep.baseline) / (orig.advanced - orig.baseline);
}

/**
 * ΔRI = RI_orig − RI_rep, with RI = (advanced − baseline) / baseline on the means. 0: the same relative improvement;
 * above 0 a smaller one reproduced.
 *
 * @example
 * deltaRI({ baseline: 0.4, advanced: 0.5 }, { baseline: 0.4, advanced: 0.45 }); // 0.25 − 0.125 = 0.125
 */
export function deltaRI(orig: PairMeans, rep: PairMeans): number {
  const ri = (m: PairMeans) => (m.advanced - m.baseline) / m.baseline;
  return ri(orig) - ri(rep);
}

export type ReproRuns = { baseline: Run; advanced: Run; repBaseline: Run; repAdvanced: Run };
type ByMetric = Partial<Record<Metric, number>>;

/**
 * Every measure of `gbr repro`: KTU and RBO averaged over the topics both runs of a system rank; per metric over the
 * qrels' judged topics (a topic a run misses scoring 0), RMSE, ER, ΔRI and the two-sided paired t-test's p between
 * original and reproduced scores.
 *
 * @example
 * reproMeasures({ baseline, advanced, repBaseline, repAdvanced }, qrels, { metrics: ["nDCG@10"] }).ER["nDCG@10"];
 */
export function reproMeasures(runs: ReproRuns, qrels: Qrels, opts: { metrics: readonly Metric[]; depth?: number; p?: number }) {
  const topics = comparedQueries(qrels);
  const scores = (run: Run) => {
    const { perQuery } = evaluate(run.rankings, qrels);
    return (m: Metric) => topics.map((q) => perQuery.get(q)?.[m] ?? 0);
  };
  const [ob, oa, rb, ra] = [runs.baseline, runs.advanced, runs.repBaseline, runs.repAdvanced].map(scores);
  const agreement = (measure: (o: Ranking, r: Ranking) => number) => (orig: Run, rep: Run) =>
    meanOverTopics([...rep.rankings].filter(([q]) => orig.rankings.has(q)).map(([q, r]) => measure(orig.rankings.get(q)!, r)));
  const ktu = agreement((o, r) => kendallTauUnion(o, r, opts.depth));
  const rbo = agreement((o, r) => rankBiasedOverlap(o, r, opts.p, opts.depth));
  const perMetric = (f: (m: Metric) => number): ByMetric => Object.fromEntries(opts.metrics.map((m) => [m, f(m)]));
  const means = (b: typeof ob, a: typeof ob) => (m: Metric): PairMeans => ({ baseline: meanOverTopics(b(m)), advanced: meanOverTopics(a(m)) });
  const [orig, rep] = [means(ob, oa), means(rb, ra)];
  return {
    KTU: { baseline: ktu(runs.baseline, runs.repBaseline), advanced: ktu(runs.advanced, runs.repAdvanced) },
    RBO: { baseline: rbo(runs.baseline, runs.repBaseline), advanced: rbo(runs.advanced, runs.repAdvanced) },
    RMSE: { baseline: perMetric((m) => rmse(ob(m), rb(m))), advanced: perMetric((m) => rmse(oa(m), ra(m))) },
    ER: perMetric((m) => effectRatio(orig(m), rep(m))),
    DeltaRI: perMetric((m) => deltaRI(orig(m), rep(m))),
    pValues: { baseline: perMetric((m) => pairedTTest(ob(m), rb(m)).p), advanced: perMetric((m) => pairedTTest(oa(m), ra(m)).p) },
  };
}
