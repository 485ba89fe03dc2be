/**
 * Issue 29, row 7 and the CSV part of row 11: nothing from outside reaches the terminal or a spreadsheet raw. A model
 * server's error message (chat, embeddings, rerank, Gemini) and ids, run file names and `--pair` from the user's files
 * are printed with every control character shown as its escape: no ESC/OSC sequence acts, and a CR-LF cannot forge a
 * line of its own (`FAKE: 0 failed`). A CSV cell a spreadsheet would evaluate is written as text.
 */
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { promises as fs } from "node:fs";
import os from "node:os";
import path from "node:path";
import { printable, printableJson } from "../../lib/util/printable";
import { openaiChat } from "../../lib/providers/openai-chat";
import { openaiEmbedder } from "../../lib/providers/openai-embedder";
import { geminiChat } from "../../lib/providers/gemini-chat";
import { rerankClient } from "../../lib/providers/rerank-client";
import { startOpenAIDouble } from "../fakes/openai-server";
import { startGeminiDouble } from "../fakes/gemini-server";
import { startRerankDouble } from "../fakes/rerank-server";
import { runGbr } from "../helpers/gbr";
import { outputFrames, frameRows } from "../../lib/report/frames";

const HOSTILE = "\x1b]0;pwned\x07\r\nFAKE: 0 failed";
/** Any character a terminal would act on (C0 but LF and the tab trec_eval's layout is made of, DEL, C1, bidi, U+2028/9). */
const RAW = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;

let tmp = "";

before(async () => {
  tmp = await fs.mkdtemp(path.join(os.tmpdir(), "gbr-terminal-escaping-"));
});

after(async () => {
  await fs.rm(tmp, { recursive: true, force: true });
});

/** Output a terminal shows as the project wrote it: no raw control, no line the outside text started. */
function assertInert(text: string, what: string): void {
  assert.doesNotMatch(text, RAW, `${what}: ${JSON.stringify(text)}`);
  assert.doesNotMatch(text, /^FAKE/m, `${what}: a forged line: ${JSON.stringify(text)}`);
}

async function messageOf(call: () => Promise<unknown>): Promise<string> {
  try {
    await call();
  } catch (err) {
    return (err as Error).message;
  }
  return assert.fail("expected the call to fail");
}

test("printable: every control character shown as its escape, LF kept only when asked; printableJson: the same value", () => {
  assert.equal(printable(HOSTILE), "\\x1b]0;pwned\\x07\\x0d\\x0aFAKE: 0 failed");
  assert.equal(printable("a\u202eb\u2066c\u2028d\u0085e\u009bf\x7fg\th"), "a\\u202eb\\u2066c\\u2028d\\x85e\\x9bf\\x7fg\\x09h");
  assert.equal(printable("line 1\nline\r 2", { newlines: true }), "line 1\nline\\x0d 2");
  assert.equal(printable("Άρθρο 914 ΑΚ — «ok» 😀"), "Άρθρο 914 ΑΚ — «ok» 😀", "printable text is untouched");
  const value = { [HOSTILE]: ["a\u202eb\u0085\u2028", "Άρθρο 😀"] };
  assert.doesNotMatch(printableJson(value), RAW);
  assert.deepEqual(JSON.parse(printableJson(value)), value, "the same JSON value");
});

test("a model server's error message (chat, embeddings, rerank, Gemini) is quoted with its controls shown", async () => {
  const api = await startOpenAIDouble({ dims: 4 });
  const rerank = await startRerankDouble();
  const gemini = await startGeminiDouble();
  try {
    api.queueChat({ status: 400, message: HOSTILE });
    const chat = await messageOf(() => openaiChat({ model: "m", baseURL: `${api.url}/v1`, maxRetries: 0 }).complete({ system: "s", user: "u" }));
    api.fault("status", 1, { status: 400, message: HOSTILE });
    const embed = await messageOf(() => openaiEmbedder({ model: "m", baseURL: `${api.url}/v1`, dims: 4 }).embed(["κείμενο"], "document"));
    rerank.fault({ status: 400, message: HOSTILE });
    const rr = await messageOf(() => rerankClient({ baseUrl: rerank.url, backoffMs: 1 }).rerank("m", "ερώτηση", ["α"]));
    gemini.fault("500", 1, { status: 400, message: HOSTILE });
    const gem = await messageOf(() => geminiChat({ apiKey: "TEST-key-0123", model: "gemini-2.5-flash", baseUrl: gemini.url, attempts: 1 }).complete({ system: "s", user: "u" }));
    for (const [what, m] of Object.entries({ chat, embed, rr, gem })) {
      assertInert(m, what);
      assert.doesNotMatch(m, /\n/, `${what}: one line`);
      assert.match(m, /\\x1b\]0;pwned\\x07\\x0d\\x0aFAKE: 0 failed/, `${what}: the server's words, visibly: ${m}`);
    }
  } finally {
    await Promise.all([api.close(), rerank.close(), gemini.close()]);
  }
});

