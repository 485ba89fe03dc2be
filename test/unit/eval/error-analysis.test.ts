import { test } from "node:test";
import assert from "node:assert/strict";
import {
  analyseErrors,
  DEFAULT_TIE,
  firstGoldRankDistribution,
  firstGoldRanks,
  goldRanks,
  hardestQuestions,
  largestDifferences,
  NOT_FOUND,
  RANK_BUCKETS,
  winLoss,
} from "../../../lib/eval/error-analysis";
import { evaluate, METRICS, type MetricValues } from "../../../lib/eval/metrics";
import { missedGoldByFirstRound, reactMissedGold, type ReactRoundLike } from "../../../lib/eval/react-missed";
import { formatErrorAnalysis } from "../../../lib/cli/print-errors";
import { NO_AREA, type QueryId, type QueryMeta, type Ranking } from "../../../lib/types";

/** 100 distinct non-gold ids: enough to push an article past the evaluated depth. */
const FILLER = Array.from({ length: 100 }, (_, i) => `Φ::${i + 1}`);

/*
 * Six judged queries (and q0, judged with nothing relevant, which every function skips), each
 * with what it exercises; ranks are 1-based after de-duplication, as the metrics count them.
 *
 *        gold        run A                         run B              Recall@100 A/B   outcome
 *   q1   g1          g1 x   (g1 at 1)               x g1   (2)          1 / 1            tie
 *   q2   g2a g2b     x g2a y g2b (2, 4)             g2b    (—, 1)       1 / 0.5          A wins
 *   q3   g3          x      (not found)             y      (—)          0 / 0            tie
 *   q4   g4          g4     (1)                     missing from B      1 / 0            A wins
 *   q5   g5          x x y g5 (duplicate: g5 at 3)  g5 g5  (1)          1 / 1            tie
 *   q6   g6          100 fillers then g6 (>100)     g6     (1)          0 / 1            B wins
 */
const QRELS = new Map<QueryId, Set<string>>([
  ["q1", new Set(["g1"])],
  ["q2", new Set(["g2a", "g2b"])],
  ["q0", new Set<string>()],
  ["q3", new Set(["g3"])],
  ["q4", new Set(["g4"])],
  ["q5", new Set(["g5"])],
  ["q6", new Set(["g6"])],
]);
const RUN_A = new Map<QueryId, Ranking>([
  ["q1", ["g1", "x"]],
  ["q2", ["x", "g2a", "y", "g2b"]],
  ["q3", ["x"]],
  ["q4", ["g4"]],
  ["q5", ["x", "x", "y", "g5"]],
  ["q6", [...FILLER, "g6"]],
]);
const RUN_B = new Map<QueryId, Ranking>([
  ["q1", ["x", "g1"]],
  ["q2", ["g2b"]],
  ["q3", ["y"]],
  ["q5", ["g5", "g5"]],
  ["q6", ["g6"]],
]);
// q5 has no entry and q4 an empty area: both are NO_AREA.
const META = new Map<QueryId, QueryMeta>([
  ["q1", { area: "civil" }],
  ["q2", { area: "civil" }],
  ["q3", { area: "criminal" }],
  ["q4", { area: "" }],
  ["q6", { area: "criminal", date: "2019-09" }],
]);

const perA = evaluate(RUN_A, QRELS).perQuery;
const perB = evaluate(RUN_B, QRELS).perQuery;

test("winLoss: hand-counted wins, ties and losses, in total and per area", () => {
  const w = winLoss(perA, perB, "Recall@100", { meta: META });
  assert.equal(w.metric, "Recall@100");
  assert.equal(w.tie, DEFAULT_TIE);
  // evaluate scores q4 (missing from B) as 0: a win of A, not an absence.
  assert.deepEqual(w.total, { queries: 6, wins: 2, ties: 3, losses: 1 });
  assert.deepEqual(w.byArea, [
    { group: NO_AREA, queries: 2, wins: 1, ties: 1, losses: 0 }, // q4 win, q5 tie
    { group: "civil", queries: 2, wins: 1, ties: 1, losses: 0 }, // q2 win, q1 tie
    { group: "criminal", queries: 2, wins: 0, ties: 1, losses: 1 }, // q3 tie, q6 loss
  ]);
  assert.deepEqual([w.onlyInA, w.onlyInB], [[], []]);
  // Without meta there is no per-area split at all.
  assert.equal(winLoss(perA, perB, "Recall@100").byArea, undefined);
  // On nDCG@10, q1 (rank 1 against 2) becomes a win and q5 (rank 3 against 1) a loss.
  assert.deepEqual(winLoss(perA, perB, "nDCG@10").total, { queries: 6, wins: 3, ties: 1, losses: 2 });
  // Swapping the runs swaps wins and losses.
  assert.deepEqual(winLoss(perB, perA, "Recall@100").total, { queries: 6, wins: 1, ties: 3, losses: 2 });
});

