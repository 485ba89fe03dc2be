/** MTEB's TaskResult of one run (`gbr eval --format mteb`): its retrieval scores, with pytrec_eval's definitions. */
import { relevantCount, type Judged, type Qrels, type Ranking, type Run } from "../types";
import { dedupeCut, gainOf, idealGains } from "./metrics";
import { formatFixed } from "../util/format-fixed";

/** The cuts MTEB's retrieval evaluator reports. */
export const MTEB_CUTS = [1, 3, 5, 10, 20, 100, 1000] as const;

/** One query's ndcg/map/recall/precision/mrr at each cut: map and recall ÷ all relevant, precision ÷ k (pytrec_eval). */
function queryScores(ranking: Ranking, judged: Judged): Record<string, number> {
  const gains = dedupeCut(ranking, 1000).map((id) => gainOf(judged, id));
  const ideal = idealGains(judged);
  const out: Record<string, number> = {};
  for (const k of MTEB_CUTS) {
    let [dcg, idcg, hits, ap, rr] = [0, 0, 0, 0, 0];
    for (let i = 0; i < Math.min(k, gains.length); i++) {
      if (!(gains[i] > 0)) continue;
      hits++;
      dcg += gains[i] / Math.log2(i + 2);
      ap += hits / (i + 1);
      rr ||= 1 / (i + 1);
    }
    for (let i = 0; i < Math.min(k, ideal.length); i++) idcg += ideal[i] / Math.log2(i + 2);
    Object.assign(out, { [`ndcg_at_${k}`]: dcg / idcg, [`map_at_${k}`]: ap / ideal.length, [`recall_at_${k}`]: hits / ideal.length, [`precision_at_${k}`]: hits / k, [`mrr_at_${k}`]: rr });
  }
  return out;
}

/**
 * MTEB's scores of a run, averaged over the queries `evaluate` counts (a query the run lacks: 0), rounded as MTEB
 * writes them (pytrec_eval's means to 5 decimals, MRR to 6); main_score is ndcg_at_10.
 *
 * @example
 * mtebScores(run.rankings, bench.qrels).map_at_100;
 */
export function mtebScores(rankings: Run["rankings"], qrels: Qrels): Record<string, number> {
  const sums: Record<string, number> = {};
  let n = 0;
  for (const [qid, judged] of qrels) {
    if (relevantCount(judged) === 0) continue;
    n++;
    for (const [name, v] of Object.entries(queryScores(rankings.get(qid) ?? [], judged))) sums[name] = (sums[name] ?? 0) + v;
  }
  const mean = Object.fromEntries(Object.entries(sums).map(([name, s]) => [name, Number(formatFixed(s / n, name.startsWith("mrr") ? 6 : 5))]));
  return { main_score: mean.ndcg_at_10, ...mean };
}

/**
 * The TaskResult JSON MTEB reads (mteb/results/task_result.py): one "test" split, the "default" subset in Greek.
 * `revision`: the dataset's Hub commit; MTEB's own word for none when the data did not come from the Hub. mteb_version
 * and evaluation_time are null: mteb did not compute these scores, and a run file does not say how long it took.
 *
 * @example
 * JSON.stringify(mtebTaskResult(run.rankings, qrels, { taskName: "GreekBarRetrieval", revision: manifest.sha }));
 */
export function mtebTaskResult(rankings: Run["rankings"], qrels: Qrels, dataset: { taskName: string; revision?: string; split?: string }) {
  const scores = { hf_subset: "default", languages: ["ell-Grek"], ...mtebScores(rankings, qrels) };
  return { dataset_revision: dataset.revision ?? "revision_not_applicable", evaluation_time: null, kg_co2_emissions: null, mteb_version: null, scores: { [dataset.split ?? "test"]: [scores] }, task_name: dataset.taskName };
}