test("gbr search and gbr reproduce print a hostile chat server's message inert (the error line, the log, the summary)", async () => {
  const api = await startOpenAIDouble();
  try {
    api.chat(() => ({ status: 400, message: HOSTILE }));
    const env = { GBR_CHAT_BASE_URL: `${api.url}/v1` };
    const dataDir = path.join(tmp, "data-chat");
    const search = await runGbr(["search", "--data", "sample", "--retriever", "reform:bm25-greekstemmer"], { dataDir, env });
    assert.equal(search.code, 1, search.stderr);
    assertInert(search.stderr, "search stderr");
    assert.match(search.stderr, /\\x1b\]0;pwned/);
    const out = path.join(tmp, "out-chat");
    const repro = await runGbr(["reproduce", "--data", "sample", "--out", out, "--only", "reform:bm25-greekstemmer"], { dataDir, env });
    assert.equal(repro.code, 1, repro.stderr);
    assertInert(repro.stderr, "reproduce stderr");
    assertInert(repro.stdout, "reproduce stdout");
    assert.match(repro.stdout, /\\x1b\]0;pwned/, "the summary says what the server said");
    const quiet = await runGbr(["reproduce", "--data", "sample", "--out", out, "--only", "reform:bm25-greekstemmer", "-q"], { dataDir, env });
    assertInert(quiet.stderr, "reproduce -q stderr");
    assert.match(quiet.stderr, /^gbr reproduce: reform:bm25-greekstemmer failed: .*\\x1b\]0;pwned/m);
  } finally {
    await api.close();
  }
});

test("ids, run file names and --pair from the user's files reach eval, errors, trec_eval and compare inert", async () => {
  const dir = path.join(tmp, "ids");
  await fs.mkdir(dir, { recursive: true });
  // Ids may not hold C0/C1 controls (refused at load); bidi overrides and isolates pass, and reorder a terminal's text.
  const q1 = "Q1\u202e\u2066";
  const qrels = path.join(dir, "qrels.tsv");
  await fs.writeFile(qrels, `query-id\tcorpus-id\tscore\n${q1}\tD1\t1\nQ2\tD2\t1\n`);
  // A file name holding ESC and BEL: its name is the run's name in compare's table and messages.
  const runA = path.join(dir, "a\x1b]0;x\x07.trec");
  const runB = path.join(dir, "b.trec");
  await fs.writeFile(runA, `${q1} Q0 D1 1 2.0 a\n${q1} Q0 D2 2 1.0 a\nQ2 Q0 D2 1 1.0 a\n`);
  await fs.writeFile(runB, `${q1} Q0 D2 1 2.0 b\n${q1} Q0 D1 2 1.0 b\nQ2 Q0 D1 1 1.0 b\n`);
  // A malformed file whose name holds a CR-LF: the error line names it without starting a line of its own.
  const badQrels = path.join(dir, "q\x1b[1m\r\nFAKE: 0 failed.tsv");
  await fs.writeFile(badQrels, "query-id\tcorpus-id\tscore\nQ1\tD1\n");
  const meta = path.join(dir, "meta.jsonl");
  await fs.writeFile(meta, `${JSON.stringify({ id: q1, area: "=civil\x1b[31m" })}\n${JSON.stringify({ id: "Q2", area: "civil" })}\n`);
  const gbr = (args: string[]) => runGbr(args, { dataDir: path.join(tmp, "data-ids"), timeoutMs: 120_000 });
  const runs = [
    await gbr(["eval", "--qrels", qrels, "--run", runA, "--per-query"]),
    await gbr(["eval", "--qrels", qrels, "--run", runA, "--per-query", "--format", "trec_eval"]),
    await gbr(["errors", "--qrels", qrels, "--run", runA, "--run", runB, "--meta", meta]),
    await gbr(["compare", "--qrels", qrels, "--run", runA, "--run", runB, "--swaps", "100"]),
    await gbr(["compare", "--qrels", qrels, "--run", runA, "--run", runB, "--swaps", "100", "--pair", `a\x1b]0;x\x07,nope\r\nFAKE: 0 failed`]),
    await gbr(["eval", "--qrels", badQrels, "--run", runB]),
    await gbr(["compare", "--qrels", qrels, "--run", runA, "--run", runB, "--swaps", "100", "--format", "latex"]),
    await gbr(["compare", "--qrels", qrels, "--run", runA, "--run", runB, "--swaps", "100", "--format", "markdown"]),
    await gbr(["eval", "--qrels", qrels, "--run", runA, "--per-query", "--json"]),
    await gbr(["errors", "--qrels", qrels, "--run", runA, "--run", runB, "--meta", meta, "--json"]),
    // Usage errors quote the command line: one line each, and the parser's "--help" line after it.
    await gbr(["eval", "--qrels", qrels, "--run", runA, "--format", "x\r\nFAKE: 0 failed"]),
    await gbr(["eval", "--qrels", qrels, "--run", runA, "--\x1b[31mbad\nFAKE: 0 failed"]),
    await gbr(["\x1b[31mnope\r\nFAKE: 0 failed"]),
  ];
  for (const [i, r] of runs.entries()) {
    assertInert(r.stdout, `command ${i} stdout`);
    assertInert(r.stderr, `command ${i} stderr`);
  }
  for (const r of runs.slice(0, 4)) assert.equal(r.code, 0, r.stderr);
  assert.match(runs[0].stdout, /^Q1\\u202e\\u2066 /m, "eval --per-query shows the id, visibly");
  assert.match(runs[1].stdout, /\tQ1\\u202e\\u2066\t/, "trec_eval's query column too");
  assert.match(runs[2].stdout, /Q1\\u202e\\u2066/);
  assert.match(runs[2].stdout, /=civil\\x1b\[31m/, "an area too");
  assert.match(runs[3].stdout, /a\\x1b\]0;x\\x07/, "compare names the run by its file name, visibly");
  assert.equal(runs[4].code, 2);
  assert.match(runs[4].stderr, /no run named 'nope\\x0d\\x0aFAKE: 0 failed'/);
  assert.match(runs[6].stdout, /^a & a\\textbackslash\{\}x1b\]0;x\\textbackslash\{\}x07 & /m, "a paper table names the run visibly, as LaTeX text");
  assert.match(runs[7].stdout, /^\| a \| `a\\x1b\]0;x\\x07` \| /m);
  // JSON escapes C0 itself; C1 and bidi controls are \u escapes too, the same JSON value.
  assert.deepEqual(Object.keys(JSON.parse(runs[8].stdout).perQuery), [q1, "Q2"]);
  assert.equal(JSON.parse(runs[9].stdout).a, path.basename(runA, ".trec"));
  assert.equal(runs[10].code, 2);
  assert.match(runs[10].stderr, /^gbr eval: unknown --format 'x\\x0d\\x0aFAKE: 0 failed'/);
  assert.equal(runs[11].code, 2);
  assert.deepEqual(runs[11].stderr.trimEnd().split("\n").slice(1), ["Run 'gbr eval --help' for usage."], runs[11].stderr);
  assert.match(runs[12].stderr, /^gbr: unknown command '\\x1b\[31mnope\\x0d\\x0aFAKE: 0 failed'/);
  assert.equal(runs[5].code, 1);
  assert.match(runs[5].stderr, /^gbr eval: .*q\\x1b\[1m\\x0d\\x0aFAKE: 0 failed\.tsv:2: /m);
});

