import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import path from "node:path";
import fc from "fast-check";
import { readBeir } from "../../../lib/data/beir";
import { evaluate, meanOf, METRICS, queryMetrics, type MetricValues } from "../../../lib/eval/metrics";
import { bm25Search, indexCorpus, type IndexedCorpus } from "../../../lib/sparse/bm25-retriever";
import { QuerySweep, SWEEP_B, SWEEP_K1 } from "../../../lib/sparse/sweep";
import { bm25Weight, lengthNorm, okapiIdf, type Bm25Index, type Bm25Params } from "../../../lib/sparse/bm25";
import { bm25Sweep } from "../../../lib/experiments/tuning";
import { crossValidatedTuning } from "../../../lib/eval/cross-validation";
import { sweepHeatmap, type SweepEntry, type SweepResult } from "../../../lib/eval/sweep-result";
import { greekStemmerTokenizer } from "../../../lib/text/tokenizers";
import type { Benchmark, Query, Tokenizer } from "../../../lib/types";
import { requireShared } from "../../helpers/shared";

const DATA = path.resolve(__dirname, "..", "../../../shared/data/greeklaws-2021");
const ORACLES = path.resolve(__dirname, "..", "../../../shared/oracles/greeklaws-2021");

/** Whitespace tokens: lets the toy corpora below say exactly which terms each document has. */
const spaceTokenizer: Tokenizer = { name: "space", tokenize: (t) => t.split(" ").filter(Boolean) };

/**
 * The sweep's reference, the plainest route to what `QuerySweep.rank` and positive-only `searchIds` give (distinct
 * terms in first-occurrence order, `bm25Weight` × count, a stable sort): for the tests to compare the fast paths with.
 */
function referenceRank(index: Bm25Index, termIds: ArrayLike<number>, params: Bm25Params, k: number): Int32Array {
  const { k1, b, epsilon } = params;
  const idf = okapiIdf(index, epsilon);
  let total = 0;
  for (let d = 0; d < index.docCount; d++) total += index.docLen[d];
  const avgdl = total / index.docCount;
  const counts = new Map<number, number>();
  for (const t of Array.from(termIds)) if (t >= 0 && t < index.termCount) counts.set(t, (counts.get(t) ?? 0) + 1);
  const scores = new Float64Array(index.docCount);
  for (const [t, c] of counts) {
    for (let p = index.termStart[t]; p < index.termStart[t + 1]; p++) {
      const d = index.postingDoc[p];
      scores[d] += c * bm25Weight(idf[t], index.postingTf[p], k1, lengthNorm(k1, b, index.docLen[d], avgdl));
    }
  }
  const ranked = [...scores.keys()].filter((d) => scores[d] > 0).sort((x, y) => scores[y] - scores[x] || x - y);
  return Int32Array.from(ranked.slice(0, k));
}

/** The reference: one direct scorer per setting, positive-only top 100, as the paper's sweep runs it. */
function directRankings(corpus: IndexedCorpus, queries: readonly Query[], k1: number, b: number, epsilon = 0.25) {
  return bm25Search(corpus, corpus.index.withParams({ k1, b, epsilon }), queries, 100, { positiveOnly: true }).rankings;
}

function entryAt(sweep: SweepResult, k1: number, b: number): SweepEntry {
  const e = sweep.grid.find((x) => x.k1 === k1 && x.b === b);
  assert.ok(e, `no entry for k1=${k1} b=${b}`);
  return e;
}

let cached: Promise<{ bench: Benchmark; corpus: IndexedCorpus; long: Benchmark }> | undefined;
/** greeklaws-2021 with the sample queries (and the long ones), indexed once for every test here. */
function greeklaws() {
  cached ??= (async () => {
    const bench = await readBeir(DATA, { queriesFile: DATA + "/queries-sample.jsonl" });
    const long = await readBeir(DATA, { queriesFile: DATA + "/queries-long.jsonl" });
    return { bench, long, corpus: indexCorpus(bench.docs, greekStemmerTokenizer()) };
  })();
  return cached;
}

// ---------------------------------------------------------------- grids

