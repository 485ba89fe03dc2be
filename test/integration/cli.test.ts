import { spawnSync } from "node:child_process";
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { promises as fs, readFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { readTrec } from "../../lib/data/runs";
import { readBeir } from "../../lib/data/beir";
import { bm25Search, indexCorpus } from "../../lib/sparse/bm25-retriever";
import { greekStemmerTokenizer } from "../../lib/text/tokenizers";
import { startHubDouble, type HubDouble } from "../fakes/hub-server";
import { REPO, sharedPath } from "../helpers/shared";
import { runGbr } from "../helpers/gbr";

let tmp = "";
let hub: HubDouble;

/** The real `gbr` process, with this test's data folder (see runGbr). */
function gbr(args: string[], opts: { input?: string | Buffer; env?: Record<string, string> } = {}) {
  return runGbr(args, { dataDir: path.join(tmp, "data"), input: opts.input ?? "", env: opts.env, timeoutMs: 120_000 });
}

const G21 = sharedPath("data", "greeklaws-2021");

const DOCS = [
  { id: "ΑΚ::914", text: "Όποιος ζημιώσει άλλον παράνομα και υπαίτια υποχρεούται να τον αποζημιώσει." },
  { id: "ΑΚ::932", text: "Σε αδικοπραξία το δικαστήριο μπορεί να επιδικάσει χρηματική ικανοποίηση για ηθική βλάβη." },
  { id: "ΠΚ::375", text: "Όποιος ιδιοποιείται παράνομα ξένο κινητό πράγμα τιμωρείται με φυλάκιση." },
  { id: "ΚΔ::1", text: "Ο δικηγόρος είναι άμισθος δημόσιος λειτουργός και οφείλει εχεμύθεια." },
];
const QUERIES = [
  { id: "q1", text: "Ο Α τραυματίστηκε από τον Β και υπέστη ηθική βλάβη. Ποια αξίωση έχει για αποζημίωση;" },
  { id: "q2", text: "Ο Γ ιδιοποιήθηκε το κινητό πράγμα του Δ. Τιμωρείται;" },
];
const QRELS = "query-id\tcorpus-id\tscore\nq1\tΑΚ::914\t1\nq1\tΑΚ::932\t1\nq2\tΠΚ::375\t1\n";
const jsonl = (rows: object[]) => rows.map((r) => JSON.stringify(r)).join("\n") + "\n";

before(async () => {
  tmp = await fs.mkdtemp(path.join(os.tmpdir(), "gbr-cli-test-"));
  const mini = path.join(tmp, "mini");
  await fs.mkdir(path.join(mini, "qrels"), { recursive: true });
  await fs.writeFile(path.join(mini, "corpus.jsonl"), jsonl(DOCS));
  await fs.writeFile(path.join(mini, "queries.jsonl"), jsonl(QUERIES));
  await fs.writeFile(path.join(mini, "qrels", "test.tsv"), QRELS);
  await fs.writeFile(path.join(mini, "meta.jsonl"), jsonl([{ id: "q1", area: "civil", date: "2019-09", number: 1 }, { id: "q2", area: "criminal", date: "2019-09", number: 2 }]));
  hub = await startHubDouble({
    readme: [
      "---",
      "configs:",
      ...["corpus", "queries", "qrels", "greekbarbench"].flatMap((c) => [`  - config_name: ${c}`, "    data_files:", "      - split: test", `        path: ${c}.jsonl`]),
      "---",
      "# double",
    ].join("\n"),
    files: {
      "corpus.jsonl": jsonl(DOCS),
      "queries.jsonl": jsonl(QUERIES),
      "qrels.jsonl": jsonl([{ "query-id": "q1", "corpus-id": "ΑΚ::914", score: 1 }, { "query-id": "q1", "corpus-id": "ΑΚ::932", score: 1 }, { "query-id": "q2", "corpus-id": "ΠΚ::375", score: 1 }]),
      "greekbarbench.jsonl": jsonl([{ id: "q1", area: "civil", date: "2019-09", number: 1 }, { id: "q2", area: "criminal", date: "2019-09", number: 2 }]),
    },
  });
});

after(async () => {
  await hub?.close();
  await fs.rm(tmp, { recursive: true, force: true });
});

test("every command answers --help with usage and exit 0; no command or an unknown one is a usage error", async () => {
  for (const cmd of [["data", "pull"], ["data", "stats"], ["stem"], ["tokenize"], ["search"], ["eval"], ["compare"], ["reproduce"], ["report"]]) {
    const r = await gbr([...cmd, "--help"]);
    assert.equal(r.code, 0, cmd.join(" "));
    assert.match(r.stdout, new RegExp(`Usage: gbr ${cmd.join(" ")}`));
  }
  assert.equal((await gbr([])).code, 2);
  const bad = await gbr(["frobnicate"]);
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /unknown command 'frobnicate'/);
  const badOpt = await gbr(["search", "--nope"]);
  assert.equal(badOpt.code, 2);
  assert.match(badOpt.stderr, /--nope/);
});

