/**
 * Issue 10, items 6 and 7 through the real `gbr`: the oracle and cross-validated tuning rows, and a
 * terminal a person can read (each skip reason once, the closing summary, `-q`, `gbr stem`).
 */
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { promises as fs, readFileSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { parse } from "csv-parse/sync";
import { startHubDouble } from "../fakes/hub-server";
import { runGbr } from "../helpers/gbr";
import { REPO, requireShared } from "../helpers/shared";

let tmp = "";

before(async () => {
  tmp = await fs.mkdtemp(path.join(os.tmpdir(), "gbr-terminal-test-"));
});

after(async () => {
  await fs.rm(tmp, { recursive: true, force: true });
});

test("tuning: oracle: is the sweep's best on the queries it is scored on, tuned: the 5-fold estimate, never above it", async () => {
  const set = requireShared("data", "greeklaws-2021");
  const out = path.join(tmp, "tuning");
  const r = await runGbr(["reproduce", "--data", set, "--queries", path.join(set, "queries-sample.jsonl"), "--out", out, "--only", "oracle:bm25-greekstemmer,tuned:bm25-greekstemmer"], { dataDir: path.join(tmp, "data") });
  assert.equal(r.code, 0, r.stderr);
  const dir = path.join(out, "greeklaws-2021--queries-sample");
  const rows = new Map((parse(readFileSync(path.join(dir, "summary.csv"), "utf8"), { columns: true }) as Record<string, string>[]).map((row) => [row.experiment, row]));
  const recall = (id: string) => Number(rows.get(id)!["Recall@100"]);
  assert.equal(rows.get("oracle:bm25-greekstemmer")!.status, "ok");
  assert.equal(rows.get("tuned:bm25-greekstemmer")!.status, "ok");
  const sweep = JSON.parse(readFileSync(path.join(dir, "sweep.json"), "utf8"));
  const gridBest = Math.max(...(sweep.z as number[][]).flat());
  assert.equal(sweep.oracle.value, gridBest);
  assert.ok(Math.abs(recall("oracle:bm25-greekstemmer") - gridBest) < 1e-12, "the oracle row is the grid's best");
  assert.ok(gridBest < 1, "a set where tuning matters");
  assert.equal(sweep.cv.folds.length, 5);
  assert.ok(Math.abs(sweep.cv.mean["Recall@100"] - recall("tuned:bm25-greekstemmer")) < 1e-12, "tuned: is the CV estimate");
  assert.ok(recall("tuned:bm25-greekstemmer") <= gridBest + 1e-12, "a cross-validated estimate cannot beat the oracle");
});

test("the terminal lists each skip reason once with the experiments it covers, and ends with the summary block", async () => {
  const out = path.join(tmp, "out");
  const ids = ["bm25-greekstemmer", "lsi", "prf:bm25-greekstemmer", "dense:qwen3-8b", "prf:dense:qwen3-8b"];
  const r = await runGbr(["reproduce", "--data", "sample", "--out", out, "--only", ids.join(",")], { dataDir: path.join(tmp, "data") });
  // Asked for by name and not run: exit 1, as `gbr search` would, with the experiments named last on stderr.
  assert.equal(r.code, 1, r.stderr);
  assert.match(r.stderr.trim().split("\n").pop()!, /^gbr reproduce: dense:qwen3-8b, prf:dense:qwen3-8b skipped \(the reason is above\)$/);
  // Once in the progress on stderr (the next experiment refers to it), once in the summary on stdout.
  const reason = /no OpenAI-compatible embedding server configured/g;
  assert.equal(r.stdout.match(reason)?.length, 1, r.stdout);
  assert.equal(r.stderr.match(reason)?.length, 1, r.stderr);
  assert.doesNotMatch(r.stderr, /prf:dense:qwen3-8b: skipped/, "a reason told once is not told again");
  assert.match(r.stdout, /^  dense:qwen3-8b, prf:dense:qwen3-8b — skipped: no OpenAI-compatible embedding server configured/m);
  // The closing block: what the numbers are on, every file written, the counts last.
  const tail = r.stdout.trim().split("\n").slice(-4);
  assert.match(tail[0], /demo set/);
  assert.match(tail[1], /^Written to .*sample\/: /);
  for (const f of ["summary.csv", "per-query.csv", "significance.json", "reproduction.csv", "metadata.json"]) assert.ok(tail[1].includes(f), `${f} in ${tail[1]}`);
  assert.equal(tail[2], "3 ran, 2 skipped, 0 failed.");
  // The last line says what to do next (issue 22, item 17).
  assert.equal(tail[3], `Next: npx gbr report --out ${out} (one HTML page with every table and figure), or open ${path.join(out, "sample", "summary.csv")}.`);
});

test("-q silences progress on stderr, the Hub download included; without it the download reports progress", async () => {
  const sample = (f: string) => readFileSync(path.join(REPO, "data", "sample", f), "utf8");
  const readme = [
    "---",
    "configs:",
    ...["corpus", "queries", "qrels", "greekbarbench"].flatMap((c) => [`  - config_name: ${c}`, "    data_files:", "      - split: test", `        path: ${c}.jsonl`]),
    "---",
    "# a double of the benchmark",
    "",
  ].join("\n");
  const qrels = sample("qrels/test.tsv").trim().split("\n").slice(1).map((l) => {
    const [q, c, s] = l.split("\t");
    return JSON.stringify({ "query-id": q, "corpus-id": c, score: Number(s) });
  });
  const hub = await startHubDouble({
    readme,
    files: { "corpus.jsonl": sample("corpus.jsonl"), "queries.jsonl": sample("queries.jsonl"), "qrels.jsonl": qrels.join("\n") + "\n", "greekbarbench.jsonl": sample("meta.jsonl") },
  });
  try {
    const args = (out: string) => ["reproduce", "--data", "hf", "--out", path.join(tmp, out), "--only", "bm25-greekstemmer"];
    const quiet = await runGbr([...args("quiet"), "-q"], { dataDir: path.join(tmp, "hub-quiet"), env: { HF_ENDPOINT: hub.url } });
    assert.equal(quiet.code, 0, quiet.stderr);
    assert.equal(quiet.stderr, "", "nothing on stderr with -q");
    assert.match(quiet.stdout, /1 ran, 0 skipped, 0 failed\.$/m);
    const loud = await runGbr(args("loud"), { dataDir: path.join(tmp, "hub-loud"), env: { HF_ENDPOINT: hub.url } });
    assert.equal(loud.code, 0, loud.stderr);
    assert.match(loud.stderr, /corpus\.jsonl|download/i, "the download shows progress without -q");
  } finally {
    await hub.close();
  }
});

test("gbr stem folds case and accents itself: ordinary Greek gives the stems of the normalised words", async () => {
  const dataDir = path.join(tmp, "data-stem");
  const ordinary = await runGbr(["stem"], { dataDir, input: "Συμβάσεις\nαγωγή\nΑΠΟΖΗΜΙΩΣΗ\n" });
  const normalised = await runGbr(["stem"], { dataDir, input: "ΣΥΜΒΑΣΕΙΣ\nΑΓΩΓΗ\nΑΠΟΖΗΜΙΩΣΗ\n" });
  assert.equal(ordinary.code, 0, ordinary.stderr);
  assert.equal(ordinary.stdout, normalised.stdout);
  assert.equal(ordinary.stdout.trim().split("\n").length, 3);
});

test("hardening (issue 22, items 7, 8, 10, 13): --only, -q, --out, --rounds and --plan say what they mean", async () => {
  const run = (args: string[]) => runGbr(["reproduce", "--data", "sample", ...args], { dataDir: path.join(tmp, "data-hard") });
  // 7: --only "" is not "everything".
  const empty = await run(["--only", "", "--out", path.join(tmp, "h0")]);
  assert.equal(empty.code, 2);
  assert.match(empty.stderr, /--only needs experiment ids/);
  // 8: -q silences progress, not the reason an experiment asked for did not run.
  const quiet = await run(["-q", "--only", "dense:qwen3-8b", "--out", path.join(tmp, "h1")]);
  assert.equal(quiet.code, 1);
  assert.match(quiet.stderr, /^gbr reproduce: dense:qwen3-8b skipped: no OpenAI-compatible embedding server configured/m);
  // 10: a file where the outputs go is refused before any experiment runs; REACT's rounds have a ceiling.
  const file = path.join(tmp, "a-file");
  writeFileSync(file, "x");
  const onFile = await run(["--only", "bm25-greekstemmer", "--out", file]);
  assert.equal(onFile.code, 2);
  assert.match(onFile.stderr, /--out .*a-file is a file, not a folder/);
  assert.doesNotMatch(onFile.stderr, /\[1\/1\]/, "nothing ran");
  const rounds = await run(["--plan", "--rounds", "1000000000", "--out", path.join(tmp, "h2")]);
  assert.equal(rounds.code, 2);
  assert.match(rounds.stderr, /--rounds must be an integer from 1 to 100/);
  // 13: a plan prints no metric of its stand-in runs.
  const plan = await run(["--plan", "--only", "bm25-greekstemmer,lsi", "--out", path.join(tmp, "h3")]);
  assert.equal(plan.code, 0, plan.stderr);
  assert.doesNotMatch(plan.stderr, /Recall@100/);
  // Quick experiments get no line of their own (their table follows); the plan's table lists both.
  assert.doesNotMatch(plan.stderr, /\[1\/2\] bm25-greekstemmer/);
  assert.match(plan.stdout, /^bm25-greekstemmer .*\n(.*\n)*lsi /m);
});

test("issue 22, item 17: a first run with no server is calm: at most 40 lines, one per skip reason, the next step last", async () => {
  // As `npm start` on a fresh machine: the Hub unreachable (the demo set instead), no model server, no spaCy tables.
  const out = path.join(tmp, "first");
  const r = await runGbr(["reproduce", "--out", out], { dataDir: path.join(tmp, "data-first") });
  assert.equal(r.code, 0, r.stderr);
  const lines = (r.stdout + r.stderr).trimEnd().split("\n");
  assert.ok(lines.length <= 40, `${lines.length} lines:\n${lines.join("\n")}`);
  // Every skip reason once on stdout, on one line with the experiments it covers; none of them on stderr.
  const reasons = r.stdout.split("\n").filter((l) => / — skipped: /.test(l));
  assert.ok(reasons.length >= 4, reasons.join("\n"));
  assert.equal(new Set(reasons.map((l) => l.split(" — ")[1])).size, reasons.length);
  assert.doesNotMatch(r.stderr, /skipped/);
  assert.match(r.stdout, /and \d+ more — skipped: no OpenAI-compatible embedding server configured: set GBR_EMBED_BASE_URL/);
  assert.match(r.stdout.trimEnd().split("\n").pop()!, /^Next: npx gbr report --out /);
});
