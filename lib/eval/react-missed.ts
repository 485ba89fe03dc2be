/**
 * The REACT diagnostic of the paper's appendix C.4: gold articles that the planner's queries
 * brought into BM25's top 100 but that the observer never kept. Candidate-pool recall minus
 * observer-kept recall says how much recall is lost this way; this says which query–article
 * pairs it is, and how many queries it touches.
 *
 * Pure: it reads the rounds REACT records per query (any value with the fields below; REACT's
 * trace rounds have them) and the qrels, and knows nothing about how REACT ran.
 */
import type { DocId, QueryId } from "../types";

/**
 * What the diagnostic needs of one REACT round: the BM25 results of the planner's query (1-based
 * ranks) and the articles the observer kept. REACT's `ReactRoundTrace` is one of these.
 */
export interface ReactRoundLike {
  retrieved: readonly { id: DocId; rank: number }[];
  kept: readonly { id: DocId }[];
}

/**
 * The missed gold of one round r: pairs (query, gold article) retrieved in some round ≤ r and
 * kept by the observer in no round ≤ r, and the queries with at least one such pair.
 */
export interface MissedGoldRound {
  round: number;
  missedGoldPairs: number;
  missedGoldQueries: number;
}

/**
 * One gold article retrieved but never kept by the last round, with how it was retrieved. The
 * fields, in this order, are the columns of react-missed.csv (MISSED_GOLD_COLUMNS).
 */
export interface MissedGoldPair {
  query: QueryId;
  article: DocId;
  /** The first round whose BM25 results held the article. */
  firstRetrievedRound: number;
  /** Its best (smallest) 1-based BM25 rank over the rounds that retrieved it. */
  bestRank: number;
  /** The number of rounds that retrieved it. */
  roundsRetrieved: number;
}

/**
 * What `reactMissedGold` returns: one entry per requested round that the run has, in the order
 * asked, and the pairs still missed after the run's last round.
 */
export interface MissedGold {
  rounds: MissedGoldRound[];
  /** The run's last round (the most rounds any query has); `pairs` are as of this round. */
  lastRound: number;
  pairs: MissedGoldPair[];
}

/**
 * The columns of react-missed.csv, in order: the fields of `MissedGoldPair`.
 */
export const MISSED_GOLD_COLUMNS = ["query", "article", "firstRetrievedRound", "bestRank", "roundsRetrieved"] as const;

/**
 * The paper's figure for this diagnostic (appendix C.4), on its 283 queries: by round 10, 98
 * relevant query–article pairs retrieved by the planner's queries are never kept by the
 * observer, in 64 queries. A reference line next to ours, not comparable on another query set.
 */
export const PAPER_MISSED_GOLD = { round: 10, pairs: 98, queries: 64, ofQueries: 283 } as const;

/** The rounds the paper reports REACT at (as its round table). */
const DEFAULT_ROUNDS: readonly number[] = [1, 2, 3, 5, 10];

/**
 * Gold articles REACT retrieved but the observer did not keep. `roundsByQuery` holds per query
 * its rounds in order (index r − 1 = round r); `qrels` the gold articles. For each requested
 * round r (default 1, 2, 3, 5, 10; those beyond the run's last round are left out), it counts
 * the (query, gold article) pairs retrieved in some round ≤ r yet kept in no round ≤ r, and
 * the queries with at least one; a gold article kept only after r counts as missed at r. Then
 * it lists the pairs still missed after the run's last round, with the first round that
 * retrieved each, its best BM25 rank and the number of rounds that retrieved it, sorted by
 * query (in `roundsByQuery` order), first round, best rank, then article id.
 *
 * Queries without gold, and gold of queries absent from `roundsByQuery`, contribute nothing.
 * A query with fewer rounds than r (a run cut short) counts with the rounds it has.
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

  // Per gold article of each query: the first round that retrieved it and the first that kept
  // it. Missed at r exactly when firstRetrieved ≤ r < firstKept (never kept: firstKept = ∞).
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
        // The observer only judges what this round retrieved, so a kept gold article is in `found`;
        // anything else kept (not gold) does not matter here.
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

/**
 * One row of `missedGoldByFirstRound`: of the pairs still missed after the last round, those
 * whose article first came up in this round, and the queries they belong to.
 */
export interface MissedFirstRoundRow {
  round: number;
  pairs: number;
  queries: number;
}

/**
 * In which round the missed gold appeared: per round 1 … `lastRound`, how many of the missed
 * pairs (`reactMissedGold(…).pairs`) were first retrieved in it. Many pairs in round 1 mean
 * the observer let go of gold that the planner's first query had already found; many late
 * ones, that the planner reached it only after several rounds and the observer still let it
 * go. Every round has a row (zeros included), so the rows sum to the number of pairs and
 * tables line up across runs.
 */
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
