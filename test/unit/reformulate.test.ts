/**
 * Reformulation and translation: parsing the model's answers, the exact requests sent, and the
 * resumable JSONL cache, driven by a scripted fake ChatModel that counts its calls.
 */
import assert from "node:assert/strict";
import { existsSync, promises as fs } from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { loadPromptSet, type PromptSet } from "../../lib/llm/prompts";
import {
  buildRewriteRequest,
  parseDenseRewrite,
  parseSparseRewrite,
  reformulate,
  REFORMULATION_PARAMS,
  type RewriteRecord,
} from "../../lib/llm/reformulate";
import { readCacheFile } from "../../lib/llm/cached-calls";
import { buildTranslationRequest, cleanTranslation, translateItems, TRANSLATION_PARAMS } from "../../lib/llm/translate";
import { ChatError, type ChatModel, type ChatRequest, type ChatResponse } from "../../lib/llm/types";

// ---------------------------------------------------------------------------------------------
// A scripted ChatModel
// ---------------------------------------------------------------------------------------------

interface FakeModel extends ChatModel {
  calls: ChatRequest[];
}

/**
 * Answers with `script(req, n)` (n = 1 for the first call); throws a ChatError on call number
 * `failAt` and after it, like a server that went away.
 */
function fakeModel(script: (req: ChatRequest, n: number) => string, opts: { failAt?: number; id?: string } = {}): FakeModel {
  const calls: ChatRequest[] = [];
  return {
    id: opts.id ?? "fake:scripted",
    calls,
    async complete(req: ChatRequest): Promise<ChatResponse> {
      calls.push(req);
      const n = calls.length;
      await new Promise((r) => setTimeout(r, 1)); // answers arrive asynchronously, as over HTTP
      if (opts.failAt !== undefined && n >= opts.failAt) throw new ChatError(`server gone (call ${n})`, "PROVIDER");
      const raw = script(req, n);
      return { text: raw, raw, usage: { input: req.user.length, output: raw.length }, seconds: 0.5 };
    },
  };
}

/** The query text is the last line of the user prompt we send; echo a keyword answer from it. */
const QUERIES = Array.from({ length: 6 }, (_, i) => ({ id: `q${i + 1}`, text: `Ο Α μίσθωσε ακίνητο ${i + 1}. Ποια δικαιώματα έχει;` }));
const keywordsFor = (req: ChatRequest) => {
  const q = QUERIES.find((x) => req.user.includes(x.text));
  return `KEYWORDS: μίσθωση, καταγγελία, ${q?.id ?? "?"}`;
};

let tmp: string;
let prompts: PromptSet;
before(async () => {
  tmp = await fs.mkdtemp(path.join(os.tmpdir(), "gbr-reform-"));
  prompts = loadPromptSet("project");
});
after(async () => {
  await fs.rm(tmp, { recursive: true, force: true });
});
const file = (name: string) => path.join(tmp, name);
const lines = async (f: string) => (await fs.readFile(f, "utf8")).split("\n").filter((l) => l !== "");

// ---------------------------------------------------------------------------------------------

