/**
 * `gbr errors` on two real runs of greeklaws-2021's sample queries: the oracle BM25 run (file
 * from ../shared) against LSI, which `gbr search` makes here. The counts are checked against an
 * independent computation from `gbr eval --per-query --json` of both runs.
 */
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { promises as fs } from "node:fs";
import os from "node:os";
import path from "node:path";
import { readTrec } from "../../lib/data/runs";
import { requireShared } from "../helpers/shared";
import { runGbr } from "../helpers/gbr";

let tmp = "";
let G21 = "";
let QRELS = "";
let BM25 = "";
let LSI = "";

function gbr(args: string[]) {
  return runGbr(args, { dataDir: path.join(tmp, "data"), timeoutMs: 120_000 });
}

type PerQuery = Record<string, Record<string, number>>;

async function perQueryOf(run: string): Promise<PerQuery> {
  const r = await gbr(["eval", "--qrels", QRELS, "--run", run, "--per-query", "--json"]);
  assert.equal(r.code, 0, r.stderr);
  return (JSON.parse(r.stdout) as { perQuery: PerQuery }).perQuery;
}

/** Wins, ties and losses of a against b, counted here the plain way. */
function count(a: PerQuery, b: PerQuery, metric: string, queries: readonly string[]) {
  const c = { queries: 0, wins: 0, ties: 0, losses: 0 };
  for (const q of queries) {
    const d = a[q][metric] - b[q][metric];
    c.queries++;
    if (Math.abs(d) <= 1e-12) c.ties++;
    else if (d > 0) c.wins++;
    else c.losses++;
  }
  return c;
}

before(async () => {
  // Missing shared data throws here, so every test of the file fails (never skips).
  G21 = requireShared("data", "greeklaws-2021");
  QRELS = requireShared("data", "greeklaws-2021", "qrels", "sample.tsv");
  BM25 = requireShared("oracles", "greeklaws-2021", "bm25-greekstemmer-sample.trec");
  tmp = await fs.mkdtemp(path.join(os.tmpdir(), "gbr-errors-test-"));
  LSI = path.join(tmp, "lsi.trec");
  const r = await gbr(["search", "--data", G21, "--queries", path.join(G21, "queries-sample.jsonl"), "--retriever", "lsi", "--out", LSI, "-q"]);
  assert.equal(r.code, 0, r.stderr);
});

after(async () => {
  if (tmp) await fs.rm(tmp, { recursive: true, force: true });
});

test("gbr errors --json: BM25 against LSI, counts equal to an independent count from gbr eval", async (t) => {
  const [a, b] = [await perQueryOf(BM25), await perQueryOf(LSI)];
  const shared = Object.keys(a).filter((q) => q in b);
  assert.equal(shared.length, 283);
  for (const metric of ["Recall@100", "nDCG@10"]) {
    const r = await gbr(["errors", "--qrels", QRELS, "--run", BM25, "--run", LSI, "--metric", metric, "--top", "5", "--json"]);
    assert.equal(r.code, 0, r.stderr);
    const e = JSON.parse(r.stdout);
    assert.deepEqual(Object.keys(e), ["a", "b", "metric", "means", "winLoss", "largestDifferences", "firstGoldRanks"]);
    assert.deepEqual([e.a, e.b, e.metric], ["bm25-greekstemmer-sample", "lsi", metric]);
    const total = e.winLoss.total;
    t.diagnostic(`${metric}: bm25-greekstemmer-sample vs lsi: ${total.wins} wins, ${total.ties} ties, ${total.losses} losses`);
    assert.equal(total.wins + total.ties + total.losses, shared.length);
    assert.deepEqual(total, count(a, b, metric, shared));
    // The largest differences: at most 5, |Δ| non-increasing, each Δ the eval outputs' difference.
    const diffs = e.largestDifferences as { query: string; delta: number; a: number; b: number }[];
    assert.ok(diffs.length > 0 && diffs.length <= 5);
    for (let i = 1; i < diffs.length; i++) assert.ok(Math.abs(diffs[i - 1].delta) >= Math.abs(diffs[i].delta));
    for (const d of diffs) assert.deepEqual([d.a, d.b, d.delta], [a[d.query][metric], b[d.query][metric], a[d.query][metric] - b[d.query][metric]]);
    // Each run's distribution covers every query once.
    for (const run of e.firstGoldRanks.runs) assert.equal(run.counts.reduce((s: number, x: number) => s + x, 0), shared.length);
  }
});