test("the grids are the paper's: 16 k1 × 12 b = 192 settings, exact decimals, with the defaults", () => {
  assert.deepEqual(SWEEP_K1, [0.2, 0.4, 0.6, 0.8, 1.0, 1.2, 1.4, 1.5, 1.6, 1.8, 2.0, 2.2, 2.4, 2.6, 2.8, 3.0]);
  assert.deepEqual(SWEEP_B, [0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.75, 0.8, 0.9, 1.0]);
  assert.equal(SWEEP_K1.length * SWEEP_B.length, 192);
  assert.ok(SWEEP_K1.includes(1.5) && SWEEP_B.includes(0.75));
  assert.equal(SWEEP_K1[0], 0.2);
  assert.equal(SWEEP_K1[15], 3.0);
  assert.equal(SWEEP_B[0], 0.0);
  assert.equal(SWEEP_B[11], 1.0);
  // No accumulated drift: every value prints as its decimal (0.6, not 0.6000000000000001).
  for (const v of [...SWEEP_K1, ...SWEEP_B]) assert.equal(String(v), String(Number(v.toFixed(2))));
  assert.ok(Object.isFrozen(SWEEP_K1) && Object.isFrozen(SWEEP_B));
});

// ---------------------------------------------------------------- exactness against the direct scorer

test("on random small corpora full of ties, every setting's rankings equal the direct scorer's", () => {
  // A five-term vocabulary makes equal scores (same profile, or terms sharing a df and so an idf)
  // the rule rather than the exception: the case where regrouping the sums could reorder documents.
  const term = fc.constantFrom("α", "β", "γ", "δ", "ε");
  const doc = fc.array(term, { minLength: 0, maxLength: 6 }).map((ts) => ts.join(" "));
  fc.assert(
    fc.property(
      fc.array(doc, { minLength: 1, maxLength: 40 }),
      fc.array(fc.array(fc.constantFrom("α", "β", "γ", "δ", "ε", "ω"), { minLength: 0, maxLength: 8 }), { minLength: 1, maxLength: 4 }),
      fc.constantFrom(0, 0.25, -0.5),
      (texts, queryTerms, epsilon) => {
        const docs = texts.map((text, i) => ({ id: `d${i}`, text }));
        const corpus = indexCorpus(docs, spaceTokenizer);
        const queries = queryTerms.map((ts, i) => ({ id: `q${i}`, text: ts.join(" ") }));
        const qrels = new Map(queries.map((q, i) => [q.id, new Set([`d${i % docs.length}`])]));
        const k1s = [0, 0.2, 1.5, 3];
        const bs = [0, 0.75, 1];
        const sweep = bm25Sweep(corpus, queries, qrels, { k1s, bs, epsilon, keepRankings: true });
        for (const k1 of k1s) {
          for (const b of bs) {
            const want = directRankings(corpus, queries, k1, b, epsilon);
            const e = entryAt(sweep, k1, b);
            for (const q of queries) {
              assert.deepEqual(e.rankings!.get(q.id), want.get(q.id), `k1=${k1} b=${b} ${q.id}`);
              assert.deepEqual(e.perQuery.get(q.id), queryMetrics(want.get(q.id)!, qrels.get(q.id)!));
            }
          }
        }
      },
    ),
    { numRuns: 150, seed: 42 },
  );
});

test("QuerySweep.rank equals searchIds(…, { positiveOnly: true }) for a cut smaller than the matches", () => {
  const docs = ["α β", "α", "β β", "α α β", "γ", "α β γ", "β", "α γ"].map((text, i) => ({ id: `d${i}`, text }));
  const corpus = indexCorpus(docs, spaceTokenizer);
  const settings = [{ k1: 1.5, b: 0.75 }, { k1: 0.2, b: 0 }, { k1: 3, b: 1 }];
  const engine = new QuerySweep(corpus, settings, 0.25);
  for (const text of ["α β", "β α α", "γ", "ω", ""]) {
    engine.setQuery(corpus.analyze(text));
    settings.forEach((p, s) => {
      for (const k of [1, 2, 3, 100]) {
        const want = corpus.index.withParams({ ...p, epsilon: 0.25 }).searchIds(corpus.analyze(text), k, { positiveOnly: true }).docs;
        assert.deepEqual(Array.from(engine.rank(s, k)), Array.from(want), `"${text}" k1=${p.k1} b=${p.b} k=${k}`);
        assert.deepEqual(Array.from(referenceRank(corpus.index, corpus.analyze(text), { ...p, epsilon: 0.25 }, k)), Array.from(want));
      }
    });
  }
});