describe("parseSparseRewrite", () => {
  test("the text after KEYWORDS:, items joined with ', '", () => {
    assert.equal(parseSparseRewrite("KEYWORDS: μίσθωση, καταγγελία μίσθωσης , άρθρο 597 ΑΚ"), "μίσθωση, καταγγελία μίσθωσης, άρθρο 597 ΑΚ");
  });

  test("markdown labels, bullets, numbering and line breaks", () => {
    assert.equal(parseSparseRewrite("**KEYWORDS**:\n- μίσθωση\n- **καταγγελία**\n* ΑΚ 597"), "μίσθωση, καταγγελία, ΑΚ 597");
    assert.equal(parseSparseRewrite("Εδώ είναι:\n**KEYWORDS:** 1. έγκληση\n2) ποινική δίωξη,\n3. «παθών»."), "έγκληση, ποινική δίωξη, παθών");
    assert.equal(parseSparseRewrite("keywords : α, β"), "α, β", "any case, space before the colon");
    assert.equal(parseSparseRewrite("### KEYWORDS:\n• α\n• β"), "α, β");
  });

  test("citations and numbers that are not list numbering survive", () => {
    assert.equal(parseSparseRewrite("KEYWORDS: άρθρο 914 ΑΚ, ν. 4072/2012, 1.500 ευρώ, 281 ΑΚ"), "άρθρο 914 ΑΚ, ν. 4072/2012, 1.500 ευρώ, 281 ΑΚ");
  });

  test("another labelled section after the list is cut off", () => {
    assert.equal(parseSparseRewrite("KEYWORDS: α, β\nNOTE: τα παραπάνω είναι ενδεικτικά"), "α, β");
  });

  test("no label: the whole answer, normalised the same way", () => {
    assert.equal(parseSparseRewrite("μίσθωση,\nκαταγγελία\n- απόδοση μισθίου"), "μίσθωση, καταγγελία, απόδοση μισθίου");
  });

  test("think blocks are stripped before parsing (also an unterminated one)", () => {
    assert.equal(parseSparseRewrite("<think>KEYWORDS: λάθος</think>\nKEYWORDS: σωστό"), "σωστό");
    assert.equal(parseSparseRewrite("<analysis>ο χρήστης ρωτά…</analysis>α, β"), "α, β");
    assert.equal(parseSparseRewrite("<think>ran out of tokens while thinking"), "");
  });

  test("nothing usable -> empty string", () => {
    for (const t of ["", "   ", "KEYWORDS:", "**KEYWORDS**:\n- \n-", "KEYWORDS: , ,"]) assert.equal(parseSparseRewrite(t), "", JSON.stringify(t));
  });
});

describe("parseDenseRewrite", () => {
  test("the text after QUERY: as one paragraph", () => {
    assert.equal(parseDenseRewrite("QUERY:\nΑστική ευθύνη οδηγού\nαπό αδικοπραξία."), "Αστική ευθύνη οδηγού από αδικοπραξία.");
    assert.equal(parseDenseRewrite("**QUERY**: «Καταγγελία μίσθωσης.»"), "Καταγγελία μίσθωσης.");
    assert.equal(parseDenseRewrite("**QUERY:** Κείμενο."), "Κείμενο.");
    assert.equal(parseDenseRewrite("REWRITTEN_QUERY: Κείμενο."), "Κείμενο.");
  });

  test("no label: the whole answer; think blocks stripped; empty -> empty", () => {
    assert.equal(parseDenseRewrite("Ζήτημα  ευθύνης\n\nοδηγού."), "Ζήτημα ευθύνης οδηγού.");
    assert.equal(parseDenseRewrite("<think>QUERY: όχι αυτό</think>QUERY: αυτό"), "αυτό");
    assert.equal(parseDenseRewrite("QUERY:   \n"), "");
  });
});