test("gbr errors: the gold ranks it reports are the runs' own ranks", async () => {
  const r = await gbr(["errors", "--qrels", QRELS, "--run", BM25, "--run", LSI, "--top", "20", "--json"]);
  assert.equal(r.code, 0, r.stderr);
  const [bm25, lsi] = [await readTrec(BM25), await readTrec(LSI)];
  const rankIn = (ranking: string[] | undefined, id: string) => {
    const i = (ranking ?? []).slice(0, 100).indexOf(id);
    return i < 0 ? null : i + 1;
  };
  const diffs = JSON.parse(r.stdout).largestDifferences as { query: string; gold: { article: string; rankA: number | null; rankB: number | null }[] }[];
  assert.ok(diffs.length > 0);
  for (const d of diffs) {
    for (const g of d.gold) assert.deepEqual([g.rankA, g.rankB], [rankIn(bm25.rankings.get(d.query), g.article), rankIn(lsi.rankings.get(d.query), g.article)], `${d.query} ${g.article}`);
  }
});

test("gbr errors --meta: wins, ties and losses per legal area add up to the total", async () => {
  const [a, b] = [await perQueryOf(BM25), await perQueryOf(LSI)];
  const queries = Object.keys(a);
  // Areas assigned here by position (the shared sets carry none); every third query has none.
  const areaOf = (i: number) => ["civil", "criminal", ""][i % 3];
  const meta = path.join(tmp, "meta.jsonl");
  await fs.writeFile(meta, queries.map((id, i) => JSON.stringify({ id, area: areaOf(i) }) + "\n").join(""));
  const r = await gbr(["errors", "--qrels", QRELS, "--run", BM25, "--run", LSI, "--meta", meta, "--json"]);
  assert.equal(r.code, 0, r.stderr);
  const byArea = JSON.parse(r.stdout).winLoss.byArea as { group: string; queries: number; wins: number; ties: number; losses: number }[];
  assert.deepEqual(byArea.map((g) => g.group), ["(no area)", "civil", "criminal"]);
  for (const g of byArea) {
    const members = queries.filter((_, i) => (areaOf(i) || "(no area)") === g.group);
    const { group: _group, ...counts } = g;
    assert.deepEqual(counts, count(a, b, "nDCG@10", members), g.group);
  }
  const text = await gbr(["errors", "--qrels", QRELS, "--run", BM25, "--run", LSI, "--meta", meta]);
  assert.equal(text.code, 0, text.stderr);
  const total = JSON.parse(r.stdout).winLoss.total;
  for (const k of ["queries", "wins", "ties", "losses"] as const) assert.equal(byArea.reduce((s, g) => s + g[k], 0), total[k], k);
  assert.match(text.stdout, new RegExp(`^\\(all\\)\\s+283\\s+${total.wins}\\s+${total.ties}\\s+${total.losses}$`, "m"));
  // The default metric is nDCG@10 (issue 22, item 20: Recall@100 ties on every question of a known-item set).
  assert.match(text.stdout, /^nDCG@10: bm25-greekstemmer-sample \(A, mean 0\.\d{4}\) against lsi \(B, mean 0\.\d{4}\), 283 queries/);
  assert.match(text.stdout, /^Rank of the first gold article/m);
  assert.match(text.stdout, /^not found\s+\d+\s+\d+$/m);
});

test("gbr errors: usage errors name the problem (exit 2)", async () => {
  const one = await gbr(["errors", "--qrels", QRELS, "--run", BM25]);
  assert.equal(one.code, 2);
  assert.match(one.stderr, /gbr errors needs exactly two runs \(--run A --run B\), got 1/);
  const noQrels = await gbr(["errors", "--run", BM25, "--run", LSI]);
  assert.equal(noQrels.code, 2);
  assert.match(noQrels.stderr, /--qrels/);
  const metric = await gbr(["errors", "--qrels", QRELS, "--run", BM25, "--run", LSI, "--metric", "P@5"]);
  assert.equal(metric.code, 2);
  assert.match(metric.stderr, /'P@5' is one of gbr eval's metrics at any cut \(MRR@k, P@k, Success@k, Judged@k\); here only the paper's five: nDCG@10, nDCG@100, Recall@10, Recall@100, MAP@100/);
  const top = await gbr(["errors", "--qrels", QRELS, "--run", BM25, "--run", LSI, "--top", "0"]);
  assert.equal(top.code, 2);
  assert.match(top.stderr, /--top must be an integer >= 1/);
  const same = await gbr(["errors", "--qrels", QRELS, "--run", BM25, "--run", BM25]);
  assert.equal(same.code, 2);
  assert.match(same.stderr, /both runs are named 'bm25-greekstemmer-sample'/);
});
