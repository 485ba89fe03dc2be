import { test } from "node:test";
import assert from "node:assert/strict";
import path from "node:path";
import { readBeir } from "../../../lib/data/beir";
import { areaStats, datasetStats } from "../../../lib/data/stats";
import { sourceOf } from "../../../lib/types";
import type { Benchmark } from "../../../lib/types";

const SHARED = path.resolve(__dirname, "..", "../../../shared");
const close = (a: number, b: number, label: string) => assert.ok(Math.abs(a - b) < 1e-12, `${label}: ${a} vs ${b}`);

/**
 * A tiny benchmark with hand-counted figures.
 *
 * docs (source, \w+ words):
 *   ΑΚ::1 (ΑΚ, 3)  ΑΚ::2 (ΑΚ, 2)  ΑΚ::3 (ΑΚ, 5)  ΠΚ::10 (ΠΚ, 1)  ΠΚ::11 (ΠΚ, 4: Άρθρο|5|παρ|2α)
 *   ΚΠολΔ::1 (ΚΠολΔ, 6)  N4765::1 (N4765, 2: a_b|c)  plain (plain, 3)
 * queries (area, gold, words):
 *   q1 Αστικό  {ΑΚ::1, ΑΚ::2}            2
 *   q2 Αστικό  {ΑΚ::2, ΑΚ::3, ΚΠολΔ::1}  1
 *   q3 Ποινικό {ΠΚ::10}                  3
 *   q4 (meta without area) {ΠΚ::11}      4
 *   q5 Ποινικό {ΠΚ::10, ΠΚ::11}          5
 * plus a qrels entry for qX, which is not a query of the benchmark and must not count.
 */
const BENCH: Benchmark = {
  name: "toy",
  docs: [
    { id: "ΑΚ::1", text: "α β γ" },
    { id: "ΑΚ::2", text: "α, β." },
    { id: "ΑΚ::3", text: "ένα δύο τρία τέσσερα πέντε" },
    { id: "ΠΚ::10", text: "x" },
    { id: "ΠΚ::11", text: "Άρθρο 5, παρ. 2α" },
    { id: "ΚΠολΔ::1", text: "one two\nthree four\nfive six" },
    { id: "N4765::1", text: "a_b c" },
    { id: "plain", text: "no source separator" },
  ],
  queries: [
    { id: "q1", text: "a b" },
    { id: "q2", text: "c" },
    { id: "q3", text: "d e f" },
    { id: "q4", text: "g h i j" },
    { id: "q5", text: "k l m n o" },
  ],
  qrels: new Map([
    ["q1", new Set(["ΑΚ::1", "ΑΚ::2"])],
    ["q2", new Set(["ΑΚ::2", "ΑΚ::3", "ΚΠολΔ::1"])],
    ["q3", new Set(["ΠΚ::10"])],
    ["q4", new Set(["ΠΚ::11"])],
    ["q5", new Set(["ΠΚ::10", "ΠΚ::11"])],
    ["qX", new Set(["plain", "N4765::1"])],
  ]),
  meta: new Map([
    ["q1", { area: "Αστικό", number: 1 }],
    ["q2", { area: "Αστικό", number: 2 }],
    ["q3", { area: "Ποινικό" }],
    ["q4", { date: "2023-05" }],
    ["q5", { area: "Ποινικό" }],
  ]),
};

test("sourceOf: the part before the first '::', or the whole id", () => {
  assert.equal(sourceOf("ΑΚ::914"), "ΑΚ");
  assert.equal(sourceOf("N4824::δέκατο-τρίτο"), "N4824");
  assert.equal(sourceOf("N4858::15Α"), "N4858");
  assert.equal(sourceOf("a::b::c"), "a");
  assert.equal(sourceOf("plain"), "plain");
  assert.equal(sourceOf("::x"), "");
  assert.equal(sourceOf("a:b"), "a:b");
});

test("datasetStats: Table 1 figures of the toy benchmark, by hand", () => {
  const s = datasetStats(BENCH);
  assert.equal(s.queries, 5);
  assert.equal(s.articles, 8);
  assert.equal(s.sources, 5); // ΑΚ, ΠΚ, ΚΠολΔ, N4765, plain
  assert.equal(s.judgments, 9); // 2 + 3 + 1 + 1 + 2; qX not counted
  assert.equal(s.distinctRelevant, 6); // ΑΚ::1-3, ΚΠολΔ::1, ΠΚ::10, ΠΚ::11
  close(s.relevantShareOfPool, 6 / 8, "share of pool");
  close(s.goldPerQuery, 9 / 5, "gold per query");
  close(s.multiGoldShare, 3 / 5, "share with >1 gold"); // q1, q2, q5
  assert.equal(s.medianArticleWords, 3); // [1,2,2,3,3,4,5,6]
  assert.equal(s.medianQueryWords, 3); // [1,2,3,4,5]
});

