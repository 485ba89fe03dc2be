/** Bootstrap intervals of each experiment's mean, from per-query.csv's rows, for the bar charts' whiskers. */
import { bootstrapCIs, type BootstrapInterval, type BootstrapOptions } from "./bootstrap";
import type { Metric } from "./metrics";
import { toNumber, type RowLike } from "../util/csv";

/** The report's bootstrap: 10,000 resamples, seed 42, 95% (the whiskers' caption says so). */
export const REPORT_BOOTSTRAP = { resamples: 10_000, seed: 42, level: 0.95 } as const;

/** Interval of each experiment's mean `metric`, by metric then experiment id. */
export type MetricIntervals = Map<string, Map<string, BootstrapInterval>>;

/**
 * Per metric and experiment, the percentile bootstrap interval of the mean over queries: sample 0 (the run that stands
 * for a repeated experiment, as in the significance tests), every query it has a value for. Experiments scored on the
 * same queries share one set of resamples (drawn once, paired; the usual case is a single set for the whole folder),
 * so 67 experiments × 2 metrics × 4,355 queries × 10,000 resamples take seconds, not minutes.
 */
export function metricIntervals(perQueryRows: readonly RowLike[], metrics: readonly Metric[], opts: BootstrapOptions & { experiments?: Iterable<string> } = {}): MetricIntervals {
  const only = opts.experiments ? new Set(opts.experiments) : undefined;
  // experiment -> metric -> query -> value, in file order.
  const values = new Map<string, Map<Metric, Map<string, number>>>();
  for (const r of perQueryRows) {
    const id = String(r.experiment ?? "");
    if (only && !only.has(id)) continue;
    if ((toNumber(r.sample) ?? 0) !== 0) continue;
    const query = String(r.query ?? "");
    let byMetric = values.get(id);
    if (!byMetric) values.set(id, (byMetric = new Map(metrics.map((m) => [m, new Map<string, number>()]))));
    for (const m of metrics) {
      const v = toNumber(r[m]);
      if (v !== undefined) byMetric.get(m)!.set(query, v);
    }
  }
  // Series on the same set of queries are paired: one bootstrap over them all, values in one query order.
  const groups = new Map<string, { queries: string[]; series: { id: string; metric: Metric; byQuery: Map<string, number> }[] }>();
  for (const [id, byMetric] of values) {
    for (const [metric, byQuery] of byMetric) {
      if (!byQuery.size) continue;
      const queries = [...byQuery.keys()];
      const key = [...queries].sort().join("\u0000");
      let g = groups.get(key);
      if (!g) groups.set(key, (g = { queries, series: [] }));
      g.series.push({ id, metric, byQuery });
    }
  }
  const out: MetricIntervals = new Map(metrics.map((m) => [m, new Map<string, BootstrapInterval>()]));
  const settings = { resamples: opts.resamples ?? REPORT_BOOTSTRAP.resamples, seed: opts.seed ?? REPORT_BOOTSTRAP.seed, level: opts.level ?? REPORT_BOOTSTRAP.level };
  for (const g of groups.values()) {
    const cis = bootstrapCIs(
      g.series.map((s) => Float64Array.from(g.queries, (q) => s.byQuery.get(q)!)),
      settings,
    );
    g.series.forEach((s, k) => out.get(s.metric)!.set(s.id, cis[k]));
  }
  return out;
}