test("QuerySweep.rank equals the direct scorer for any cut k, where the early stop and the boundary matter", () => {
  const term = fc.constantFrom("α", "β", "γ", "δ");
  const doc = fc.array(term, { minLength: 0, maxLength: 8 }).map((ts) => ts.join(" "));
  fc.assert(
    fc.property(
      fc.array(doc, { minLength: 1, maxLength: 60 }),
      fc.array(term, { minLength: 0, maxLength: 10 }),
      fc.integer({ min: 1, max: 12 }),
      (texts, queryTerms, k) => {
        const corpus = indexCorpus(texts.map((text, i) => ({ id: `d${i}`, text })), spaceTokenizer);
        const settings = [{ k1: 0.2, b: 0 }, { k1: 1.5, b: 0.75 }, { k1: 3, b: 1 }, { k1: 0, b: 0.5 }];
        const engine = new QuerySweep(corpus, settings, 0.25);
        const ids = corpus.analyze(queryTerms.join(" "));
        engine.setQuery(ids);
        settings.forEach((p, s) => {
          const want = referenceRank(corpus.index, ids, { ...p, epsilon: 0.25 }, k);
          assert.deepEqual(Array.from(engine.rank(s, k)), Array.from(want), `k1=${p.k1} b=${p.b} k=${k}`);
          const direct = corpus.index.withParams({ ...p, epsilon: 0.25 }).searchIds(ids, k, { positiveOnly: true }).docs;
          assert.deepEqual(Array.from(direct), Array.from(want), `searchIds k1=${p.k1} b=${p.b} k=${k}`);
        });
      },
    ),
    { numRuns: 300, seed: 7 },
  );
});

test("QuerySweep.rank stays exact whatever was ranked before: settings in any order, cuts that change, queries that alternate", () => {
  // Each rank starts from the previous ranking of the query (its top k scored first): a stale or foreign start must
  // never change a result.
  const term = fc.constantFrom("α", "β", "γ", "δ", "ε");
  const doc = fc.array(term, { minLength: 0, maxLength: 9 }).map((ts) => ts.join(" "));
  const settings = [{ k1: 0.2, b: 0 }, { k1: 1.5, b: 0.75 }, { k1: 3, b: 1 }, { k1: 0, b: 0.5 }, { k1: 1.2, b: 0.3 }];
  fc.assert(
    fc.property(
      fc.array(doc, { minLength: 1, maxLength: 80 }),
      fc.array(fc.array(term, { minLength: 0, maxLength: 12 }), { minLength: 1, maxLength: 3 }),
      fc.array(fc.record({ q: fc.nat(), s: fc.nat(settings.length - 1), k: fc.integer({ min: 1, max: 15 }) }), { minLength: 1, maxLength: 25 }),
      (texts, queries, calls) => {
        const corpus = indexCorpus(texts.map((text, i) => ({ id: `d${i}`, text })), spaceTokenizer);
        const engine = new QuerySweep(corpus, settings, 0.25);
        let current = -1;
        for (const { q, s, k } of calls) {
          const which = q % queries.length;
          const ids = corpus.analyze(queries[which].join(" "));
          if (which !== current) engine.setQuery(ids);
          current = which;
          const want = referenceRank(corpus.index, ids, { ...settings[s], epsilon: 0.25 }, k);
          assert.deepEqual(Array.from(engine.rank(s, k)), Array.from(want), `query ${which} setting ${s} k=${k}`);
        }
      },
    ),
    { numRuns: 300, seed: 11 },
  );
});

test("greeklaws-2021 sample: sweep rankings and metrics equal direct positive-only runs", async () => {
  requireShared("data", "greeklaws-2021");
  const { bench, corpus } = await greeklaws();
  const k1s = [0.2, 1.5, 3.0];
  const bs = [0, 0.5, 0.75, 1];
  const sweep = bm25Sweep(corpus, bench.queries, bench.qrels, { k1s, bs, keepRankings: true });
  assert.equal(sweep.grid.length, 12);
  for (const k1 of k1s) {
    for (const b of bs) {
      const want = directRankings(corpus, bench.queries, k1, b);
      const e = entryAt(sweep, k1, b);
      for (const q of bench.queries) assert.equal(e.rankings!.get(q.id)!.join(" "), want.get(q.id)!.join(" "), `k1=${k1} b=${b} ${q.id}`);
      // Same per-query values and the same mean, to the last bit.
      const ev = evaluate(want, bench.qrels);
      assert.deepEqual(e.perQuery, ev.perQuery);
      assert.deepEqual(e.mean, ev.mean);
    }
  }
});

