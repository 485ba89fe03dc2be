/** REACT diagnostic of the paper's appendix C.4: gold the planner's queries brought into BM25's top 100, never kept. */
import type { DocId, QueryId } from "../types";

/** One REACT round's BM25 results (1-based ranks) and the articles the observer kept; `ReactRoundTrace` fits. */
export interface ReactRoundLike {
  retrieved: readonly { id: DocId; rank: number }[];
  kept: readonly { id: DocId }[];
}

/** Missed gold of round r: (query, gold) pairs retrieved in some round ≤ r and kept in none, and their queries. */
export interface MissedGoldRound {
  round: number;
  missedGoldPairs: number;
  missedGoldQueries: number;
}

/** A gold article retrieved but never kept by the last round; fields in the order of MISSED_GOLD_COLUMNS. */
export interface MissedGoldPair {
  query: QueryId;
  article: DocId;
  /** The first round whose BM25 results held the article. */
  firstRetrievedRound: number;
  /** Its best (smallest) 1-based BM25 rank over the rounds that retrieved it. */
  bestRank: number;
  roundsRetrieved: number;
}

/** One entry per requested round the run has (in the order asked), and the pairs still missed after the last. */
export interface MissedGold {
  rounds: MissedGoldRound[];
  /** The run's last round (the most rounds any query has); `pairs` are as of this round. */
  lastRound: number;
  pairs: MissedGoldPair[];
}

/** The columns of react-missed.csv, in order: the fields of `MissedGoldPair`. */
export const MISSED_GOLD_COLUMNS = ["query", "article", "firstRetrievedRound", "bestRank", "roundsRetrieved"] as const;

/** The paper's figure (C.4, 283 queries): by round 10, 98 gold pairs never kept, in 64 queries; not for other sets. */
export const PAPER_MISSED_GOLD = { round: 10, pairs: 98, queries: 64, ofQueries: 283 } as const;

/** The rounds the paper reports REACT at (as its round table). */
const DEFAULT_ROUNDS: readonly number[] = [1, 2, 3, 5, 10];

/**
 * Per requested round r (those past the run's last left out), the gold pairs retrieved in some round ≤ r yet kept
 * in none ≤ r; then the pairs still missed after the last round. A query with fewer rounds counts with those it has.
 */
export function reactMissedGold(
  roundsByQuery: ReadonlyMap<QueryId, readonly ReactRoundLike[]>,
  qrels: ReadonlyMap<QueryId, ReadonlySet<DocId>>,
  rounds: readonly number[] = DEFAULT_ROUNDS,
): MissedGold {
  for (const r of rounds) if (!Number.isInteger(r)) throw new RangeError(`rounds must be integers, got ${r}`);
  let lastRound = 0;
  for (const rs of roundsByQuery.values()) lastRound = Math.max(lastRound, rs.length);
  const asked = rounds.filter((r) => r >= 1 && r <= lastRound);

  // Missed at r exactly when firstRetrieved ≤ r < firstKept (never kept: firstKept = ∞).
  const perQuery: { query: QueryId; gold: { article: DocId; firstRetrieved: number; firstKept: number; bestRank: number; times: number }[] }[] = [];
  for (const [query, rs] of roundsByQuery) {
    const gold = qrels.get(query);
    if (!gold || gold.size === 0) continue;
    const found = new Map<DocId, { article: DocId; firstRetrieved: number; firstKept: number; bestRank: number; times: number }>();
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
  const summary = asked.map((round): MissedGoldRound => {
    let pairs = 0;
    let queries = 0;
    for (const q of perQuery) {
      const n = q.gold.filter((g) => missedAt(round, g)).length;
      pairs += n;
      if (n) queries++;
    }
    return { round, missedGoldPairs: pairs, missedGoldQueries: queries };
  });

  const pairs: MissedGoldPair[] = [];
  for (const q of perQuery) {
    const missed = q.gold
      .filter((g) => missedAt(lastRound, g))
      .sort((x, y) => x.firstRetrieved - y.firstRetrieved || x.bestRank - y.bestRank || (x.article < y.article ? -1 : x.article > y.article ? 1 : 0));
    for (const g of missed) pairs.push({ query: q.query, article: g.article, firstRetrievedRound: g.firstRetrieved, bestRank: g.bestRank, roundsRetrieved: g.times });
  }
  return { rounds: summary, lastRound, pairs };
}

/** Of the pairs still missed after the last round, those first retrieved in this round, and their queries. */
export interface MissedFirstRoundRow {
  round: number;
  pairs: number;
  queries: number;
}

/** Missed pairs by first-retrieved round (early: the observer let go; late: the planner was slow); zero rows kept. */
export function missedGoldByFirstRound(pairs: readonly MissedGoldPair[], lastRound: number): MissedFirstRoundRow[] {
  if (!(Number.isInteger(lastRound) && lastRound >= 0)) throw new RangeError(`lastRound must be an integer >= 0, got ${lastRound}`);
  const rows = Array.from({ length: lastRound }, (_, i) => ({ round: i + 1, pairs: 0, queries: new Set<QueryId>() }));
  for (const p of pairs) {
    const row = rows[p.firstRetrievedRound - 1];
    if (!row) throw new RangeError(`pair (${p.query}, ${p.article}) was first retrieved in round ${p.firstRetrievedRound}, outside rounds 1…${lastRound}`);
    row.pairs++;
    row.queries.add(p.query);
  }
  return rows.map((r) => ({ round: r.round, pairs: r.pairs, queries: r.queries.size }));
}