describe("reformulate", () => {
  test("sends the paper's settings with the set's system message, returns rewrites in query order", async () => {
    const model = fakeModel(keywordsFor);
    const out = await reformulate(QUERIES.slice(0, 2), "sparse", model, prompts);
    assert.deepEqual([...out.keys()], ["q1", "q2"]);
    assert.equal(out.get("q2"), "μίσθωση, καταγγελία, q2");
    const req = model.calls[0];
    assert.equal(req.temperature, 0.2);
    assert.equal(req.topP, 1);
    assert.equal(req.reasoningEffort, "low");
    assert.equal(req.maxTokens, 42000);
    assert.deepEqual(REFORMULATION_PARAMS, { temperature: 0.2, topP: 1, reasoningEffort: "low", maxTokens: 42000 });
    assert.equal(req.system, prompts.extras.REWRITE_SYSTEM);
  });

  test("a second run with the same outFile makes no calls", async () => {
    const outFile = file("second-run.jsonl");
    const first = fakeModel(keywordsFor);
    const a = await reformulate(QUERIES, "sparse", first, prompts, { outFile, concurrency: 3 });
    assert.equal(first.calls.length, 6);
    assert.equal((await lines(outFile)).length, 6);
    const rec = JSON.parse((await lines(outFile))[0]) as RewriteRecord;
    for (const k of ["id", "kind", "rewrite", "raw", "usage", "seconds"]) assert.ok(k in rec, k);
    assert.equal(rec.kind, "sparse");

    const second = fakeModel(keywordsFor);
    const b = await reformulate(QUERIES, "sparse", second, prompts, { outFile });
    assert.equal(second.calls.length, 0);
    assert.deepEqual([...b], [...a]);
    assert.equal((await lines(outFile)).length, 6, "nothing appended");
  });

  test("a crash after 3 of 6 keeps the 3; the rerun asks only for the other 3", async () => {
    const outFile = file("crash.jsonl");
    const crashing = fakeModel(keywordsFor, { failAt: 4 });
    await assert.rejects(
      reformulate(QUERIES, "dense", crashing, prompts, { outFile, concurrency: 1 }),
      (e: unknown) => e instanceof ChatError && e.code === "PROVIDER" && /q4: server gone/.test(e.message) && /3 new answer\(s\) saved/.test(e.message),
    );
    assert.equal((await lines(outFile)).length, 3);

    const rerun = fakeModel(keywordsFor);
    const out = await reformulate(QUERIES, "dense", rerun, prompts, { outFile });
    assert.equal(rerun.calls.length, 3);
    assert.deepEqual(
      rerun.calls.map((c) => QUERIES.find((q) => c.user.includes(q.text))!.id),
      ["q4", "q5", "q6"],
    );
    assert.equal(out.size, 6);
    assert.equal(out.get("q1"), "KEYWORDS: μίσθωση, καταγγελία, q1", "dense parsing keeps a text without a QUERY: label whole");
  });

  test("with concurrency, every answer that arrived before the failure is saved", async () => {
    const outFile = file("crash-concurrent.jsonl");
    const crashing = fakeModel(keywordsFor, { failAt: 5 });
    await assert.rejects(reformulate(QUERIES, "sparse", crashing, prompts, { outFile, concurrency: 4 }));
    const saved = (await lines(outFile)).length;
    assert.equal(saved, 4, "calls 1–4 answered, call 5 failed, no call started after it");
    const rerun = fakeModel(keywordsFor);
    await reformulate(QUERIES, "sparse", rerun, prompts, { outFile, concurrency: 4 });
    assert.equal(rerun.calls.length, 6 - saved);
  });

  test("an empty answer falls back to the original query and is reported", async () => {
    const outFile = file("fallback.jsonl");
    const logs: string[] = [];
    const model = fakeModel((req, n) => (n === 1 ? "<think>μόνο σκέψεις</think>\nKEYWORDS:" : keywordsFor(req)));
    const out = await reformulate(QUERIES.slice(0, 2), "sparse", model, prompts, { outFile, concurrency: 1, log: (m) => logs.push(m) });
    assert.equal(out.get("q1"), QUERIES[0].text);
    assert.equal(out.get("q2"), "μίσθωση, καταγγελία, q2");
    const recs = (await lines(outFile)).map((l) => JSON.parse(l) as RewriteRecord);
    assert.equal(recs.find((r) => r.id === "q1")?.fallback, true);
    assert.equal(recs.find((r) => r.id === "q1")?.raw, "<think>μόνο σκέψεις</think>\nKEYWORDS:", "raw is stored as answered");
    assert.ok(logs.some((l) => /q1: the answer was empty/.test(l)));
    assert.ok(logs.some((l) => /1 item\(s\) fell back/.test(l)));
  });

  test("think blocks in the model's text are stripped before parsing", async () => {
    const model = fakeModel(() => "<think>KEYWORDS: λάθος</think>KEYWORDS: σωστό, επίσης σωστό");
    const out = await reformulate(QUERIES.slice(0, 1), "sparse", model, prompts);
    assert.equal(out.get("q1"), "σωστό, επίσης σωστό");
  });

  test("records made with another prompt, text or model are asked again; resume:false starts afresh", async () => {
    const outFile = file("stale.jsonl");
    await reformulate(QUERIES.slice(0, 3), "sparse", fakeModel(keywordsFor), prompts, { outFile });
    const edited: PromptSet = { ...prompts, texts: { ...prompts.texts, SPARSE_REWRITE_PROMPT: prompts.texts.SPARSE_REWRITE_PROMPT + "\nΣύντομα." } };
    const logs: string[] = [];
    const m1 = fakeModel(keywordsFor);
    await reformulate(QUERIES.slice(0, 3), "sparse", m1, edited, { outFile, log: (m) => logs.push(m) });
    assert.equal(m1.calls.length, 3);
    assert.ok(logs.some((l) => /3 cached record\(s\) were made with another prompt/.test(l)));

    const m2 = fakeModel(keywordsFor, { id: "fake:other-model" });
    await reformulate(QUERIES.slice(0, 1), "sparse", m2, prompts, { outFile });
    assert.equal(m2.calls.length, 1, "another model id");

    const m3 = fakeModel(keywordsFor);
    await reformulate(QUERIES.slice(0, 3), "dense", m3, prompts, { outFile });
    assert.equal(m3.calls.length, 3, "the other kind in the same file is a different batch");

    const m4 = fakeModel(keywordsFor);
    await reformulate(QUERIES.slice(0, 2), "sparse", m4, prompts, { outFile, resume: false });
    assert.equal(m4.calls.length, 2);
    assert.equal((await lines(outFile)).length, 2, "the file was started afresh");
  });

  test("a torn last line (crash mid-write) is ignored, asked again, and does not glue onto the next record", async () => {
    const outFile = file("torn.jsonl");
    await reformulate(QUERIES.slice(0, 2), "sparse", fakeModel(keywordsFor), prompts, { outFile });
    const good = await fs.readFile(outFile, "utf8");
    const lastStart = good.trimEnd().lastIndexOf("\n") + 1;
    await fs.writeFile(outFile, good.slice(0, lastStart) + good.slice(lastStart, lastStart + 25)); // q2's line cut short
    const logs: string[] = [];
    const model = fakeModel(keywordsFor);
    const out = await reformulate(QUERIES.slice(0, 2), "sparse", model, prompts, { outFile, log: (m) => logs.push(m) });
    assert.equal(model.calls.length, 1);
    assert.equal(out.get("q2"), "μίσθωση, καταγγελία, q2");
    assert.ok(logs.some((l) => /1 unreadable line/.test(l)));
    const { records, skipped } = await readCacheFile(outFile);
    assert.deepEqual(records.map((r) => r.id), ["q1", "q2"]);
    assert.equal(skipped, 1);
  });

  test("duplicate query ids are refused before any call", async () => {
    const model = fakeModel(keywordsFor);
    await assert.rejects(reformulate([QUERIES[0], QUERIES[0]], "sparse", model, prompts), /duplicate id 'q1'/);
    assert.equal(model.calls.length, 0);
  });
});