test("datasetStats: the paper's Table 1 ratios follow from its counts", () => {
  // 283 queries, 6,308 articles, 775 judgments, 465 distinct relevant, 161 queries with > 1 gold.
  const docs = Array.from({ length: 6308 }, (_, i) => ({ id: `S${i % 23}::${i}`, text: "λέξη" }));
  const queries = Array.from({ length: 283 }, (_, i) => ({ id: `q${i}`, text: "ερώτηση" }));
  const qrels = new Map<string, Set<string>>();
  // 122 queries with one gold and 161 with more (10 × 5 + 150 × 4 + 1 × 3 = 653): 775 judgments,
  // drawn cyclically from the first 465 articles.
  const sizes: number[] = [...Array(122).fill(1), ...Array(10).fill(5), ...Array(150).fill(4), 3];
  let next = 0;
  assert.equal(sizes.length, 283);
  assert.equal(sizes.reduce((a, b) => a + b, 0), 775);
  sizes.forEach((k, i) => {
    const set = new Set<string>();
    qrels.set(`q${i}`, set);
    while (set.size < k) set.add(docs[next++ % 465].id);
  });
  const s = datasetStats({ name: "paper-shape", docs, queries, qrels, meta: new Map() });
  assert.equal(s.queries, 283);
  assert.equal(s.articles, 6308);
  assert.equal(s.sources, 23);
  assert.equal(s.judgments, 775);
  assert.equal(s.distinctRelevant, 465);
  assert.equal((100 * s.relevantShareOfPool).toFixed(2), "7.37");
  assert.equal(s.goldPerQuery.toFixed(2), "2.74");
  assert.equal((100 * s.multiGoldShare).toFixed(1), "56.9");
});

test("datasetStats: an empty benchmark gives zeros and NaN medians", () => {
  const s = datasetStats({ name: "empty", docs: [], queries: [], qrels: new Map(), meta: new Map() });
  assert.equal(s.queries, 0);
  assert.equal(s.articles, 0);
  assert.equal(s.sources, 0);
  assert.equal(s.judgments, 0);
  assert.equal(s.distinctRelevant, 0);
  assert.equal(s.relevantShareOfPool, 0);
  assert.equal(s.goldPerQuery, 0);
  assert.equal(s.multiGoldShare, 0);
  assert.ok(Number.isNaN(s.medianArticleWords));
  assert.ok(Number.isNaN(s.medianQueryWords));
});

test("areaStats: Table 6 rows of the toy benchmark, by hand, sorted by area", () => {
  const rows = areaStats(BENCH);
  assert.deepEqual(rows.map((r) => r.area), ["(no area)", "Αστικό", "Ποινικό"]);
  const [unknown, civil, criminal] = rows;
  // Αστικό: q1, q2; gold {ΑΚ::1 (3), ΑΚ::2 (2), ΑΚ::3 (5), ΚΠολΔ::1 (6)}; 5 judgments.
  assert.deepEqual(civil, { area: "Αστικό", queries: 2, goldArticles: 4, relevantPerQuery: 2.5, medianGoldWords: 4 });
  // Ποινικό: q3, q5; gold {ΠΚ::10 (1), ΠΚ::11 (4)}; 3 judgments.
  assert.deepEqual(criminal, { area: "Ποινικό", queries: 2, goldArticles: 2, relevantPerQuery: 1.5, medianGoldWords: 2.5 });
  // q4 has meta but no area.
  assert.deepEqual(unknown, { area: "(no area)", queries: 1, goldArticles: 1, relevantPerQuery: 1, medianGoldWords: 4 });
  // Queries add up to the benchmark's.
  assert.equal(rows.reduce((a, r) => a + r.queries, 0), BENCH.queries.length);
});

test("areaStats: a benchmark without meta is one '(no area)' row", () => {
  const rows = areaStats({ ...BENCH, meta: new Map() });
  assert.equal(rows.length, 1);
  assert.deepEqual(rows[0], {
    area: "(no area)",
    queries: 5,
    goldArticles: 6,
    relevantPerQuery: 9 / 5,
    medianGoldWords: 3.5, // [1,2,3,4,5,6]
  });
});

test("datasetStats on shared greeklaws-2021 (sample queries) matches the data README", async () => {
  const dir = path.join(SHARED, "data", "greeklaws-2021");
  const s = datasetStats(await readBeir(dir, { queriesFile: path.join(dir, "queries-sample.jsonl") }));
  assert.equal(s.queries, 283);
  assert.equal(s.articles, 5692);
  assert.equal(s.sources, 86); // laws parsed
  assert.equal(s.judgments, 283);
  assert.equal(s.distinctRelevant, 283);
  close(s.relevantShareOfPool, 283 / 5692, "share of pool");
  assert.equal(s.goldPerQuery, 1);
  assert.equal(s.multiGoldShare, 0);
  assert.equal(s.medianArticleWords, 195); // README: median 195 words per document
});