test("greeklaws-2021 long queries (~300 tokens): rankings equal the direct scorer's over the grid", async () => {
  requireShared("data", "greeklaws-2021");
  // Long queries repeat common terms many times: the regrouped sums differ most from the direct
  // ones here, so this is where the exact re-scoring of near-ties earns its keep.
  const { long, corpus } = await greeklaws();
  const queries = long.queries.filter((_, i) => i % 8 === 0);
  const qrels = new Map(queries.map((q) => [q.id, long.qrels.get(q.id)!]));
  const k1s = SWEEP_K1.filter((_, i) => i % 3 === 0);
  const bs = [0, 0.3, 0.75, 1];
  const sweep = bm25Sweep(corpus, queries, qrels, { k1s, bs, keepRankings: true });
  for (const k1 of k1s) {
    for (const b of bs) {
      const want = directRankings(corpus, queries, k1, b);
      const e = entryAt(sweep, k1, b);
      for (const q of queries) assert.equal(e.rankings!.get(q.id)!.join(" "), want.get(q.id)!.join(" "), `k1=${k1} b=${b} ${q.id}`);
    }
  }
  // And the reference, for the corners and the default (all three routes agree).
  for (const [k1, b] of [[0.2, 0], [1.5, 0.75], [3, 1]]) {
    const e = sweep.grid.find((x) => x.k1 === k1 && x.b === b) ?? sweep.defaultEntry;
    assert.ok(e.k1 === k1 && e.b === b && e.rankings, `no rankings for k1=${k1} b=${b}`);
    for (const q of queries) {
      const ref = Array.from(referenceRank(corpus.index, corpus.analyze(q.text), { k1, b, epsilon: 0.25 }, 100), (d) => corpus.docIds[d]);
      assert.equal(e.rankings!.get(q.id)!.join(" "), ref.join(" "), `reference k1=${k1} b=${b} ${q.id}`);
    }
  }
});

test("greeklaws-2021 sample: the default entry equals a direct positive-only rank_bm25 run", async () => {
  requireShared("data", "greeklaws-2021");
  const { bench, corpus } = await greeklaws();
  const sweep = bm25Sweep(corpus, bench.queries, bench.qrels, { k1s: [1.5], bs: [0.75] });
  const direct = evaluate(bm25Search(corpus, corpus.index.withParams(), bench.queries, 100, { positiveOnly: true }).rankings, bench.qrels);
  assert.equal(sweep.defaultEntry, sweep.grid[0]);
  assert.deepEqual(sweep.defaultEntry.perQuery, direct.perQuery);
  assert.deepEqual(sweep.defaultEntry.mean, direct.mean);
  assert.deepEqual(sweep.default, { k1: 1.5, b: 0.75, value: direct.mean["Recall@100"] });
  // On these queries no relevant article scores 0, so dropping the zero-score tail changes no
  // metric: the means are those of the rank_bm25 oracle (271 of 283 queries find their article).
  const oracle = readFileSync(path.join(ORACLES, "metrics-sample.tsv"), "utf8").trim().split("\n");
  const header = oracle[0].split("\t").slice(1);
  const meanRow = oracle.find((l) => l.startsWith("MEAN\t"))!.split("\t").slice(1).map(Number);
  header.forEach((m, i) => assert.ok(Math.abs(sweep.defaultEntry.mean[m as keyof MetricValues] - meanRow[i]) < 1e-12, m));
  assert.equal(sweep.default.value, 271 / 283);
});

test("a grid without (1.5, 0.75) still reports the default, run apart and not added to the grid", () => {
  const docs = ["α β", "β", "γ α"].map((text, i) => ({ id: `d${i}`, text }));
  const corpus = indexCorpus(docs, spaceTokenizer);
  const queries = [{ id: "q", text: "α" }];
  const qrels = new Map([["q", new Set(["d2"])]]);
  const sweep = bm25Sweep(corpus, queries, qrels, { k1s: [0.2], bs: [0] });
  assert.equal(sweep.grid.length, 1);
  assert.equal(sweep.defaultEntry.k1, 1.5);
  assert.equal(sweep.defaultEntry.b, 0.75);
  assert.deepEqual(sweep.defaultEntry.mean, evaluate(directRankings(corpus, queries, 1.5, 0.75), qrels).mean);
});