test("gbr stem agrees with the reference stemmer on the shared oracle", async () => {
  const lines = readFileSync(sharedPath("oracles", "greeklaws-2021", "greekstemmer.tsv"), "utf8").trim().split("\n").slice(0, 3000);
  const r = await gbr(["stem"], { input: lines.map((l) => l.split("\t")[0]).join("\n") + "\n" });
  assert.equal(r.code, 0, r.stderr);
  assert.deepEqual(r.stdout.trimEnd().split("\n"), lines.map((l) => l.split("\t")[1]));
});

test("gbr tokenize: one output line per input line; an unknown tokenizer is a clear error", async () => {
  const r = await gbr(["tokenize", "--tokenizer", "greekstemmer"], { input: "Η αγωγή απορρίπτεται.\n\nΆρθρο 5\u00a0NBSP παρ. 2\n" });
  assert.equal(r.code, 0, r.stderr);
  assert.deepEqual(r.stdout.split("\n"), ["ΑΓΩΓ ΑΠΟΡΡΙΠΤ", "", "ΑΡΘΡ 5 ΠΑΡ 2", ""]);
  assert.equal((await gbr(["tokenize", "--tokenizer", "grnlp"], { input: "Το Άρθρο 5.\n" })).stdout, "το αρθρο 5\n");
  const bad = await gbr(["tokenize", "--tokenizer", "nope"]);
  assert.equal(bad.code, 2, "a usage error");
  assert.match(bad.stderr, /unknown tokenizer 'nope'.*bm25-greekstemmer/);
  const offline = await gbr(["tokenize", "--tokenizer", "spacy"], { input: "x\n" });
  assert.equal(offline.code, 1);
  assert.match(offline.stderr, /spaCy|lemma|download|offline/i);
});

test("gbr search reproduces rank_bm25's run file on greeklaws-2021 (sample queries), as TREC and JSON", async () => {
  const out = path.join(tmp, "bm25.trec");
  const r = await gbr(["search", "--data", G21, "--queries", path.join(G21, "queries-sample.jsonl"), "--retriever", "bm25-greekstemmer", "--out", out]);
  assert.equal(r.code, 0, r.stderr);
  const mine = await readTrec(out);
  const ref = await readTrec(sharedPath("oracles", "greeklaws-2021", "bm25-greekstemmer-sample.trec"));
  assert.deepEqual([...mine.rankings], [...ref.rankings]);
  for (const [q, scores] of ref.scores!) scores.forEach((s, i) => assert.ok(Math.abs(mine.scores!.get(q)![i] - s) <= 1e-9 * Math.abs(s)));
  const json = path.join(tmp, "bm25.json");
  assert.equal((await gbr(["search", "--data", G21, "--queries", path.join(G21, "queries-sample.jsonl"), "--out", json, "-q"])).code, 0);
  const parsed = JSON.parse(readFileSync(json, "utf8"));
  assert.deepEqual(parsed, JSON.parse(readFileSync(sharedPath("oracles", "greeklaws-2021", "bm25-greekstemmer-sample.json"), "utf8")));
});

