/** Bootstrap intervals of each experiment's mean, from per-query.csv's rows, for the bar charts' whiskers. */
import { bootstrapCIs, type BootstrapInterval, type BootstrapOptions } from "./bootstrap";
import type { Metric } from "./metrics";
import { toNumber, type RowLike } from "../util/csv";

/** The report's bootstrap: 10,000 resamples, seed 42, 95% (the whiskers' caption says so). */
export const REPORT_BOOTSTRAP = { resamples: 10_000, seed: 42, level: 0.95 } as const;

/** Per metric and experiment id, the bootstrap interval of the mean over sample 0's queries (as the significance tests). */
export function metricIntervals(
  perQueryRows: readonly RowLike[],
  metrics: readonly Metric[],
  opts: BootstrapOptions & { experiments?: Iterable<string> } = {},
): Map<string, Map<string, BootstrapInterval>> {
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
  const out = new Map(metrics.map((m) => [m, new Map<string, BootstrapInterval>()]));
  const settings = { resamples: opts.resamples ?? REPORT_BOOTSTRAP.resamples, seed: opts.seed ?? REPORT_BOOTSTRAP.seed, level: opts.level ?? REPORT_BOOTSTRAP.level };
  for (const g of groups.values()) {
    const cis = bootstrapCIs(g.series.map((s) => Float64Array.from(g.queries, (q) => s.byQuery.get(q)!)), settings);
    g.series.forEach((s, k) => out.get(s.metric)!.set(s.id, cis[k]));
  }
  return out;
}
