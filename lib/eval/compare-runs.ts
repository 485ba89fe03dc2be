/** Paired randomization tests, run pairs × metrics, Holm-corrected over all: what `gbr compare` computes. */
import { relevantCount, type Qrels, type QueryId } from "../types";
import { METRICS, type Metric, type MetricValues } from "./metrics";
import { resolveMetric, type MetricName } from "./metric-names";
import { holm, pairedRandomizationTest, type RandomizationOptions } from "./randomization";
import { Pcg64 } from "./random";

/** One run's per-query metric values, as `evaluate(...).perQuery` gives them. */
export interface RunScores {
  name: string;
  perQuery: ReadonlyMap<QueryId, MetricValues>;
}

/** One test, with exactly the fields (and order) of `gbr compare --json` (DESIGN.md §4). */
export interface SignificanceTest {
  a: string;
  b: string;
  metric: Metric;
  meanA: number;
  meanB: number;
  /** meanA − meanB */
  delta: number;
  p: number;
  /** Holm-adjusted over every test of the comparison */
  pHolm: number;
}

/** `JSON.stringify` of it is the `gbr compare --json` output. */
export interface Comparison {
  tests: SignificanceTest[];
}

export interface CompareOptions extends RandomizationOptions {
  /** Default all five, in METRICS order; any spelling `resolveMetric` reads. */
  metrics?: readonly MetricName[];
  /** Pairs tested a against b (default every pair, in run order). */
  pairs?: readonly (readonly [string, string])[];
}

/**
 * Queries as `evaluate` counts them, in qrels order (it decides which flip meets which query). Tests run pair by
 * pair, metrics in order, on one numpy stream (`default_rng(seed)` or `opts.rng`), as the authors' notebook does.
 */
export function compareRuns(
  runs: readonly RunScores[],
  queries: Qrels | Iterable<QueryId>,
  opts: CompareOptions = {},
): Comparison {
  const qids = comparedQueries(queries);
  const metrics = [...new Set((opts.metrics ?? METRICS).map(resolveMetric))];
  const byName = new Map<string, RunScores>();
  for (const r of runs) {
    if (byName.has(r.name)) throw new RangeError(`two runs are named '${r.name}'`);
    byName.set(r.name, r);
  }
  const pairs: (readonly [string, string])[] = [];
  if (opts.pairs) {
    for (const [a, b] of opts.pairs) {
      for (const name of [a, b]) if (!byName.has(name)) throw new RangeError(`pair ${a} vs ${b}: no run named '${name}' (runs: ${[...byName.keys()].join(", ")})`);
      pairs.push([a, b]);
    }
  } else {
    for (let i = 0; i < runs.length; i++) for (let j = i + 1; j < runs.length; j++) pairs.push([runs[i].name, runs[j].name]);
  }
  const column = (run: RunScores, m: Metric) => qids.map((q) => run.perQuery.get(q)?.[m] ?? 0);
  const raw: Omit<SignificanceTest, "pHolm">[] = [];
  const rng = opts.rng ?? Pcg64.fromSeed(opts.seed ?? 42);
  for (const [a, b] of pairs) {
    const ra = byName.get(a)!;
    const rb = byName.get(b)!;
    for (const metric of metrics) {
      const r = pairedRandomizationTest(column(ra, metric), column(rb, metric), { swaps: opts.swaps, rng });
      raw.push({ a, b, metric, meanA: r.meanA, meanB: r.meanB, delta: r.delta, p: r.p });
    }
  }
  const adjusted = holm(raw.map((t) => t.p));
  // Keys in the documented order: JSON output follows it.
  return { tests: raw.map((t, i) => ({ a: t.a, b: t.b, metric: t.metric, meanA: t.meanA, meanB: t.meanB, delta: t.delta, p: t.p, pHolm: adjusted[i] })) };
}

/** A qrels map's queries with a relevant document (as `evaluate` counts them), or the ids as given. */
export function comparedQueries(queries: Qrels | Iterable<QueryId>): QueryId[] {
  return queries instanceof Map
    ? [...(queries as Qrels)].filter(([, g]) => relevantCount(g) > 0).map(([q]) => q)
    : [...(queries as Iterable<QueryId>)];
}