test("gbr search options: --k, --k1/--b, --positive-only, stdout output, and validation errors", async () => {
  const mini = path.join(tmp, "mini");
  const r = await gbr(["search", "--data", mini, "--k", "2", "--positive-only", "-q"]);
  assert.equal(r.code, 0, r.stderr);
  const lines = r.stdout.trim().split("\n").map((l) => l.split(" "));
  assert.ok(lines.every((c) => c.length === 6 && Number(c[4]) > 0));
  assert.deepEqual(lines.filter((c) => c[0] === "q2").map((c) => c[2]), ["ΠΚ::375"]);
  const tuned = await gbr(["search", "--data", mini, "--k1", "0.9", "--b", "0.4", "--format", "json", "-q"]);
  assert.equal(tuned.code, 0, tuned.stderr);
  const bench = await readBeir(mini);
  const corpus = indexCorpus(bench.docs, greekStemmerTokenizer());
  const expected = bm25Search(corpus, corpus.index.withParams({ k1: 0.9, b: 0.4 }), bench.queries, 100);
  assert.deepEqual(JSON.parse(tuned.stdout), Object.fromEntries(expected.rankings));
  const tunedTrec = await gbr(["search", "--data", mini, "--k1", "0.9", "--b", "0.4", "-q"]);
  assert.equal(Number(tunedTrec.stdout.split("\n")[0].split(" ")[4]), expected.scores!.get("q1")![0]);
  const badK = await gbr(["search", "--data", mini, "--k", "0"]);
  assert.equal(badK.code, 2);
  assert.match(badK.stderr, /--k must be an integer >= 1/);
  const badB = await gbr(["search", "--data", mini, "--b", "1.5"]);
  assert.match(badB.stderr, /--b must be a number from 0 to 1/);
  const missing = await gbr(["search", "--data", path.join(tmp, "nowhere")]);
  assert.equal(missing.code, 2, "a usage error");
  assert.match(missing.stderr, /--data .*nowhere: .*nowhere does not exist/);
});

test("hardening (issue 22, items 6, 9, 11, 18): negative values, ranges, strict stdin, help and version, pipes, --data", async () => {
  // 9: a negative number reaches the option's range check; a huge k1 is refused before it makes NaN scores.
  const negK = await gbr(["search", "--data", "sample", "--k", "-1"]);
  assert.equal(negK.code, 2);
  assert.match(negK.stderr, /--k must be an integer >= 1, got '-1'/);
  const negK1 = await gbr(["search", "--data", "sample", "--k1", "-1"]);
  assert.match(negK1.stderr, /--k1 must be a number from 0 to 1000000, got '-1'/);
  const hugeK1 = await gbr(["search", "--data", "sample", "--k1", "1e308"]);
  assert.equal(hugeK1.code, 2);
  const tok = await gbr(["tokenize", "--tokenizer", "greekstemer"], { input: "x\n" });
  assert.equal(tok.code, 2);
  assert.match(tok.stderr, /did you mean 'bm25-greekstemmer'/);
  // 6: stdin is as strict as every file.
  const stem = await gbr(["stem"], { input: Buffer.from([0x61, 0x62, 0xff, 0x63, 0x64, 0x0a]) });
  assert.equal(stem.code, 1);
  assert.match(stem.stderr, /<stdin>:1: invalid UTF-8 at byte offset 2/);
  assert.equal(stem.stdout, "");
  // 11: bare gbr is a usage error on stderr; -V, version and help <command>.
  const bare = await gbr([]);
  assert.equal(bare.code, 2);
  assert.equal(bare.stdout, "");
  assert.match(bare.stderr, /Usage: gbr <command>/);
  for (const v of [["-V"], ["version"], ["--version"]]) assert.match((await gbr(v)).stdout, /^\d+\.\d+\.\d+\n$/);
  const help = await gbr(["help", "eval"]);
  assert.equal(help.code, 0);
  assert.match(help.stdout, /^Evaluate a run/);
  // 18: a mistyped source gets the near name; a parent folder lists the datasets in it.
  const typo = await gbr(["search", "--data", "smaple"]);
  assert.equal(typo.code, 2);
  assert.match(typo.stderr, /did you mean 'sample'\?/);
  const parent = await gbr(["search", "--data", path.dirname(G21)]);
  assert.equal(parent.code, 2);
  assert.match(parent.stderr, /holds the BEIR folders .*greeklaws-2021/);
  // …and with no --data and no Hub, search falls back to the demo set as reproduce does, saying so.
  const fallback = await gbr(["search", "--retriever", "bm25-greekstemmer"]);
  assert.equal(fallback.code, 0, fallback.stderr);
  assert.match(fallback.stderr, /falling back to the bundled demo set/);
  assert.match(fallback.stdout, /^Q01 Q0 /);
});