test("queries of the qrels missing from the query list score 0; queries without qrels are not run", () => {
  const docs = ["α β", "β", "γ α"].map((text, i) => ({ id: `d${i}`, text }));
  const corpus = indexCorpus(docs, spaceTokenizer);
  const queries = [{ id: "q1", text: "α" }, { id: "extra", text: "β" }];
  const qrels = new Map([["q1", new Set(["d0"])], ["gone", new Set(["d1"])]]);
  const sweep = bm25Sweep(corpus, queries, qrels, { k1s: [1.5], bs: [0.75] });
  assert.deepEqual(sweep.queryIds, ["q1", "gone"]);
  const e = sweep.grid[0];
  assert.deepEqual([...e.perQuery.keys()], ["q1", "gone"]);
  assert.ok(METRICS.every((m) => e.perQuery.get("gone")![m] === 0));
  assert.deepEqual(e.mean, evaluate(directRankings(corpus, queries, 1.5, 0.75), qrels).mean);
});

test("best maximises the metric's mean; a tie keeps the default, else goes to the first setting in grid order", () => {
  // One relevant document, ranked first by every setting: all 192 settings tie, so the default stays (issue 22, item 12).
  const corpus = indexCorpus(["α", "β", "γ"].map((text, i) => ({ id: "def"[i], text })), spaceTokenizer);
  const tie = bm25Sweep(corpus, [{ id: "q", text: "α" }], new Map([["q", new Set(["d"])]]));
  assert.deepEqual(tie.best, { k1: 1.5, b: 0.75, value: 1, ties: 192 });
  assert.deepEqual(
    tie.grid.slice(0, 3).map((e) => [e.k1, e.b]),
    [[0.2, 0], [0.2, 0.1], [0.2, 0.2]],
  );
  // Grid values given out of order are sorted first, so the rule does not depend on the caller.
  const shuffled = bm25Sweep(corpus, [{ id: "q", text: "α" }], new Map([["q", new Set(["d"])]]), { k1s: [3, 1, 2], bs: [1, 0.5] });
  assert.deepEqual(shuffled.grid.map((e) => [e.k1, e.b]), [[1, 0.5], [1, 1], [2, 0.5], [2, 1], [3, 0.5], [3, 1]]);
  // The default, run apart when the grid lacks it, still keeps a tie: the six grid settings reach its value.
  assert.deepEqual(shuffled.best, { k1: 1.5, b: 0.75, value: 1, ties: 6 });
});

test("bad options are refused", () => {
  const corpus = indexCorpus([{ id: "d", text: "α" }], spaceTokenizer);
  const qrels = new Map([["q", new Set(["d"])]]);
  const qs = [{ id: "q", text: "α" }];
  assert.throws(() => bm25Sweep(corpus, qs, qrels, { k1s: [] }), /k1s is empty/);
  assert.throws(() => bm25Sweep(corpus, qs, qrels, { bs: [1.2] }), /bs has an invalid value/);
  assert.throws(() => bm25Sweep(corpus, qs, qrels, { k1s: [-1] }), /k1s has an invalid value/);
  assert.throws(() => bm25Sweep(corpus, qs, qrels, { metric: "P@5" as never }), /one of gbr eval.s metrics at any cut/);
  assert.throws(() => new QuerySweep(corpus, [{ k1: 1, b: 2 }], 0.25), /0 <= b <= 1/);
  const engine = new QuerySweep(corpus, [{ k1: 1, b: 0.5 }], 0.25);
  engine.setQuery(corpus.analyze("α"));
  assert.throws(() => engine.rank(0, 0), /k must be a positive integer/);
  assert.throws(() => engine.rank(1, 10), /no setting 1/);
});

// ---------------------------------------------------------------- cross-validation

