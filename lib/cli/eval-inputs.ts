/** What `gbr compare` and `gbr errors` read the same way: metric names. */
import type { Metric } from "../eval/metrics";
import { resolveMetric } from "../eval/metric-names";
import { CliError } from "./args";

/** Metric names from a repeatable, comma-separated option, in any common spelling; a usage error names the bad one. */
export function metricsOf(raw: unknown, command: string): Metric[] {
  const names = (Array.isArray(raw) ? raw : raw === undefined ? [] : [raw]).flatMap((m) => String(m).split(",")).map((m) => m.trim()).filter(Boolean);
  return [...new Set(names.map((n) => metricOf(n, command)))];
}

/** One metric name, in any common spelling; a usage error (exit 2) with a suggestion otherwise. */
export function metricOf(name: string, command: string): Metric {
  try {
    return resolveMetric(name);
  } catch (err) {
    throw new CliError(`gbr ${command}: ${(err as Error).message}`, 2);
  }
}