test("hardening (issue 22, item 11): a reader that stops early ends the output quietly", async () => {
  const r = spawnSync("bash", ["-c", `set -o pipefail; node ${JSON.stringify(path.join(REPO, "bin", "gbr.js"))} search --data sample -q | head -1`], {
    encoding: "utf8",
    env: { ...process.env, GBR_DATA_DIR: path.join(tmp, "pipe-data") },
  });
  assert.equal(r.stdout.split("\n").filter(Boolean).length, 1);
  assert.doesNotMatch(r.stderr, /EPIPE|Error/);
  assert.equal(r.status, 0);
});

test("gbr eval matches the paper's metrics and trec_eval on the oracle run", async () => {
  const run = sharedPath("oracles", "greeklaws-2021", "bm25-greekstemmer-sample.trec");
  const qrels = path.join(G21, "qrels", "sample.tsv");
  const j = await gbr(["eval", "--qrels", qrels, "--run", run, "--json", "--per-query"]);
  assert.equal(j.code, 0, j.stderr);
  const body = JSON.parse(j.stdout);
  const ref = readFileSync(sharedPath("oracles", "greeklaws-2021", "metrics-sample.tsv"), "utf8").trim().split("\n");
  const header = ref[0].split("\t").slice(1);
  const mean = ref[ref.length - 1].split("\t").slice(1).map(Number);
  header.forEach((m, i) => assert.ok(Math.abs(body.mean[m] - mean[i]) <= 1e-9, m));
  assert.equal(Object.keys(body.perQuery).length, 283);
  const table = await gbr(["eval", "--qrels", qrels, "--run", run]);
  assert.match(table.stdout, /mean\s+0\.7025\s+0\.7240\s+0\.8587\s+0\.9576\s+0\.6568/);
  const missing = await gbr(["eval", "--qrels", qrels]);
  assert.equal(missing.code, 2);
  assert.match(missing.stderr, /--run FILE/);
});

test("gbr data stats prints Tables 1 and 6; --json is machine-readable", async () => {
  const r = await gbr(["data", "stats", "--data", path.join(tmp, "mini"), "--json"]);
  assert.equal(r.code, 0, r.stderr);
  const s = JSON.parse(r.stdout);
  assert.deepEqual(
    { q: s.table1.queries, a: s.table1.articles, src: s.table1.sources, j: s.table1.judgments, multi: s.table1.multiGoldShare },
    { q: 2, a: 4, src: 3, j: 3, multi: 0.5 },
  );
  assert.deepEqual(s.table6.map((r: { area: string }) => r.area), ["civil", "criminal"]);
  const text = await gbr(["data", "stats", "--data", path.join(tmp, "mini")]);
  assert.match(text.stdout, /Table 1/);
  assert.match(text.stdout, /Table 6/);
});

test("gbr data pull downloads from a Hub (local double), verifies, and writes a BEIR folder that --data reads back", async () => {
  const dir = path.join(tmp, "pulled");
  const r = await gbr(["data", "pull", "--dir", dir], { env: { HF_ENDPOINT: hub.url } });
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /4 articles, 2 queries, 3 judgments/);
  const search = await gbr(["search", "--data", dir, "-q", "--format", "json"]);
  assert.equal(search.code, 0, search.stderr);
  assert.equal(Object.keys(JSON.parse(search.stdout)).length, 2);
  const offline = await gbr(["data", "pull"], { env: { GBR_DATA_DIR: path.join(tmp, "empty-cache") } });
  assert.equal(offline.code, 1);
  assert.match(offline.stderr, /--data sample/);
});

test("gbr reproduce runs the sparse baselines, lists the unavailable one as skipped, and writes every output", async () => {
  const out = path.join(tmp, "outputs");
  const r = await gbr(["reproduce", "--data", path.join(tmp, "mini"), "--out", out]);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /bm25-greekstemmer\s+[\d.]+/);
  assert.match(r.stdout, /Not run[^]*bm25-spacy — skipped: spaCy/);
  const dir = path.join(out, "mini");
  for (const f of ["summary.csv", "per-query.csv", "table1.csv", "table6.csv", "metadata.json", "qrels.txt", "runs/bm25-greekstemmer.trec", "runs/bm25-grnlp.json"]) {
    await fs.access(path.join(dir, f));
  }
  const summary = readFileSync(path.join(dir, "summary.csv"), "utf8");
  assert.match(summary, /bm25-spacy,4\.1,skipped,/);
  // A quick experiment gets no line of its own on stderr: the closing table has it.
  assert.doesNotMatch(r.stderr, /\[1\/\d+\] bm25-greekstemmer/);
  assert.match(r.stdout, /^bm25-greekstemmer +\d\.\d{4} /m);
});

