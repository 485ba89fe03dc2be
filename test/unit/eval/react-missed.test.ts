import { test } from "node:test";
import assert from "node:assert/strict";
import { MISSED_GOLD_COLUMNS, PAPER_MISSED_GOLD, reactMissedGold, type ReactRoundLike } from "../../../lib/eval/react-missed";
import { Pcg64 } from "../../../lib/numeric/random";
import type { ReactRoundTrace } from "../../../lib/llm/react-traces";
import type { QueryId } from "../../../lib/types";

/** A round from "id:rank" strings and kept ids. */
const round = (retrieved: string[], kept: string[] = []): ReactRoundLike => ({
  retrieved: retrieved.map((s) => ({ id: s.split(":")[0], rank: Number(s.split(":")[1]) })),
  kept: kept.map((id) => ({ id })),
});

// Three rounds; queries deliberately not in alphabetical order (the pairs follow this order).
const ROUNDS = new Map<QueryId, ReactRoundLike[]>([
  // f1 and f2: same first round and best rank, so the article id decides.
  ["qF", [round(["f2:6", "f1:4", "x:1"], ["x"]), round(["f2:4"]), round([])]],
  [
    "qA",
    [
      round(["x:1", "g1:2", "g2:5"], ["x"]), // g1, g2 retrieved, not kept
      round(["g1:1", "g3:1", "g2:9", "g3:8"], ["g1"]), // g1 kept now: missed at round 1 only; g3 listed twice
      round(["g2:3", "g4:7"]), // g4 retrieved in the last round only
    ],
  ],
  ["qB", [round(["h1:10"], ["h1"]), round(["h1:2"]), round([])]], // kept at once, never missed
  ["qC", [round(["g1:1", "c:2"]), round([]), round([])]], // no gold at all
  ["qE", [round(["e2:1", "e1:3"]), round(["e1:2", "e2:1"], ["e2"])]], // only two rounds (cut short)
]);
const QRELS = new Map<QueryId, Set<string>>([
  ["qA", new Set(["g1", "g2", "g3", "g4", "never-retrieved"])],
  ["qB", new Set(["h1"])],
  ["qC", new Set<string>()],
  ["qD", new Set(["d1"])], // not in the run
  ["qE", new Set(["e1", "e2"])],
  ["qF", new Set(["f1", "f2"])],
]);

test("reactMissedGold: a hand-built run, round by round", () => {
  const missed = reactMissedGold(ROUNDS, QRELS);
  assert.equal(missed.lastRound, 3);
  // Rounds 5 and 10 lie beyond this 3-round run and are left out.
  assert.deepEqual(missed.rounds, [
    // qF f1 f2, qA g1 g2, qE e1 e2
    { round: 1, missedGoldPairs: 6, missedGoldQueries: 3 },
    // g1 is kept in round 2, so it is no longer missed; g3 newly retrieved; e2 kept
    { round: 2, missedGoldPairs: 5, missedGoldQueries: 3 },
    // g4 retrieved in round 3; qE counts with the two rounds it has
    { round: 3, missedGoldPairs: 6, missedGoldQueries: 3 },
  ]);
  assert.deepEqual(missed.pairs, [
    { query: "qF", article: "f1", firstRetrievedRound: 1, bestRank: 4, roundsRetrieved: 1 },
    { query: "qF", article: "f2", firstRetrievedRound: 1, bestRank: 4, roundsRetrieved: 2 },
    { query: "qA", article: "g2", firstRetrievedRound: 1, bestRank: 3, roundsRetrieved: 3 },
    // First round before rank: g3 (round 2, rank 1) after g2 (round 1, rank 3); its duplicate counts once.
    { query: "qA", article: "g3", firstRetrievedRound: 2, bestRank: 1, roundsRetrieved: 1 },
    { query: "qA", article: "g4", firstRetrievedRound: 3, bestRank: 7, roundsRetrieved: 1 },
    { query: "qE", article: "e1", firstRetrievedRound: 1, bestRank: 2, roundsRetrieved: 2 },
  ]);
  assert.deepEqual(Object.keys(missed.pairs[0]), [...MISSED_GOLD_COLUMNS]);
  assert.equal(missed.pairs.length, missed.rounds.at(-1)!.missedGoldPairs, "the list is the last round's count");
});

