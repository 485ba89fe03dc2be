/**
 * Reformulation and translation: parsing the model's answers, the exact requests sent, and
 * resuming through the store (and v0.8's per-item files), driven by a scripted fake ChatModel that
 * counts its calls.
 */
import assert from "node:assert/strict";
import { existsSync, promises as fs } from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { loadPromptSet, type PromptSet } from "../../../lib/llm/prompts";
import {
  buildRewriteRequest,
  parseDenseRewrite,
  parseSparseRewrite,
  reformulate,
  REFORMULATION_PARAMS,
} from "../../../lib/llm/reformulate";
import { buildTranslationRequest, cleanTranslation, translateItems, TRANSLATION_PARAMS } from "../../../lib/llm/translate";
import { ChatError, type ChatModel, type ChatRequest, type ChatResponse } from "../../../lib/models/chat";
import { openStore, replayCache, withReplay, type ReplayCache } from "../../../lib/store";
import type { CachedOutcome } from "../../../lib/llm/cached-calls";

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
/** A store of its own under the test's folder, and a model wrapped by it. */
const storeAt = async (name: string): Promise<ReplayCache> => replayCache(await openStore(file(name)));
const stored = (model: ChatModel, cache: ReplayCache): ChatModel => withReplay(model, cache);
async function countOf(cache: ReplayCache): Promise<number> {
  let n = 0;
  for await (const _ of cache.records()) n++;
  return n;
}
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

  test("a second run over the same store makes no calls, and reports every answer as reused", async () => {
    const cache = await storeAt("second-run");
    const first = fakeModel(keywordsFor);
    let outcomes: CachedOutcome[] = [];
    const a = await reformulate(QUERIES, "sparse", stored(first, cache), prompts, { concurrency: 3, onRecords: (o) => (outcomes = o) });
    assert.equal(first.calls.length, 6);
    assert.equal(await countOf(cache), 6);
    assert.deepEqual(outcomes.map((o) => o.reused), Array(6).fill(false));
    const rec = outcomes[0].response;
    for (const k of ["raw", "usage", "seconds"]) assert.ok(k in rec, k);
    assert.ok(outcomes[0].request.user.includes(QUERIES[0].text), "outcomes in query order");

    const second = fakeModel(keywordsFor);
    const b = await reformulate(QUERIES, "sparse", stored(second, cache), prompts, { onRecords: (o) => (outcomes = o) });
    assert.equal(second.calls.length, 0);
    assert.deepEqual([...b], [...a]);
    assert.deepEqual(outcomes.map((o) => o.reused), Array(6).fill(true));
    assert.deepEqual(outcomes[0].response.usage, rec.usage, "reused answers carry their recorded usage");
  });

  test("a crash after 3 of 6 keeps the 3; the rerun asks only for the other 3", async () => {
    const cache = await storeAt("crash");
    const crashing = fakeModel(keywordsFor, { failAt: 4 });
    await assert.rejects(
      reformulate(QUERIES, "dense", stored(crashing, cache), prompts, { concurrency: 1 }),
      (e: unknown) => e instanceof ChatError && e.code === "PROVIDER" && /q4: server gone/.test(e.message) && /3 answer\(s\) done/.test(e.message),
    );
    assert.equal(await countOf(cache), 3);

    const rerun = fakeModel(keywordsFor);
    const out = await reformulate(QUERIES, "dense", stored(rerun, cache), prompts);
    assert.equal(rerun.calls.length, 3);
    assert.deepEqual(
      rerun.calls.map((c) => QUERIES.find((q) => c.user.includes(q.text))!.id).sort(),
      ["q4", "q5", "q6"],
    );
    assert.equal(out.size, 6);
    assert.equal(out.get("q1"), "KEYWORDS: μίσθωση, καταγγελία, q1", "dense parsing keeps a text without a QUERY: label whole");
  });

  test("with concurrency, every answer that arrived before the failure is kept", async () => {
    const cache = await storeAt("crash-concurrent");
    const crashing = fakeModel(keywordsFor, { failAt: 5 });
    await assert.rejects(reformulate(QUERIES, "sparse", stored(crashing, cache), prompts, { concurrency: 4 }));
    const saved = await countOf(cache);
    assert.equal(saved, 4, "calls 1–4 answered, call 5 failed, no call started after it");
    const rerun = fakeModel(keywordsFor);
    await reformulate(QUERIES, "sparse", stored(rerun, cache), prompts, { concurrency: 4 });
    assert.equal(rerun.calls.length, 6 - saved);
  });

  test("an empty answer falls back to the original query and is reported", async () => {
    const logs: string[] = [];
    const model = fakeModel((req, n) => (n === 1 ? "<think>μόνο σκέψεις</think>\nKEYWORDS:" : keywordsFor(req)));
    let outcomes: CachedOutcome[] = [];
    const out = await reformulate(QUERIES.slice(0, 2), "sparse", model, prompts, { concurrency: 1, log: (m) => logs.push(m), onRecords: (o) => (outcomes = o) });
    assert.equal(out.get("q1"), QUERIES[0].text);
    assert.equal(out.get("q2"), "μίσθωση, καταγγελία, q2");
    assert.deepEqual(outcomes.map((o) => o.fallback), [true, false]);
    assert.equal(outcomes[0].response.raw, "<think>μόνο σκέψεις</think>\nKEYWORDS:", "raw is kept as answered");
    assert.ok(logs.some((l) => /q1: the answer was empty/.test(l)));
    assert.ok(logs.some((l) => /1 item\(s\) fell back/.test(l)));
  });

  test("think blocks in the model's text are stripped before parsing", async () => {
    const model = fakeModel(() => "<think>KEYWORDS: λάθος</think>KEYWORDS: σωστό, επίσης σωστό");
    const out = await reformulate(QUERIES.slice(0, 1), "sparse", model, prompts);
    assert.equal(out.get("q1"), "σωστό, επίσης σωστό");
  });

  test("answers made with another prompt, text or model are asked again", async () => {
    const cache = await storeAt("stale");
    await reformulate(QUERIES.slice(0, 3), "sparse", stored(fakeModel(keywordsFor), cache), prompts);
    const edited: PromptSet = { ...prompts, texts: { ...prompts.texts, SPARSE_REWRITE_PROMPT: prompts.texts.SPARSE_REWRITE_PROMPT + "\nΣύντομα." } };
    const m1 = fakeModel(keywordsFor);
    await reformulate(QUERIES.slice(0, 3), "sparse", stored(m1, cache), edited);
    assert.equal(m1.calls.length, 3);
    const m2 = fakeModel(keywordsFor, { id: "fake:other-model" });
    await reformulate(QUERIES.slice(0, 1), "sparse", stored(m2, cache), prompts);
    assert.equal(m2.calls.length, 1, "another model id");
    const m3 = fakeModel(keywordsFor);
    await reformulate(QUERIES.slice(0, 3), "dense", stored(m3, cache), prompts);
    assert.equal(m3.calls.length, 3, "the other kind is another request");
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

  test("translates, and a second run over the same store makes no calls", async () => {
    const cache = await storeAt("translations");
    const m1 = fakeModel(english);
    const a = await translateItems(ARTICLES, "article", stored(m1, cache), prompts);
    assert.equal(m1.calls.length, 2);
    assert.equal(a.get("ΑΚ::914"), "Whoever unlawfully and culpably damages another…", "the code fence is dropped");
    const req = m1.calls.find((c) => c.user.includes("ΠΚ::314"))!;
    assert.deepEqual(req, buildTranslationRequest(ARTICLES[1], "article", prompts));
    assert.equal(req.system, prompts.texts.TRANSLATION_SYSTEM);
    assert.ok(req.user.includes("Text type: article") && req.user.includes(ARTICLES[1].text));
    assert.equal(req.temperature, TRANSLATION_PARAMS.temperature);
    assert.equal(req.maxTokens, 32768);

    const m2 = fakeModel(english);
    const b = await translateItems(ARTICLES, "article", stored(m2, cache), prompts);
    assert.equal(m2.calls.length, 0);
    assert.deepEqual([...b], [...a]);

    const m3 = fakeModel(() => "An article as a query?");
    await translateItems(ARTICLES.slice(0, 1), "query", stored(m3, cache), prompts);
    assert.equal(m3.calls.length, 1, "a query's request is not an article's");
  });

  test("an empty translation falls back to the source text, flagged", async () => {
    let outcomes: CachedOutcome[] = [];
    const out = await translateItems(ARTICLES.slice(0, 1), "article", fakeModel(() => "<think>…</think>  "), prompts, { onRecords: (o) => (outcomes = o) });
    assert.equal(out.get("ΑΚ::914"), ARTICLES[0].text);
    assert.equal(outcomes[0].fallback, true);
  });

  test("cleanTranslation keeps inner line breaks", () => {
    assert.equal(cleanTranslation("<think>x</think>\n1. First.\n2. Second.\n"), "1. First.\n2. Second.");
    assert.equal(cleanTranslation("```text\nA\nB\n```"), "A\nB");
  });
});

describe("golden request text (project prompts)", () => {
  // Regenerate deliberately, after reading the diff: GBR_UPDATE_GOLDEN=1 node --import tsx --test test/unit/llm/reformulate.test.ts
  const GOLDEN = path.join(__dirname, "..", "..", "fixtures", "reformulate-golden.txt");
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