test("gbr reproduce --data hf loads from the Hub when reachable and falls back to the sample when not", async () => {
  const viaHub = await gbr(["reproduce", "--data", "hf", "--out", path.join(tmp, "out-hf"), "--only", "bm25-greekstemmer"], { env: { HF_ENDPOINT: hub.url } });
  assert.equal(viaHub.code, 0, viaHub.stderr);
  assert.match(viaHub.stdout, /Results — hf \(2 queries, /);
  const fallback = await gbr(["reproduce", "--out", path.join(tmp, "out-fb"), "--only", "bm25-greekstemmer"], { env: { GBR_DATA_DIR: path.join(tmp, "no-cache") } });
  assert.equal(fallback.code, 0, fallback.stderr);
  assert.match(fallback.stderr, /falling back to the bundled demo set/);
  assert.match(fallback.stdout, /NOTE: .*demo set/);
});

test("gbr reproduce --data sample: every sparse baseline runs or is skipped with a reason, and the numbers are sane", async () => {
  const out = path.join(tmp, "out-sample");
  const r = await gbr(["reproduce", "--data", "sample", "--out", out]);
  assert.equal(r.code, 0, r.stderr);
  const rows = readFileSync(path.join(out, "sample", "summary.csv"), "utf8").trim().split("\n").slice(1).map((l) => l.split(","));
  const status = Object.fromEntries(rows.map((c) => [c[0], c[2]]));
  assert.deepEqual(
    ["bm25-greekstemmer", "bm25-spacy", "bm25-grnlp", "lsi", "prf:bm25-greekstemmer", "prf:lsi", "rrf:bm25-greekstemmer+lsi"].map((id) => status[id]),
    ["ok", "skipped", "ok", "ok", "ok", "ok", "ok"],
  );
  // Without an embedding server or a Gemini key, every API-backed row is skipped, none failed.
  assert.ok(rows.filter((c) => c[0].includes("dense:")).every((c) => c[2] === "skipped"));
  for (const c of rows.filter((c) => c[2] === "ok")) {
    const recall100 = Number(c[6]);
    assert.ok(recall100 > 0.5 && recall100 <= 1, `${c[0]} Recall@100 ${recall100}`);
  }
  const perQuery = readFileSync(path.join(out, "sample", "per-query.csv"), "utf8").trim().split("\n");
  assert.equal(perQuery.length, 1 + rows.filter((c) => c[2] === "ok").length * 26);
  const meta = JSON.parse(readFileSync(path.join(out, "sample", "metadata.json"), "utf8"));
  assert.equal(meta.origin, "sample");
  assert.equal(meta.queries, 26);
});

test("gbr reproduce --data hf does not hide a broken dataset behind the sample fallback", async () => {
  const broken = await startHubDouble({ readme: "---\nconfigs:\n  - config_name: other\n    data_files: x.csv\n---\n", files: { "x.csv": "a\n1\n" } });
  try {
    const r = await gbr(["reproduce", "--data", "hf", "--out", path.join(tmp, "out-broken")], { env: { HF_ENDPOINT: broken.url, GBR_DATA_DIR: path.join(tmp, "broken-cache") } });
    assert.equal(r.code, 1);
    assert.doesNotMatch(r.stderr, /falling back/);
    assert.match(r.stderr, /corpus/);
  } finally {
    await broken.close();
  }
});

test("issue 29, row 11: --repeat has a ceiling (a million repeats ran for minutes and gigabytes)", async () => {
  const huge = await gbr(["reproduce", "--plan", "--repeat", "1000000", "--out", path.join(tmp, "repeat-huge")]);
  assert.equal(huge.code, 2, huge.stderr);
  assert.match(huge.stderr, /--repeat must be an integer from 1 to 1000, got '1000000'/);
});