test("reactMissedGold: gold kept only after round r is missed at r, not after", () => {
  const rounds = new Map([["q", [round(["g:5"]), round(["g:9"]), round(["g:2"], ["g"]), round([])]]]);
  const qrels = new Map([["q", new Set(["g"])]]);
  const missed = reactMissedGold(rounds, qrels, [1, 2, 3, 4]);
  assert.deepEqual(
    missed.rounds.map((r) => [r.round, r.missedGoldPairs, r.missedGoldQueries]),
    [
      [1, 1, 1],
      [2, 1, 1],
      [3, 0, 0],
      [4, 0, 0],
    ],
  );
  assert.deepEqual(missed.pairs, []);
});

test("reactMissedGold: requested rounds in the order asked, those outside the run dropped; input errors", () => {
  assert.deepEqual(reactMissedGold(ROUNDS, QRELS, [3, 10, 0, 1]).rounds.map((r) => r.round), [3, 1]);
  assert.deepEqual(reactMissedGold(new Map(), QRELS), { rounds: [], lastRound: 0, pairs: [] });
  // No qrels for the run's queries: nothing is missed, but the rounds are still reported.
  assert.deepEqual(reactMissedGold(ROUNDS, new Map()).rounds.map((r) => r.missedGoldPairs), [0, 0, 0]);
  assert.throws(() => reactMissedGold(ROUNDS, QRELS, [1.5]), /integers/);
});

test("reactMissedGold: counts agree with the definition on random runs", () => {
  const rng = Pcg64.fromSeed(5);
  const pick = (n: number) => Math.floor(rng.nextDouble() * n);
  for (let trial = 0; trial < 30; trial++) {
    const rounds = new Map<QueryId, ReactRoundLike[]>();
    const qrels = new Map<QueryId, Set<string>>();
    for (let q = 0; q < 8; q++) {
      const n = 1 + pick(6);
      const rs: ReactRoundLike[] = [];
      for (let r = 0; r < n; r++) {
        const ids = [...new Set(Array.from({ length: pick(6) }, () => `d${pick(10)}`))];
        rs.push({ retrieved: ids.map((id, i) => ({ id, rank: i + 1 })), kept: ids.filter(() => rng.nextDouble() < 0.3).map((id) => ({ id })) });
      }
      rounds.set(`q${q}`, rs);
      qrels.set(`q${q}`, new Set(Array.from({ length: pick(4) }, () => `d${pick(10)}`)));
    }
    const got = reactMissedGold(rounds, qrels, [1, 2, 3, 4, 5, 6]);
    for (const { round: r, missedGoldPairs, missedGoldQueries } of got.rounds) {
      let pairs = 0;
      let queries = 0;
      for (const [q, rs] of rounds) {
        const upTo = rs.slice(0, r);
        const n = [...(qrels.get(q) ?? [])].filter((g) => upTo.some((x) => x.retrieved.some((d) => d.id === g)) && !upTo.some((x) => x.kept.some((d) => d.id === g))).length;
        pairs += n;
        if (n) queries++;
      }
      assert.deepEqual([missedGoldPairs, missedGoldQueries], [pairs, queries], `trial ${trial}, round ${r}`);
    }
  }
});

test("REACT's trace rounds are a valid input as they are; the paper's reference figure", () => {
  // A compile-time check as much as a run-time one: the other side of the contract.
  const traces = new Map<QueryId, ReactRoundTrace[]>();
  assert.deepEqual(reactMissedGold(traces, QRELS).pairs, []);
  assert.deepEqual(PAPER_MISSED_GOLD, { round: 10, pairs: 98, queries: 64, ofQueries: 283 });
});
