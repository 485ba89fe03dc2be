/** The one place metric names are read: every spelling the common IR tools use, resolved to the project's name. */
import { didYouMean } from "../util/suggest";
import { METRICS, type Metric } from "./metrics";

/** A metric as given by a user: the project's name or any spelling of `METRIC_SPELLINGS`, in any case. */
export type MetricName = Metric | (string & {});

/** A metric as this project, ranx, ir_measures and trec_eval spell it (trecEval: what trec_eval prints, pytrec_eval's key). */
export type MetricSpelling = { metric: Metric; ranx: string; irMeasures: string; trecEval: string };

export const METRIC_SPELLINGS: readonly MetricSpelling[] = [
  { metric: "nDCG@10", ranx: "ndcg@10", irMeasures: "nDCG@10", trecEval: "ndcg_cut_10" },
  { metric: "nDCG@100", ranx: "ndcg@100", irMeasures: "nDCG@100", trecEval: "ndcg_cut_100" },
  { metric: "Recall@10", ranx: "recall@10", irMeasures: "R@10", trecEval: "recall_10" },
  { metric: "Recall@100", ranx: "recall@100", irMeasures: "R@100", trecEval: "recall_100" },
  { metric: "MAP@100", ranx: "map@100", irMeasures: "AP@100", trecEval: "map_cut_100" },
];

/** A row's spellings: ours, ranx's, ir_measures', trec_eval's and its `-m` form (`ndcg_cut.10`). */
const spellingsOf = (s: MetricSpelling) => [s.metric, s.ranx, s.irMeasures, s.trecEval, s.trecEval.replace(/_(\d+)$/, ".$1")];

const BY_SPELLING: ReadonlyMap<string, Metric> = new Map(METRIC_SPELLINGS.flatMap((s) => spellingsOf(s).map((n) => [n.toLowerCase(), s.metric] as const)));

/** Every accepted spelling, in table order (the did-you-mean candidates). */
const METRIC_ALIASES: readonly string[] = [...new Set(METRIC_SPELLINGS.flatMap(spellingsOf))];

/**
 * The project's name of a metric given in any common spelling, case-insensitive; a RangeError with a suggestion
 * (and the five names) for anything else.
 *
 * @example
 * resolveMetric("ndcg_cut_10"); // "nDCG@10"
 * resolveMetric("R@100");       // "Recall@100"
 */
export function resolveMetric(name: MetricName): Metric {
  const metric = BY_SPELLING.get(String(name).trim().toLowerCase());
  if (metric) return metric;
  throw new RangeError(
    `unknown metric '${name}'${didYouMean(String(name), METRIC_ALIASES)} (known: ${METRICS.join(", ")}); ranx's, ir_measures' and trec_eval's spellings are read too`,
  );
}

/** The name trec_eval prints for a metric (`ndcg_cut_10` …). */
export function trecEvalName(metric: Metric): string {
  return METRIC_SPELLINGS.find((s) => s.metric === metric)!.trecEval;
}
