/** Per-group breakdowns of per-query metrics by legal area (the paper's per-area Recall@100). */
import { NO_AREA, type QueryId, type QueryMeta } from "../types";
import { meanOf, METRICS, type MetricValues } from "./metrics";
import { describe } from "./statistics";

/** A legal area's query count, mean and sample SD (n − 1; NaN for a group of one) of each metric. */
export type GroupMetrics = ReturnType<typeof byArea>[number];

/** A group name for queries without a relevant article, shown as NO_AREA in figures. */
export const UNKNOWN_GROUP = "unknown";

/**
 * Mean metrics per legal area (none: NO_AREA, so counts add up), macro in perQuery order, rows by area name.
 *
 * @example
 * const { perQuery } = evaluate(run.rankings, bench.qrels);
 * byArea(perQuery, bench.meta).map((g) => [g.group, g.queries, g.mean["Recall@100"]]);
 * // [["civil", 60, 0.25], ["criminal", 55, 0.18], …]
 */
export function byArea(perQuery: ReadonlyMap<QueryId, MetricValues>, meta: ReadonlyMap<QueryId, QueryMeta>) {
  const groups = new Map<string, MetricValues[]>();
  for (const [qid, values] of perQuery) {
    const key = meta.get(qid)?.area || NO_AREA;
    if (!groups.has(key)) groups.set(key, []);
    groups.get(key)!.push(values);
  }
  return [...groups]
    .sort(([a], [b]) => compareCodeUnits(a, b))
    .map(([group, rows]) => ({
      group,
      queries: rows.length,
      mean: meanOf(rows),
      sd: Object.fromEntries(METRICS.map((m) => [m, rows.length > 1 ? describe(rows.map((r) => r[m])).sd : NaN])) as MetricValues,
    }));
}

/** Code-unit order: locale-independent, so tables do not change between machines. */
export function compareCodeUnits(x: string, y: string): number {
  return x < y ? -1 : x > y ? 1 : 0;
}