/** A synthetic sweep: per-query values chosen so settings win on different queries. */
function fakeSweep(nQueries: number): SweepResult {
  const queryIds = Array.from({ length: nQueries }, (_, i) => `q${i}`);
  const k1s = [0.5, 1.5];
  const bs = [0.5, 0.75];
  const grid: SweepEntry[] = [];
  let s = 0;
  for (const k1 of k1s) {
    for (const b of bs) {
      const perQuery = new Map<string, MetricValues>();
      queryIds.forEach((q, i) => {
        // Deterministic pseudo-random values in [0, 1], different per (setting, query).
        const v = ((i * 7919 + s * 104729) % 1000) / 1000;
        perQuery.set(q, Object.fromEntries(METRICS.map((m, j) => [m, (v + j / 10) % 1])) as MetricValues);
      });
      grid.push({ k1, b, perQuery, mean: meanOf([...perQuery.values()]) });
      s++;
    }
  }
  const best = grid.reduce((a, e) => (e.mean["Recall@100"] > a.mean["Recall@100"] ? e : a));
  const def = grid.find((e) => e.k1 === 1.5 && e.b === 0.75)!;
  return {
    grid,
    best: { k1: best.k1, b: best.b, value: best.mean["Recall@100"] },
    default: { k1: 1.5, b: 0.75, value: def.mean["Recall@100"] },
    defaultEntry: def,
    metric: "Recall@100",
    k1s,
    bs,
    epsilon: 0.25,
    queryIds,
  };
}

test("CV holds every query out exactly once, in balanced folds, with the setting best on the rest", () => {
  const sweep = fakeSweep(53);
  const cv = crossValidatedTuning(sweep, sweep.queryIds, { folds: 5, seed: 42 });
  assert.equal(cv.folds.length, 5);
  const heldOut = cv.folds.flatMap((f) => f.testQueryIds);
  assert.deepEqual([...heldOut].sort(), [...sweep.queryIds].sort());
  assert.equal(new Set(heldOut).size, 53);
  const sizes = cv.folds.map((f) => f.testQueryIds.length);
  assert.ok(Math.max(...sizes) - Math.min(...sizes) <= 1, `fold sizes ${sizes}`);
  assert.equal(sizes.reduce((a, b) => a + b), 53);
  for (const f of cv.folds) {
    const test = new Set(f.testQueryIds);
    const train = sweep.queryIds.filter((q) => !test.has(q));
    // Recompute the choice: the first entry in grid order with the highest training mean.
    const means = sweep.grid.map((e) => meanOf(train.map((q) => e.perQuery.get(q)!))["Recall@100"]);
    const bestIdx = means.indexOf(Math.max(...means));
    assert.deepEqual([f.k1, f.b], [sweep.grid[bestIdx].k1, sweep.grid[bestIdx].b], `fold ${f.fold}`);
    assert.equal(f.trainValue, means[bestIdx]);
    const chosen = sweep.grid[bestIdx];
    assert.deepEqual(f.testMean, meanOf(f.testQueryIds.map((q) => chosen.perQuery.get(q)!)));
    for (const q of f.testQueryIds) assert.equal(cv.perQuery.get(q), chosen.perQuery.get(q));
  }
  assert.deepEqual([...cv.perQuery.keys()], sweep.queryIds);
  assert.deepEqual(cv.mean, meanOf([...cv.perQuery.values()]));
  // The oracle picks on all queries, so no held-out estimate can beat it.
  assert.ok(cv.mean["Recall@100"] <= cv.oracle.value + 1e-15);
  assert.deepEqual({ k1: cv.oracle.k1, b: cv.oracle.b, value: cv.oracle.value }, sweep.best);
  assert.equal(cv.default.value, sweep.default.value);
});

test("CV is deterministic by seed, and the seed matters", () => {
  const sweep = fakeSweep(40);
  const a = crossValidatedTuning(sweep, sweep.queryIds, { seed: 7 });
  const b = crossValidatedTuning(sweep, sweep.queryIds, { seed: 7 });
  const c = crossValidatedTuning(sweep, sweep.queryIds, { seed: 8 });
  assert.deepEqual(a, b);
  assert.notDeepEqual(a.folds.map((f) => f.testQueryIds), c.folds.map((f) => f.testQueryIds));
  // Defaults: 5 folds, seed 42.
  assert.deepEqual(crossValidatedTuning(sweep, sweep.queryIds), crossValidatedTuning(sweep, sweep.queryIds, { folds: 5, seed: 42 }));
  assert.equal(crossValidatedTuning(sweep, sweep.queryIds, { folds: 4 }).folds.length, 4);
});