test("issue 29, row 11: reproduce's CSVs write an id or area a spreadsheet would evaluate as text, and read it back as it was", async () => {
  const data = path.join(tmp, "formula-data");
  await fs.mkdir(path.join(data, "qrels"), { recursive: true });
  const q = "=HYPERLINK(\"http://x\")";
  const docs = [
    { _id: "D1", text: "μίσθωση ακινήτου και ενοίκιο" },
    { _id: "D2", text: "πώληση αυτοκινήτου με ελάττωμα" },
    { _id: "D3", text: "κλοπή και υπεξαίρεση κινητού" },
  ];
  await fs.writeFile(path.join(data, "corpus.jsonl"), docs.map((d) => JSON.stringify(d)).join("\n") + "\n");
  await fs.writeFile(path.join(data, "queries.jsonl"), [{ _id: q, text: "μίσθωση ενοίκιο" }, { _id: "+Q2", text: "πώληση ελάττωμα" }].map((x) => JSON.stringify(x)).join("\n") + "\n");
  await fs.writeFile(path.join(data, "qrels", "test.tsv"), `query-id\tcorpus-id\tscore\n${q}\tD1\t1\n+Q2\tD2\t1\n`);
  await fs.writeFile(path.join(data, "meta.jsonl"), [{ id: q, area: "-civil" }, { id: "+Q2", area: "@sales" }].map((x) => JSON.stringify(x)).join("\n") + "\n");
  const out = path.join(tmp, "formula-out");
  const r = await runGbr(["reproduce", "--data", data, "--out", out, "--only", "bm25-greekstemmer", "-q"], { dataDir: path.join(tmp, "data-formula") });
  assert.equal(r.code, 0, r.stderr);
  const dir = path.join(out, "formula-data");
  const perQuery = await fs.readFile(path.join(dir, "per-query.csv"), "utf8");
  assert.ok(perQuery.includes(`"'=HYPERLINK(""http://x"")"`), perQuery);
  assert.match(perQuery, /,'\+Q2,/);
  assert.match(perQuery, /,'-civil,/);
  assert.match(perQuery, /,'@sales,/);
  assert.doesNotMatch(perQuery, /(^|,)[=+@]/m, "no cell starts with a formula character");
  // The project's reader gives the values back as they were.
  const rows = frameRows((await outputFrames(dir)).perQuery) as Record<string, unknown>[];
  assert.deepEqual([...new Set(rows.map((row) => `${String(row.query)} ${String(row.area)}`))].sort(), ["+Q2 @sales", `${q} -civil`].sort());
});
