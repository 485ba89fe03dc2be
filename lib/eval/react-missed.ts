/** REACT diagnostic of the paper's appendix C.4: gold the planner's queries brought into BM25's top 100, never kept. */
import type { DocId, QueryId } from "../types";
import { PAPER_ROUNDS } from "./react-rounds";
import { compareCodeUnits } from "./breakdown";

/** One REACT round's BM25 results (1-based ranks) and the articles the observer kept; `ReactRoundTrace` fits. */
export type ReactRoundLike = { retrieved: readonly { id: DocId; rank: number }[]; kept: readonly { id: DocId }[] };

/** A gold article retrieved but never kept by the last round (best: smallest BM25 rank); MISSED_GOLD_COLUMNS' order. */
type MissedGoldPair = { query: QueryId; article: DocId; firstRetrievedRound: number; bestRank: number; roundsRetrieved: number };

/** Per round r asked, the (query, gold) pairs retrieved and not kept by r; `pairs`: those still missed at the last round. */
export type MissedGold = ReturnType<typeof reactMissedGold>;

/** The columns of react-missed.csv, in order: the fields of `MissedGoldPair`. */
export const MISSED_GOLD_COLUMNS = ["query", "article", "firstRetrievedRound", "bestRank", "roundsRetrieved"] as const;

/** The paper's figure (C.4, 283 queries): by round 10, 98 gold pairs never kept, in 64 queries; not for other sets. */
export const PAPER_MISSED_GOLD = { round: 10, pairs: 98, queries: 64, ofQueries: 283 } as const;

/** Rounds past the run's last are left out; a query with fewer rounds counts with those it has. */
export function reactMissedGold(
  roundsByQuery: ReadonlyMap<QueryId, readonly ReactRoundLike[]>,
  qrels: ReadonlyMap<QueryId, ReadonlySet<DocId>>,
  rounds = PAPER_ROUNDS,
) {
  for (const r of rounds) if (!Number.isInteger(r)) throw new RangeError(`rounds must be integers, got ${r}`);
  let lastRound = 0;
  for (const rs of roundsByQuery.values()) lastRound = Math.max(lastRound, rs.length);
  const asked = rounds.filter((r) => r >= 1 && r <= lastRound);

  // Missed at r exactly when firstRetrieved ≤ r < firstKept (never kept: firstKept = ∞).
  type Found = { article: DocId; firstRetrieved: number; firstKept: number; bestRank: number; times: number };
  const perQuery: { query: QueryId; gold: Found[] }[] = [];
  for (const [query, rs] of roundsByQuery) {
    const gold = qrels.get(query);
    if (!gold || gold.size === 0) continue;
    const found = new Map<DocId, Found>();
    rs.forEach((round, i) => {
      const r = i + 1;
      // An article listed twice in one round's results counts once, at its better rank.
      const ranks = new Map<DocId, number>();
      for (const { id, rank } of round.retrieved) if (gold.has(id)) ranks.set(id, Math.min(rank, ranks.get(id) ?? Infinity));
      for (const [article, rank] of ranks) {
        const g = found.get(article);
        if (!g) found.set(article, { article, firstRetrieved: r, firstKept: Infinity, bestRank: rank, times: 1 });
        else {
          g.bestRank = Math.min(g.bestRank, rank);
          g.times++;
        }
      }
      for (const { id } of round.kept) {
        const g = found.get(id);
        // The observer judges only this round's results, so kept gold is always in `found`.
        if (g && g.firstKept === Infinity) g.firstKept = r;
      }
    });
    if (found.size) perQuery.push({ query, gold: [...found.values()] });
  }

  const missedAt = (r: number, g: { firstRetrieved: number; firstKept: number }) => g.firstRetrieved <= r && g.firstKept > r;
  const summary = asked.map((round) => {
    const counts = perQuery.map((q) => q.gold.filter((g) => missedAt(round, g)).length);
    return { round, missedGoldPairs: counts.reduce((s, n) => s + n, 0), missedGoldQueries: counts.filter((n) => n > 0).length };
  });
  const pairs = perQuery.flatMap((q) =>
    q.gold
      .filter((g) => missedAt(lastRound, g))
      .sort((x, y) => x.firstRetrieved - y.firstRetrieved || x.bestRank - y.bestRank || compareCodeUnits(x.article, y.article))
      .map((g) => ({ query: q.query, article: g.article, firstRetrievedRound: g.firstRetrieved, bestRank: g.bestRank, roundsRetrieved: g.times })),
  );
  return { rounds: summary, lastRound, pairs };
}

export type MissedFirstRoundRow = ReturnType<typeof missedGoldByFirstRound>[number];

/** Missed pairs and their queries by first-retrieved round (early: the observer let go; late: the planner was slow). */
export function missedGoldByFirstRound(pairs: readonly MissedGoldPair[], lastRound: number) {
  const rows = Array.from({ length: lastRound }, (_, i) => ({ round: i + 1, pairs: 0, queries: new Set<QueryId>() }));
  for (const p of pairs) {
    const row = rows[p.firstRetrievedRound - 1];
    if (!row) throw new RangeError(`pair (${p.query}, ${p.article}) was first retrieved in round ${p.firstRetrievedRound}, outside rounds 1…${lastRound}`);
    row.pairs++;
    row.queries.add(p.query);
  }
  return rows.map((r) => ({ round: r.round, pairs: r.pairs, queries: r.queries.size }));
}