describe("translateItems", () => {
  const ARTICLES = [
    { id: "ΑΚ::914", text: "Όποιος ζημιώσει άλλον παράνομα και υπαίτια έχει υποχρέωση να τον αποζημιώσει." },
    { id: "ΠΚ::314", text: "Όποιος από αμέλεια προκαλεί σε άλλον βλάβη του σώματος ή της υγείας του τιμωρείται." },
  ];
  const english = (req: ChatRequest) => (req.user.includes("ΑΚ::914") ? "```\nWhoever unlawfully and culpably damages another…\n```" : "Whoever through negligence causes bodily harm…");

  test("translates, caches per item, and a second run makes no calls", async () => {
    const outFile = file("translations.jsonl");
    const m1 = fakeModel(english);
    const a = await translateItems(ARTICLES, "article", m1, prompts, { outFile });
    assert.equal(m1.calls.length, 2);
    assert.equal(a.get("ΑΚ::914"), "Whoever unlawfully and culpably damages another…", "the code fence is dropped");
    const req = m1.calls.find((c) => c.user.includes("ΠΚ::314"))!;
    assert.deepEqual(req, buildTranslationRequest(ARTICLES[1], "article", prompts));
    assert.equal(req.system, prompts.texts.TRANSLATION_SYSTEM);
    assert.ok(req.user.includes("Text type: article") && req.user.includes(ARTICLES[1].text));
    assert.equal(req.temperature, TRANSLATION_PARAMS.temperature);
    assert.equal(req.maxTokens, 32768);

    const m2 = fakeModel(english);
    const b = await translateItems(ARTICLES, "article", m2, prompts, { outFile });
    assert.equal(m2.calls.length, 0);
    assert.deepEqual([...b], [...a]);

    const m3 = fakeModel(() => "An article as a query?");
    await translateItems(ARTICLES.slice(0, 1), "query", m3, prompts, { outFile });
    assert.equal(m3.calls.length, 1, "queries and articles are separate batches even in one file");
  });

  test("an empty translation falls back to the source text, flagged", async () => {
    const outFile = file("translations-empty.jsonl");
    const out = await translateItems(ARTICLES.slice(0, 1), "article", fakeModel(() => "<think>…</think>  "), prompts, { outFile });
    assert.equal(out.get("ΑΚ::914"), ARTICLES[0].text);
    assert.equal(JSON.parse((await lines(outFile))[0]).fallback, true);
  });

  test("cleanTranslation keeps inner line breaks", () => {
    assert.equal(cleanTranslation("<think>x</think>\n1. First.\n2. Second.\n"), "1. First.\n2. Second.");
    assert.equal(cleanTranslation("```text\nA\nB\n```"), "A\nB");
  });
});