test("CV works on a subset of the queries and refuses bad input", () => {
  const sweep = fakeSweep(30);
  const subset = sweep.queryIds.slice(0, 12);
  const cv = crossValidatedTuning(sweep, subset, { folds: 3 });
  assert.deepEqual([...cv.perQuery.keys()], subset);
  assert.equal(cv.default.value, meanOf(subset.map((q) => sweep.defaultEntry.perQuery.get(q)!))["Recall@100"]);
  assert.throws(() => crossValidatedTuning(sweep, ["nope", ...subset]), /not evaluated/);
  assert.throws(() => crossValidatedTuning(sweep, [subset[0], subset[0], subset[1]], { folds: 2 }), /duplicates/);
  assert.throws(() => crossValidatedTuning(sweep, subset.slice(0, 3), { folds: 5 }), /cannot fill/);
  assert.throws(() => crossValidatedTuning(sweep, subset, { folds: 1 }), /folds/);
});

// ---------------------------------------------------------------- heatmap

test("the heatmap has rows by b and columns by k1", () => {
  const sweep = fakeSweep(10);
  const h = sweepHeatmap(sweep, "nDCG@10");
  assert.deepEqual(h.k1s, [0.5, 1.5]);
  assert.deepEqual(h.bs, [0.5, 0.75]);
  assert.equal(h.z.length, 2);
  for (let i = 0; i < h.bs.length; i++) {
    for (let j = 0; j < h.k1s.length; j++) {
      assert.equal(h.z[i][j], sweep.grid.find((e) => e.k1 === h.k1s[j] && e.b === h.bs[i])!.mean["nDCG@10"]);
    }
  }
  assert.equal(sweepHeatmap(sweep).metric, "Recall@100");
});

// ---------------------------------------------------------------- the full sweep, timed

test("diagnostic: all 192 settings × 283 greeklaws-2021 sample queries, timed, with the CV estimate", async () => {
  requireShared("data", "greeklaws-2021");
  const { bench, corpus } = await greeklaws();
  const t0 = performance.now();
  const sweep = bm25Sweep(corpus, bench.queries, bench.qrels);
  const ms = performance.now() - t0;
  const cv = crossValidatedTuning(sweep, sweep.queryIds, { folds: 5, seed: 42 });
  assert.equal(sweep.grid.length, 192);
  assert.equal(sweep.queryIds.length, 283);
  const h = sweepHeatmap(sweep, "Recall@100");
  assert.equal(h.z.length, 12);
  assert.ok(h.z.every((row) => row.length === 16 && row.every(Number.isFinite)));
  assert.ok(sweep.best.value >= sweep.default.value);
  assert.ok(cv.mean["Recall@100"] <= sweep.best.value + 1e-15);
  const r = (x: number) => x.toFixed(4);
  console.log(
    `sweep: 192 settings × 283 queries in ${(ms / 1000).toFixed(2)} s; Recall@100 default (1.5, 0.75) ${r(sweep.default.value)}, ` +
      `oracle best (${sweep.best.k1}, ${sweep.best.b}) ${r(sweep.best.value)}, 5-fold CV ${r(cv.mean["Recall@100"])} ` +
      `(folds chose ${cv.folds.map((f) => `(${f.k1}, ${f.b})`).join(" ")})`,
  );
  // A generous ceiling, far above the measured time, that still catches a fall back to rescoring
  // every posting for every setting (which takes a minute on the long queries).
  assert.ok(ms < 60_000, `sweep took ${ms} ms`);
});

test("onProgress is called after each query run, with the queries done and their total", () => {
  const docs = ["α β", "β", "γ α"].map((text, i) => ({ id: `d${i}`, text }));
  const corpus = indexCorpus(docs, spaceTokenizer);
  const queries = [{ id: "q1", text: "α" }, { id: "q2", text: "β" }, { id: "q3", text: "γ" }];
  // "gone" has no query text: it scores 0 and is not run, so it is not counted.
  const qrels = new Map([["q1", new Set(["d0"])], ["gone", new Set(["d1"])], ["q2", new Set(["d1"])], ["q3", new Set(["d2"])]]);
  const calls: [number, number][] = [];
  bm25Sweep(corpus, queries, qrels, { k1s: [1.5], bs: [0.75], onProgress: (done, total) => calls.push([done, total]) });
  assert.deepEqual(calls, [[1, 3], [2, 3], [3, 3]]);
});
