/** The one place metric names are read: every spelling the common IR tools use, resolved to the project's name. */
import { didYouMean } from "../util/suggest";
import type { CutKind, CutMetric, EvalMetric, Metric } from "./metrics";

/** A metric as given by a user: the project's name or any spelling `resolveEvalMetric` reads, in any case. */
export type MetricName = EvalMetric | (string & {});

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

const FIVE = METRIC_SPELLINGS.map((s) => s.metric).join(", ");

/** The metrics at any cut k beside the five: the project's, ranx's and ir_measures' name@k, trec_eval's name_k or name.k. */
const AT_K = /^(mrr|rr|p|precision|success|hit_rate|judged)@(\d+)$/;
const TREC_K = /^(recip_rank|p|success)[_.](\d+)$/;
const CUT_OF: Record<string, CutKind> = { mrr: "MRR", rr: "MRR", recip_rank: "MRR", p: "P", precision: "P", success: "Success", hit_rate: "Success", judged: "Judged" };
/** Their spellings at k = 10, in the order project, ranx, ir_measures, trec_eval (the did-you-mean candidates). */
const CUT_ALIASES = ["MRR@10", "mrr@10", "RR@10", "recip_rank_10", "P@10", "precision@10", "P_10", "Success@10", "hit_rate@10", "success_10", "Judged@10"];

/** A cut metric's spelling as the project names it, or undefined when the name is none; a bad k is a RangeError. */
function cutMetricOf(name: string): CutMetric | undefined {
  const m = AT_K.exec(name.toLowerCase()) ?? TREC_K.exec(name.toLowerCase());
  if (!m) return undefined;
  const k = Number(m[2]);
  if (!(k >= 1 && Number.isSafeInteger(k))) throw new RangeError(`metric '${name}': k must be a whole number from 1`);
  return `${CUT_OF[m[1]]}@${k}`;
}

/**
 * The project's name of one of the paper's five metrics given in any common spelling, case-insensitive; a RangeError
 * with a suggestion (and the five names) for anything else, a metric at any cut (`resolveEvalMetric`) included.
 *
 * @example
 * resolveMetric("ndcg_cut_10"); // "nDCG@10"
 * resolveMetric("R@100");       // "Recall@100"
 */
export function resolveMetric(name: MetricName): Metric {
  const metric = BY_SPELLING.get(String(name).trim().toLowerCase());
  if (metric) return metric;
  if (cutMetricOf(String(name).trim())) {
    throw new RangeError(`'${name}' is one of gbr eval's metrics at any cut (MRR@k, P@k, Success@k, Judged@k); here only the paper's five: ${FIVE}`);
  }
  throw new RangeError(`unknown metric '${name}'${didYouMean(String(name), METRIC_ALIASES)} (known: ${FIVE}); ranx's, ir_measures' and trec_eval's spellings are read too`);
}

/**
 * `resolveMetric`, and the metrics at any cut k that `evaluate` and `gbr eval --metrics` add: MRR@k, P@k, Success@k,
 * Judged@k, as ranx (mrr@k, precision@k, hit_rate@k), ir_measures (RR@k, P@k, Success@k, Judged@k) and trec_eval
 * (recip_rank_k, P_k, success_k, or with `.k`) spell them.
 *
 * @example
 * resolveEvalMetric("hit_rate@10"); // "Success@10"
 * resolveEvalMetric("P_5");         // "P@5"
 */
export function resolveEvalMetric(name: MetricName): EvalMetric {
  const trimmed = String(name).trim();
  const metric = BY_SPELLING.get(trimmed.toLowerCase()) ?? cutMetricOf(trimmed);
  if (metric) return metric;
  throw new RangeError(
    `unknown metric '${name}'${didYouMean(trimmed, [...METRIC_ALIASES, ...CUT_ALIASES])} (known: ${FIVE}, and MRR@k, P@k, Success@k, Judged@k); ranx's, ir_measures' and trec_eval's spellings are read too`,
  );
}

/** The name trec_eval prints for a metric (`ndcg_cut_10` …). */
export function trecEvalName(metric: Metric): string {
  return METRIC_SPELLINGS.find((s) => s.metric === metric)!.trecEval;
}
