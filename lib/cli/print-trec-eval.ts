/** `gbr eval --format trec_eval`: the five metrics in trec_eval's output layout, for scripts written against it. */
import type { QueryId } from "../types";
import type { Metric, MetricValues } from "../eval/metrics";
import { trecEvalName } from "../eval/metric-names";
import { formatFixed } from "../util/format-fixed";
import { printable } from "../util/printable";

/** trec_eval prints its measures in the order of its measure table: recall, then ndcg_cut, then map_cut. */
const TREC_EVAL_ORDER: readonly Metric[] = ["Recall@10", "Recall@100", "nDCG@10", "nDCG@100", "MAP@100"];

/** One line as trec_eval's printf("%-22s\t%s\t%6.4f\n") writes it (exact ties half to even, as printf rounds). */
function line(metric: Metric, query: string, value: number): string {
  return `${trecEvalName(metric).padEnd(22)}\t${printable(query)}\t${formatFixed(value, 4).padStart(6)}\n`;
}

/** As trec_eval prints: with `perQuery` (its `-q`) each query's lines first, ids in byte order as it sorts, then "all". */
export function formatTrecEval(mean: MetricValues, perQuery?: Iterable<readonly [QueryId, MetricValues]>, metrics: readonly Metric[] = TREC_EVAL_ORDER): string {
  const order = TREC_EVAL_ORDER.filter((m) => metrics.includes(m));
  const out: string[] = [];
  if (perQuery) {
    const rows = [...perQuery].sort(([a], [b]) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
    for (const [q, m] of rows) for (const metric of order) out.push(line(metric, q, m[metric]));
  }
  for (const metric of order) out.push(line(metric, "all", mean[metric]));
  return out.join("");
}