describe("golden request text (project prompts)", () => {
  // Regenerate deliberately, after reading the diff: GBR_UPDATE_GOLDEN=1 node --import tsx --test test/unit/reformulate.test.ts
  const GOLDEN = path.join(__dirname, "..", "fixtures", "reformulate-golden.txt");
  const QUERY =
    "Πραγματικά περιστατικά: Ο Α εκμίσθωσε στον Β κατάστημα στην Πάτρα. Ο Β δεν κατέβαλε τα μισθώματα τριών μηνών.\n" +
    "Ερώτηση: Μπορεί ο Α να καταγγείλει τη μίσθωση σύμφωνα με το άρθρο 597 ΑΚ;";

  function render(): string {
    const parts: string[] = [];
    for (const kind of ["sparse", "dense"] as const) {
      const { system, user, ...params } = buildRewriteRequest(QUERY, kind, prompts);
      parts.push(`===== ${kind}: system =====\n${system}`, `===== ${kind}: user =====\n${user}`, `===== ${kind}: params =====\n${JSON.stringify(params)}`);
    }
    return parts.join("\n") + "\n";
  }

  test("the exact system and user texts sent for one query match the golden file", async () => {
    const text = render();
    if (process.env.GBR_UPDATE_GOLDEN === "1") {
      await fs.writeFile(GOLDEN, text, "utf8");
      return;
    }
    assert.ok(existsSync(GOLDEN), `${GOLDEN} is missing; create it with GBR_UPDATE_GOLDEN=1`);
    assert.equal(text, await fs.readFile(GOLDEN, "utf8"), "the request text changed: if intended, regenerate with GBR_UPDATE_GOLDEN=1");
  });
});
