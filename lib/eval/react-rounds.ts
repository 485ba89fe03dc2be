/** The paper's REACT round table (C.4): kept vs candidate-pool Recall@100, calls, tokens; no lib/llm dependency. */
import type { DocId, QueryId, Run } from "../types";
import { evaluate } from "./metrics";

export const PAPER_ROUNDS: readonly number[] = [1, 2, 3, 5, 10];

/**
 * What the round table reads of a REACT run (a `ReactRunResult` is one): by round r, the kept rankings and every article
 * retrieved in rounds 1..r (not cut at 100); per query, calls, tokens and seconds of rounds 1..r (index r − 1).
 */
type ReactRoundsView = {
  rounds: number;
  queryIds: readonly QueryId[];
  kept: ReadonlyMap<number, Run>;
  candidates: ReadonlyMap<number, Run>;
  perRound: ReadonlyMap<QueryId, readonly { calls: number; input: number; output: number; seconds: number }[]>;
};

export type ReactRoundRow = ReturnType<typeof reactRoundTable>[number];

/** Per round the run has: Recall@100 of the kept ranking and of the pool so far, mean LLM cost per query to then. */
export function reactRoundTable(result: ReactRoundsView, qrels: ReadonlyMap<QueryId, ReadonlySet<DocId>>, rounds = PAPER_ROUNDS) {
  const rows = [];
  const n = result.queryIds.length;
  for (const r of rounds) {
    if (r < 1 || r > result.rounds) continue;
    const kept = evaluate(result.kept.get(r)!.rankings, qrels).mean["Recall@100"];
    let poolSum = 0;
    let judged = 0;
    for (const [qid, gold] of qrels) {
      if (gold.size === 0) continue;
      judged++;
      const pool = new Set(result.candidates.get(r)!.rankings.get(qid) ?? []);
      let hits = 0;
      for (const g of gold) if (pool.has(g)) hits++;
      poolSum += hits / gold.size;
    }
    const cost = { calls: 0, input: 0, output: 0, seconds: 0 };
    for (const q of result.queryIds) {
      const t = result.perRound.get(q)![r - 1];
      for (const key of ["calls", "input", "output", "seconds"] as const) cost[key] += t[key];
    }
    rows.push({
      round: r,
      keptRecall100: kept,
      candidateRecall100: judged ? poolSum / judged : 0,
      callsPerQuery: n ? cost.calls / n : 0,
      tokensPerQuery: n ? (cost.input + cost.output) / n : 0,
      inputTokensPerQuery: n ? cost.input / n : 0,
      outputTokensPerQuery: n ? cost.output / n : 0,
      secondsPerQuery: n ? cost.seconds / n : 0,
    });
  }
  return rows;
}
