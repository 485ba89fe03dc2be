/** A sweep as evaluation sees it: each (k1, b) setting's per-query metrics, the best and the default. */
import type { DocId, QueryId } from "../types";
import { type Metric, type MetricValues } from "./metrics";
import { resolveMetric, type MetricName } from "./metric-names";

export interface SweepEntry {
  k1: number;
  b: number;
  /** Macro average, summed in qrels order (as `evaluate` does). */
  mean: MetricValues;
  perQuery: Map<QueryId, MetricValues>;
  /** Positive-only top-100 ids per query; only with `keepRankings`. */
  rankings?: Map<QueryId, DocId[]>;
}

/** A setting and its value of the sweep's metric; `ties`: settings of the grid reaching that value (1: a unique best). */
export type SweepChoice = { k1: number; b: number; value: number; ties?: number };

/** What `bm25Sweep` returns: every setting's scores, the oracle best and the default. */
export interface SweepResult {
  /** Entries in grid order: k1 ascending, then b ascending within each k1. */
  grid: SweepEntry[];
  /** The highest mean of `metric` (a tie keeps the default, else the first), and rank_bm25's (1.5, 0.75). */
  best: SweepChoice;
  default: SweepChoice;
  /** The default's full entry: the grid's own when the grid has (1.5, 0.75), else run apart. */
  defaultEntry: SweepEntry;
  metric: Metric;
  k1s: readonly number[];
  bs: readonly number[];
  epsilon: number;
  /** The evaluated queries, in qrels order (the order every mean is summed in). */
  queryIds: QueryId[];
}

/** The item with the highest value; a tie goes to `prefer` (a flat grid keeps the defaults), else the earliest. */
export function firstBest<T>(items: readonly T[], value: (item: T) => number, prefer?: T): T {
  let best = items[0];
  let bestValue = value(best);
  for (let i = 1; i < items.length; i++) {
    const v = value(items[i]);
    if (v > bestValue) {
      best = items[i];
      bestValue = v;
    }
  }
  return prefer !== undefined && value(prefer) === bestValue ? prefer : best;
}

/** Mean `metric` with rows by b, columns by k1 (plotly's z[y][x]); NaN where the grid has no such setting. */
export function sweepHeatmap(sweep: SweepResult, name: MetricName = sweep.metric) {
  const metric = resolveMetric(name);
  const k1s = [...new Set(sweep.grid.map((e) => e.k1))].sort((x, y) => x - y);
  const bs = [...new Set(sweep.grid.map((e) => e.b))].sort((x, y) => x - y);
  const z = bs.map(() => k1s.map(() => Number.NaN));
  for (const e of sweep.grid) z[bs.indexOf(e.b)][k1s.indexOf(e.k1)] = e.mean[metric];
  return { metric, k1s, bs, z };
}
