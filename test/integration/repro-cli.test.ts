/**
 * `gbr repro` end to end on runs `gbr search` makes of the sample: BM25 with the Greek stemmer (baseline) and with
 * GR-NLP's tokenizer (advanced), "reproduced" with other k1 and b. ER, ΔRI and RMSE are checked against the published
 * formulas applied here to the per-query scores `gbr eval --per-query --json` prints for each run.
 */
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { promises as fs } from "node:fs";
import os from "node:os";
import path from "node:path";
import { REPO } from "../helpers/shared";
import { runGbr } from "../helpers/gbr";

const QRELS = path.join(REPO, "data", "sample", "qrels", "test.tsv");
const RUNS = { baseline: ["bm25-greekstemmer"], advanced: ["bm25-grnlp"], "rep-baseline": ["bm25-greekstemmer", "0.6", "0.3"], "rep-advanced": ["bm25-grnlp", "0.6", "0.3"] };
let tmp = "";
const file = (name: string) => path.join(tmp, `${name}.trec`);
const gbr = (args: string[]) => runGbr(args, { dataDir: path.join(tmp, "data"), timeoutMs: 120_000 });

before(async () => {
  tmp = await fs.mkdtemp(path.join(os.tmpdir(), "gbr-repro-test-"));
  for (const [name, [retriever, k1, b]] of Object.entries(RUNS)) {
    const r = await gbr(["search", "--data", "sample", "--retriever", retriever, ...(k1 ? ["--k1", k1, "--b", b] : []), "--out", file(name)]);
    assert.equal(r.code, 0, r.stderr);
  }
});

after(async () => {
  await fs.rm(tmp, { recursive: true, force: true });
});

type PerQuery = Record<string, Record<string, number>>;

async function perQueryOf(name: string): Promise<PerQuery> {
  const r = await gbr(["eval", "--qrels", QRELS, "--run", file(name), "--per-query", "--json"]);
  assert.equal(r.code, 0, r.stderr);
  return (JSON.parse(r.stdout) as { perQuery: PerQuery }).perQuery;
}

const close = (a: number, b: number, what: string) => assert.ok(Math.abs(a - b) < 1e-12, `${what}: ${a} vs ${b}`);

test("gbr repro --json: ER, ΔRI and RMSE equal the published formulas on the runs' per-query scores", async () => {
  const args = ["repro", "--qrels", QRELS, ...Object.keys(RUNS).flatMap((k) => [`--${k}`, file(k)])];
  const r = await gbr([...args, "--json"]);
  assert.equal(r.code, 0, r.stderr);
  const out = JSON.parse(r.stdout);
  assert.deepEqual(Object.keys(out), ["KTU", "RBO", "RMSE", "ER", "DeltaRI", "pValues"]);
  const [ob, oa, rb, ra] = await Promise.all(Object.keys(RUNS).map(perQueryOf));
  const topics = Object.keys(ob);
  assert.equal(topics.length, 26);
  for (const m of ["nDCG@10", "nDCG@100", "Recall@10", "Recall@100", "MAP@100"]) {
    const col = (pq: PerQuery) => topics.map((q) => pq[q][m]);
    const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
    const improvement = (a: PerQuery, b: PerQuery) => mean(topics.map((q) => a[q][m] - b[q][m]));
    const ri = (a: PerQuery, b: PerQuery) => (mean(col(a)) - mean(col(b))) / mean(col(b));
    const rmse = (o: PerQuery, p: PerQuery) => Math.sqrt(mean(topics.map((q) => (o[q][m] - p[q][m]) ** 2)));
    close(out.ER[m], improvement(ra, rb) / improvement(oa, ob), `ER ${m}`);
    close(out.DeltaRI[m], ri(oa, ob) - ri(ra, rb), `ΔRI ${m}`);
    close(out.RMSE.baseline[m], rmse(ob, rb), `RMSE baseline ${m}`);
    close(out.RMSE.advanced[m], rmse(oa, ra), `RMSE advanced ${m}`);
    for (const s of ["baseline", "advanced"]) assert.ok(out.pValues[s][m] >= 0 && out.pValues[s][m] <= 1, `p ${s} ${m}`);
  }
  // other k1 and b move the rankings but keep most of the top: agreement between -1 and 1, RBO well above 0.
  for (const s of ["baseline", "advanced"]) {
    assert.ok(out.KTU[s] > -1 && out.KTU[s] < 1, `KTU ${s} ${out.KTU[s]}`);
    assert.ok(out.RBO[s] > 0.5 && out.RBO[s] < 1, `RBO ${s} ${out.RBO[s]}`);
  }

  // A run compared with itself: KTU and RBO 1, RMSE 0.
  const self = await gbr(["repro", "--qrels", QRELS, "--baseline", file("baseline"), "--advanced", file("advanced"), "--rep-baseline", file("baseline"), "--rep-advanced", file("advanced"), "--json", "--metrics", "ndcg_cut_10"]);
  assert.equal(self.code, 0, self.stderr);
  const same = JSON.parse(self.stdout);
  assert.deepEqual(same.KTU, { baseline: 1, advanced: 1 });
  assert.deepEqual(same.RMSE, { baseline: { "nDCG@10": 0 }, advanced: { "nDCG@10": 0 } });
  assert.deepEqual(same.ER, { "nDCG@10": 1 });
  close(same.RBO.baseline, 1, "RBO of a run with itself");

  const text = await gbr(args);
  assert.equal(text.code, 0, text.stderr);
  assert.match(text.stdout, /KTU\s+-?\d\.\d{4}\s+-?\d\.\d{4}/);
  assert.match(text.stdout, new RegExp(`nDCG@10\\s+${out.RMSE.baseline["nDCG@10"].toFixed(4)}`));
  assert.match(text.stdout, /ER 1: the same mean improvement/);
});

test("gbr repro names what is missing", async () => {
  const r = await gbr(["repro", "--qrels", QRELS, "--baseline", file("baseline")]);
  assert.equal(r.code, 2);
  assert.match(r.stderr, /missing --advanced, --rep-baseline, --rep-advanced/);
});