test("winLoss: only the shared queries count; the others are listed", () => {
  const b = new Map(perB);
  b.delete("q4");
  b.set("extra", perB.get("q1")!);
  const w = winLoss(perA, b, "Recall@100");
  assert.deepEqual(w.total, { queries: 5, wins: 1, ties: 3, losses: 1 });
  assert.deepEqual(w.onlyInA, ["q4"]);
  assert.deepEqual(w.onlyInB, ["extra"]);
});

test("winLoss: the tie tolerance absorbs float noise and nothing more", () => {
  const v = (x: number) => Object.fromEntries(METRICS.map((m) => [m, x])) as MetricValues;
  const a = new Map([["q", v(0.1 + 0.2)]]);
  const b = new Map([["q", v(0.3)]]); // 0.1 + 0.2 − 0.3 = 5.6e-17
  assert.deepEqual(winLoss(a, b, "MAP@100").total, { queries: 1, wins: 0, ties: 1, losses: 0 });
  const c = new Map([["q", v(0.3 + 1e-9)]]);
  assert.deepEqual(winLoss(c, b, "MAP@100").total, { queries: 1, wins: 1, ties: 0, losses: 0 }, "1e-9 is a win");
  assert.throws(() => winLoss(a, b, "P@5" as never), /'P@5' is one of gbr eval's metrics at any cut/);
});

test("goldRanks: ranks as the metrics count them (duplicates once, nothing past 100)", () => {
  assert.deepEqual(goldRanks(["x", "x", "y", "g"], new Set(["g", "h"])), new Map([["g", 3], ["h", null]]));
  // A duplicate takes no rank, so 99 distinct articles before the gold put it at exactly 100 …
  assert.deepEqual(goldRanks(["x", "x", ...FILLER.slice(0, 98), "g"], new Set(["g"])), new Map([["g", 100]]));
  // … and 100 distinct ones put it at 101: beyond the depth, null.
  assert.deepEqual(goldRanks([...FILLER, "g"], new Set(["g"])), new Map([["g", null]]));
});

test("largestDifferences: largest |Δ| first, ties left out, the gold ranks of both runs", () => {
  const diffs = largestDifferences(RUN_A, RUN_B, QRELS, "Recall@100", { meta: META });
  assert.deepEqual(diffs, [
    // |Δ| = 1 twice: qrels order (q4 before q6).
    { query: "q4", area: NO_AREA, delta: 1, a: 1, b: 0, gold: [{ article: "g4", rankA: 1, rankB: null }] },
    { query: "q6", area: "criminal", delta: -1, a: 0, b: 1, gold: [{ article: "g6", rankA: null, rankB: 1 }] },
    // g2b (best rank 1, in B) before g2a (best rank 2, in A).
    {
      query: "q2",
      area: "civil",
      delta: 0.5,
      a: 1,
      b: 0.5,
      gold: [
        { article: "g2b", rankA: 4, rankB: 1 },
        { article: "g2a", rankA: 2, rankB: null },
      ],
    },
  ]);
  assert.deepEqual(largestDifferences(RUN_A, RUN_B, QRELS, "Recall@100", { n: 2 }).map((d) => [d.query, d.area]), [["q4", NO_AREA], ["q6", NO_AREA]]);
  assert.deepEqual(largestDifferences(RUN_A, RUN_B, QRELS, "Recall@100", { n: 0 }), []);
  assert.deepEqual(largestDifferences(RUN_A, RUN_A, QRELS, "nDCG@10"), [], "a run never differs from itself");
  // The values are evaluate's, to the bit.
  for (const d of largestDifferences(RUN_A, RUN_B, QRELS, "nDCG@10")) {
    assert.equal(d.a, perA.get(d.query)!["nDCG@10"]);
    assert.equal(d.b, perB.get(d.query)!["nDCG@10"]);
    assert.equal(d.delta, d.a - d.b);
  }
  assert.throws(() => largestDifferences(RUN_A, RUN_B, QRELS, "Recall@100", { n: 1.5 }), /n must be an integer >= 0/);
});

test("firstGoldRanks and their distribution: hand-placed ranks land in the documented buckets", () => {
  const a = firstGoldRanks(RUN_A, QRELS);
  const b = firstGoldRanks(RUN_B, QRELS);
  // q0 has no gold and is left out; q4 has no ranking in B.
  assert.deepEqual(a, new Map<QueryId, number | null>([["q1", 1], ["q2", 2], ["q3", null], ["q4", 1], ["q5", 3], ["q6", null]]));
  assert.deepEqual(b, new Map<QueryId, number | null>([["q1", 2], ["q2", 1], ["q3", null], ["q4", null], ["q5", 1], ["q6", 1]]));
  const dist = firstGoldRankDistribution(new Map([["A", a], ["B", b]]));
  assert.deepEqual(dist.buckets, ["1", "2-3", "4-10", "11-20", "21-50", "51-100", NOT_FOUND]);
  assert.deepEqual(dist.runs, [
    { name: "A", queries: 6, counts: [2, 2, 0, 0, 0, 0, 2] },
    { name: "B", queries: 6, counts: [3, 1, 0, 0, 0, 0, 2] },
  ]);
  // Every bucket edge, from both sides; a rank past 100 is not found, as the metrics ignore it.
  const edges = new Map<QueryId, number | null>(
    [1, 2, 3, 4, 10, 11, 20, 21, 50, 51, 100, 101, null].map((r, i) => [`e${i}`, r]),
  );
  assert.deepEqual(firstGoldRankDistribution(new Map([["1", edges]])).runs, [{ name: "1", queries: 13, counts: [1, 2, 2, 2, 2, 2, 2] }]);
  assert.equal(RANK_BUCKETS.at(-1)!.max, 100);
});

test("hardestQuestions: lowest best score over every method, then lowest mean; gold with its statute", () => {
  const v = (x: number) => Object.fromEntries(METRICS.map((m) => [m, x])) as MetricValues;
  const qrels = new Map<QueryId, Set<string>>([
    ["h1", new Set(["ΑΚ::914", "ΠΚ::375"])],
    ["h2", new Set(["ΑΚ::1"])],
    ["h3", new Set(["N4765::17"])],
    ["h4", new Set(["nosep"])],
    ["h5", new Set(["ΑΚ::2"])], // no value in m3: left out
    ["h0", new Set<string>()],
  ]);
  const m = (vals: Record<string, number>) => new Map(Object.entries(vals).map(([q, x]) => [q, v(x)]));
  const byRun = new Map([
    ["m1", m({ h1: 0, h2: 0.5, h3: 0.2, h4: 0.5, h5: 0 })],
    ["m2", m({ h1: 0, h2: 0, h3: 0.2, h4: 0.5, h5: 0 })],
    ["m3", m({ h1: 0, h2: 0, h3: 0.2, h4: 0.5, h0: 0 })],
  ]);
  const meta = new Map<QueryId, QueryMeta>([["h1", { area: "civil" }], ["h3", { area: "" }]]);
  const hard = hardestQuestions(byRun, qrels, meta, "Recall@100", 10);
  // max: h1 0, h3 0.2, h2 0.5, h4 0.5; h2 and h4 tie on max, h2's mean (1/6) is the lower.
  assert.deepEqual(hard.map((h) => [h.query, h.max]), [["h1", 0], ["h3", 0.2], ["h2", 0.5], ["h4", 0.5]]);
  assert.equal(hard[2].mean, 0.5 / 3);
  assert.deepEqual(hard[0], {
    query: "h1",
    area: "civil",
    max: 0,
    mean: 0,
    values: [{ run: "m1", value: 0 }, { run: "m2", value: 0 }, { run: "m3", value: 0 }],
    gold: [{ article: "ΑΚ::914", source: "ΑΚ" }, { article: "ΠΚ::375", source: "ΠΚ" }],
  });
  assert.deepEqual([hard[1].area, hard[1].gold, hard[3].gold], [NO_AREA, [{ article: "N4765::17", source: "N4765" }], [{ article: "nosep", source: "nosep" }]]);
  assert.deepEqual(hardestQuestions(byRun, qrels, meta, "Recall@100", 2).map((h) => h.query), ["h1", "h3"]);
  assert.throws(() => hardestQuestions(new Map(), qrels, meta, "Recall@100", 1), /at least one method/);
});

test("missedGoldByFirstRound: the missed pairs counted by the round that first retrieved them", () => {
  const round = (retrieved: string[], kept: string[] = []): ReactRoundLike => ({ retrieved: retrieved.map((id, i) => ({ id, rank: i + 1 })), kept: kept.map((id) => ({ id })) });
  const rounds = new Map<QueryId, ReactRoundLike[]>([
    ["qA", [round(["g1"]), round(["g2", "g1"]), round(["g3"], ["g3"])]], // g1 (round 1), g2 (round 2) missed; g3 kept
    ["qB", [round(["h1"]), round([]), round(["h2"])]], // h1 (round 1), h2 (round 3) missed
  ]);
  const qrels = new Map([["qA", new Set(["g1", "g2", "g3"])], ["qB", new Set(["h1", "h2"])]]);
  const missed = reactMissedGold(rounds, qrels);
  assert.equal(missed.pairs.length, 4);
  assert.deepEqual(missedGoldByFirstRound(missed.pairs, missed.lastRound), [
    { round: 1, pairs: 2, queries: 2 },
    { round: 2, pairs: 1, queries: 1 },
    { round: 3, pairs: 1, queries: 1 },
  ]);
  // Rounds without a first appearance still get their row.
  assert.deepEqual(missedGoldByFirstRound(missed.pairs, 5).slice(3), [{ round: 4, pairs: 0, queries: 0 }, { round: 5, pairs: 0, queries: 0 }]);
  assert.deepEqual(missedGoldByFirstRound([], 0), []);
  assert.throws(() => missedGoldByFirstRound(missed.pairs, 2), /first retrieved in round 3, outside rounds 1…2/);
});

test("analyseErrors and its text: one value for the terminal and for JSON", () => {
  const e = analyseErrors({ name: "A", rankings: RUN_A }, { name: "B", rankings: RUN_B }, QRELS, { meta: META, top: 2 });
  assert.equal(e.metric, "Recall@100", "the default metric");
  assert.deepEqual(e.means, { a: 4 / 6, b: 3.5 / 6 });
  assert.deepEqual(e.winLoss.total, { queries: 6, wins: 2, ties: 3, losses: 1 });
  assert.deepEqual(e.largestDifferences.map((d) => d.query), ["q4", "q6"]);
  assert.deepEqual(e.firstGoldRanks.runs.map((r) => r.name), ["A", "B"]);
  assert.deepEqual(JSON.parse(JSON.stringify(e)), e, "plain data, nothing lost in JSON");
  assert.throws(() => analyseErrors({ name: "A", rankings: RUN_A }, { name: "A", rankings: RUN_B }, QRELS), /both runs are named 'A'/);

  const text = formatErrorAnalysis(e);
  assert.match(text, /^Recall@100: A \(A, mean 0\.6667\) against B \(B, mean 0\.5833\), 6 queries/);
  assert.match(text, /^\(all\)\s+6\s+2\s+3\s+1$/m);
  assert.match(text, /^criminal\s+2\s+0\s+1\s+1$/m);
  assert.match(text, /^q4\s+\(no area\)\s+1\.0000\s+0\.0000\s+1\.0000\s+g4 \(1, >100\)$/m);
  assert.match(text, /^q6\s+criminal\s+0\.0000\s+1\.0000\s+-1\.0000\s+g6 \(>100, 1\)$/m);
  assert.match(text, /^not found\s+2\s+2$/m);
  // Without areas the columns that would only say "(no area)" are gone.
  const plain = formatErrorAnalysis(analyseErrors({ name: "A", rankings: RUN_A }, { name: "B", rankings: RUN_B }, QRELS));
  assert.doesNotMatch(plain, /no area/);
  assert.match(plain, /^q2\s+1\.0000\s+0\.5000\s+0\.5000\s+g2b \(4, 1\), g2a \(2, >100\)$/m);
});
