/**
 * The chat providers driving the real SDKs (`openai`, `@google/genai`) against the local doubles:
 * exactly what goes over the wire, how answers are read (reasoning removed, usage, wall time), how
 * failures surface (retries honouring Retry-After, status, time-outs, no key anywhere), the cap on
 * requests in flight, and how the environment picks and configures a provider.
 */
import { readConfig } from "../../lib/config";
import assert from "node:assert/strict";
import { after, afterEach, before, beforeEach, describe, test } from "node:test";
import { inspect } from "node:util";
import { chatModelFrom, parseChatModelName } from "../../lib/providers/chat";
import { geminiChat, geminiChatFrom, type GeminiChatOptions } from "../../lib/providers/gemini-chat";
import { openaiChat, openaiChatFrom, type OpenAIChatOptions } from "../../lib/providers/openai-chat";
import { ChatError, type ChatRequest } from "../../lib/models/chat";
import { longRequestDispatcher } from "../../lib/util/http";
import { echoGeminiText, startGeminiDouble, type GeminiDouble } from "../fakes/gemini-server";
import { echoChatContent, startOpenAIDouble, type OpenAIDouble } from "../fakes/openai-server";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { openStore, replayCache, withReplay } from "../../lib/store";

// The SDKs read some of these themselves; the tests pass their environment explicitly.
for (const k of ["OPENAI_BASE_URL", "OPENAI_API_KEY", "OPENAI_LOG", "GBR_CHAT_BASE_URL", "GBR_CHAT_API_KEY", "GBR_CHAT_MODEL"]) delete process.env[k];

const SECRET = "test-SECRET-chat-0123";
const GEMINI_KEY = "TEST-gemini-chat-secret-0123";
const GPT_OSS = "openai/gpt-oss-120b";

/** The paper's reformulation call (DESIGN.md §6). */
const PAPER: ChatRequest = {
  system: "Είσαι βοηθός νομικής αναζήτησης. Δώσε 20–30 λέξεις-κλειδιά χωρισμένες με κόμμα.",
  user: "Ο Α μίσθωσε από τον Β κατάστημα στην Αθήνα για 3 έτη. Μπορεί να καταγγείλει τη μίσθωση;",
  temperature: 0.2,
  topP: 1,
  maxTokens: 42_000,
  reasoningEffort: "low",
  seed: 42,
};

/** Everything a person or a log could see of an error. */
const visible = (e: unknown) => `${String(e)}\n${(e as Error).stack ?? ""}\n${inspect(e, { depth: 8 })}`;

async function rejection(p: Promise<unknown>): Promise<ChatError> {
  const err = await p.then(
    () => assert.fail("expected a ChatError"),
    (e: unknown) => e,
  );
  assert.ok(err instanceof ChatError, `expected ChatError, got ${String(err)}`);
  return err;
}

describe("openaiChat", () => {
  let api: OpenAIDouble;
  before(async () => {
    api = await startOpenAIDouble();
  });
  afterEach(() => api.reset());
  after(() => api.close());

  const make = (o: Partial<OpenAIChatOptions> = {}) =>
    openaiChat({ model: GPT_OSS, baseURL: `${api.url}/v1`, apiKey: SECRET, maxRetries: 2, timeoutMs: 5000, ...o });

  test("sends the system and user messages and the paper's sampling settings exactly", async () => {
    const r = await make().complete(PAPER);
    assert.equal(api.count("chat/completions"), 1);
    const req = api.requests[0];
    assert.equal(req.path, "/v1/chat/completions");
    assert.equal(req.authorization, `Bearer ${SECRET}`);
    assert.deepEqual(req.body, {
      model: GPT_OSS,
      messages: [
        { role: "system", content: PAPER.system },
        { role: "user", content: PAPER.user },
      ],
      temperature: 0.2,
      top_p: 1,
      max_tokens: 42_000,
      reasoning_effort: "low",
      seed: 42,
    });
    const expected = echoChatContent(api.chatRequests()[0]);
    assert.equal(r.text, expected);
    assert.equal(r.raw, expected);
    assert.equal(r.replayed, undefined);
  });

  test("leaves out what the request does not set, and an empty system prompt", async () => {
    await make().complete({ system: "", user: "μόνο ερώτηση" });
    assert.deepEqual(api.chatRequests()[0], { model: GPT_OSS, messages: [{ role: "user", content: "μόνο ερώτηση" }] });
  });

  test("id is openai:<model>", () => {
    assert.equal(make().id, `openai:${GPT_OSS}`);
    assert.equal(make({ model: "gpt-oss:20b" }).id, "openai:gpt-oss:20b");
  });

  test("removes <think> and <analysis> blocks from text, keeps them in raw", async () => {
    const think = "<think>Ο χρήστης ρωτά για μίσθωση…</think>\nμίσθωση, καταγγελία, ΑΚ 597";
    const analysis = "<analysis>We need keywords.</analysis>  καταγγελία μίσθωσης ";
    const cutOff = "<think>σκέφτομαι ακόμη και ξέμεινα από tokens";
    api.queueChat({ content: think }, { content: analysis }, { content: cutOff });
    const m = make();
    const [a, b, c] = [await m.complete(PAPER), await m.complete(PAPER), await m.complete(PAPER)];
    assert.deepEqual([a.text, a.raw], ["μίσθωση, καταγγελία, ΑΚ 597", think]);
    assert.deepEqual([b.text, b.raw], ["καταγγελία μίσθωσης", analysis]);
    assert.deepEqual([c.text, c.raw], ["", cutOff], "unterminated thinking is no answer, and no error here");
  });

  test("ignores reasoning returned in reasoning_content or reasoning (vLLM, LM Studio, Ollama)", async () => {
    api.queueChat(
      { content: "μίσθωση, καταγγελία", reasoning_content: "The user asks about a lease. ΚΑΤΑΓΓΕΛΙΑ?" },
      { content: "ΑΚ 597", reasoning: "gpt-oss analysis channel text" },
    );
    const m = make();
    const a = await m.complete(PAPER);
    const b = await m.complete(PAPER);
    assert.deepEqual([a.text, a.raw], ["μίσθωση, καταγγελία", "μίσθωση, καταγγελία"]);
    assert.deepEqual([b.text, b.raw], ["ΑΚ 597", "ΑΚ 597"]);
  });

  // Issue 29, row 11: it was an empty answer, which the store kept and replayed as a success.
  test("null content (all tokens spent on reasoning) is an EMPTY error for the request, never kept by the store", async () => {
    api.queueChat({ content: null, reasoning: "thinking… thinking…", finish_reason: "length" });
    const err = await rejection(make().complete(PAPER));
    assert.equal(err.code, "EMPTY");
    assert.match(err.message, /the answer has no content \(content null, finish_reason length\): the output budget ran out before an answer/);
    const dir = mkdtempSync(path.join(os.tmpdir(), "gbr-null-content-"));
    try {
      const cache = replayCache(await openStore(dir, { log: () => {} }));
      const model = withReplay(make(), cache, { offline: false });
      api.queueChat({ content: null, finish_reason: "stop" }, { content: "ΑΚ 597" });
      assert.match((await rejection(model.complete(PAPER))).message, /content null, finish_reason stop\): the server sent no text/);
      assert.equal((await model.complete(PAPER)).text, "ΑΚ 597", "asked again, not replayed as an empty answer");
      assert.equal((await model.complete(PAPER)).replayed, true);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test("takes the final channel of unparsed gpt-oss harmony output", async () => {
    const harmony =
      "<|channel|>analysis<|message|>Need Greek keywords.<|end|><|start|>assistant<|channel|>final<|message|>μίσθωση, ΑΚ 574<|return|>";
    api.queueChat({ content: harmony }, { content: "<|channel|>analysis<|message|>still thinking" });
    const m = make();
    const a = await m.complete(PAPER);
    const b = await m.complete(PAPER);
    assert.deepEqual([a.text, a.raw], ["μίσθωση, ΑΚ 574", harmony]);
    assert.equal(b.text, "");
  });

  test("records usage and wall time", async () => {
    api.queueChat({ content: "x", usage: { prompt_tokens: 812, completion_tokens: 164, total_tokens: 976 }, delayMs: 120 });
    api.queueChat({ content: "y", usage: null });
    const m = make();
    const r = await m.complete(PAPER);
    assert.deepEqual(r.usage, { input: 812, output: 164 });
    assert.ok(r.seconds >= 0.11 && r.seconds < 5, `seconds ${r.seconds}`);
    assert.deepEqual((await m.complete(PAPER)).usage, { input: 0, output: 0 }, "a server without usage counts as 0");
  });

  test("retries a 429 after the Retry-After the server asked for", async () => {
    api.fault("rateLimit", 1, { retryAfter: "1", route: "chat/completions" });
    const started = Date.now();
    const r = await make().complete(PAPER);
    const waited = Date.now() - started;
    assert.equal(api.count("chat/completions"), 2);
    assert.ok(waited >= 950, `waited ${waited} ms; the SDK's own backoff would be at most 500 ms`);
    assert.equal(r.text, echoChatContent(api.chatRequests()[1]));
  });

  test("retries a 500, then fails with the status and the server's message, never the key", async () => {
    // The server echoes the key back (as some proxies do); it must not reach the error.
    api.fault("status", 3, { status: 500, retryAfter: "0", message: `upstream exploded (auth ${SECRET})` });
    const err = await rejection(make({ maxRetries: 2 }).complete(PAPER));
    assert.equal(api.count("chat/completions"), 3, "first attempt + 2 retries");
    assert.equal(err.code, "PROVIDER");
    assert.ok(err instanceof ChatError);
    assert.equal(err.status, 500);
    assert.match(err.message, /HTTP 500: upstream exploded/);
    assert.match(err.message, /after 3 attempts/);
    assert.match(err.message, new RegExp(`openai:${GPT_OSS} at http://127\\.0\\.0\\.1:\\d+/v1`));
    assert.ok(!visible(err).includes(SECRET), "the key leaked into the error");
  });

  test("does not retry a 400, and reports it", async () => {
    api.queueChat({ status: 400, message: "max_tokens is too large: 42000 > 32768" });
    const err = await rejection(make().complete(PAPER));
    assert.equal(api.count("chat/completions"), 1);
    assert.ok(err instanceof ChatError);
    assert.equal(err.status, 400);
    assert.match(err.message, /HTTP 400: max_tokens is too large/);
  });

  test("gives up after the per-attempt timeout", async () => {
    api.fault("slow", 1, { delayMs: 2000 });
    const started = Date.now();
    const err = await rejection(make({ timeoutMs: 200, maxRetries: 0 }).complete(PAPER));
    assert.ok(Date.now() - started < 1500);
    assert.equal(err.code, "PROVIDER");
    assert.match(err.message, /timed out after 200 ms per attempt \(1 attempt\)/);
    assert.equal((err as ChatError).status, undefined);
  });

  test("a dropped connection is a PROVIDER error", async () => {
    api.fault("drop", 1);
    const err = await rejection(make({ maxRetries: 0 }).complete(PAPER));
    assert.equal(err.code, "PROVIDER");
    assert.match(err.message, /connection failed \(1 attempt\)/);
  });

  test("an answer without choices is a PROVIDER error", async () => {
    api.queueChat({ rawBody: { object: "chat.completion", choices: [] } });
    const err = await rejection(make().complete(PAPER));
    assert.equal(err.code, "PROVIDER");
    assert.match(err.message, /no choices/);
  });

  test("keeps at most `concurrency` requests in flight at the server", async () => {
    api.chat(() => ({ delayMs: 60 }));
    const m = make({ concurrency: 3 });
    const answers = await Promise.all(Array.from({ length: 10 }, (_, i) => m.complete({ system: "s", user: `ερώτηση ${i}` })));
    assert.equal(api.count("chat/completions"), 10);
    assert.equal(api.maxInFlight(), 3);
    answers.forEach((a, i) => assert.equal(a.text, `echo(${GPT_OSS}): ερώτηση ${i}`, "each answer belongs to its own request"));
  });
});

describe("geminiChat", () => {
  let gemini: GeminiDouble;
  before(async () => {
    gemini = await startGeminiDouble({ apiKey: GEMINI_KEY });
  });
  beforeEach(() => {
    gemini.requests.length = 0;
    gemini.generate();
  });
  after(() => gemini.close());

  const make = (o: Partial<GeminiChatOptions> = {}) =>
    geminiChat({ apiKey: GEMINI_KEY, model: "gemini-2.5-flash", baseUrl: gemini.url, retryBaseMs: 1, retryMaxMs: 5, timeoutMs: 5000, ...o });

  test("sends systemInstruction, the user turn and generationConfig; the key only in the header", async () => {
    const r = await make().complete(PAPER);
    assert.equal(gemini.count("generateContent"), 1);
    const req = gemini.requests[0];
    assert.equal(req.path, "/v1beta/models/gemini-2.5-flash:generateContent");
    assert.equal(req.keyPresent, true);
    assert.equal(req.keyMatches, true);
    assert.deepEqual(req.query, {}, "the key must not travel in the URL");
    assert.deepEqual(req.body, {
      contents: [{ role: "user", parts: [{ text: PAPER.user }] }],
      systemInstruction: { role: "user", parts: [{ text: PAPER.system }] },
      // reasoningEffort is deliberately not mapped to a thinking setting (see gemini-chat.ts).
      generationConfig: { temperature: 0.2, topP: 1, maxOutputTokens: 42_000, seed: 42 },
    });
    assert.equal(r.text, echoGeminiText("gemini-2.5-flash", PAPER.user));
  });

  // The Gemini side of issue 29, row 11's null content: no text part is no answer.
  test("an answer with no text part (a safety stop, a budget spent on thoughts) is an EMPTY error, never kept by the store", async () => {
    gemini.queueGenerate({ parts: [], finishReason: "SAFETY" });
    const err = await rejection(make().complete(PAPER));
    assert.equal(err.code, "EMPTY");
    assert.match(err.message, /the answer has no text \(finishReason SAFETY\)/);
    const dir = mkdtempSync(path.join(os.tmpdir(), "gbr-gemini-empty-"));
    try {
      const cache = replayCache(await openStore(dir, { log: () => {} }));
      const model = withReplay(make(), cache, { offline: false });
      gemini.queueGenerate({ parts: [{ text: "**only a thought**", thought: true }], finishReason: "MAX_TOKENS" }, { text: "ΑΚ 597" });
      assert.match((await rejection(model.complete(PAPER))).message, /finishReason MAX_TOKENS\): the output budget ran out/);
      assert.equal((await model.complete(PAPER)).text, "ΑΚ 597", "asked again, not replayed as an empty answer");
      assert.equal((await model.complete(PAPER)).replayed, true);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test("leaves out what the request does not set; id drops a models/ prefix", async () => {
    const m = make({ model: "models/gemini-2.5-pro" });
    assert.equal(m.id, "gemini:gemini-2.5-pro");
    await m.complete({ system: "", user: "ερώτηση" });
    // The SDK always sends a generationConfig, empty when nothing is set.
    assert.deepEqual(gemini.requests[0].body, { contents: [{ role: "user", parts: [{ text: "ερώτηση" }] }], generationConfig: {} });
    assert.equal(gemini.requests[0].model, "gemini-2.5-pro");
  });

  test("reads usage (thinking tokens count as output) and leaves thought parts out of the answer", async () => {
    gemini.queueGenerate({
      thought: "**Identifying the issue** The user asks about a lease",
      text: "<think>x</think>μίσθωση, καταγγελία",
      usageMetadata: { promptTokenCount: 700, candidatesTokenCount: 40, thoughtsTokenCount: 900, totalTokenCount: 1640 },
      delayMs: 80,
    });
    const r = await make().complete(PAPER);
    assert.equal(r.raw, "<think>x</think>μίσθωση, καταγγελία");
    assert.equal(r.text, "μίσθωση, καταγγελία");
    assert.deepEqual(r.usage, { input: 700, output: 940 });
    assert.ok(r.seconds >= 0.07 && r.seconds < 5, `seconds ${r.seconds}`);
  });

  test("missing usage counts 0; an empty text part is an empty answer (no text part at all is EMPTY, below)", async () => {
    gemini.queueGenerate({ parts: [{ text: "only thoughts", thought: true }, { text: "" }], finishReason: "STOP", usageMetadata: null });
    const r = await make().complete(PAPER);
    assert.deepEqual([r.text, r.raw], ["", ""]);
    assert.deepEqual(r.usage, { input: 0, output: 0 });
  });

  test("honours Retry-After on a 429 rather than its own backoff", async () => {
    gemini.fault("429", 2, { retryAfter: "0", action: "generateContent" });
    // Own backoff of 20 s or more: finishing quickly proves the server's "0" was used.
    const started = Date.now();
    const r = await make({ retryBaseMs: 20_000, retryMaxMs: 60_000 }).complete(PAPER);
    assert.ok(Date.now() - started < 3000);
    assert.equal(gemini.count("generateContent"), 3);
    assert.equal(r.text, echoGeminiText("gemini-2.5-flash", PAPER.user));
  });

  test("retries a 500, then fails with the status and Google's message, never the key", async () => {
    gemini.fault("500", 3, { message: `backend melted for key ${GEMINI_KEY}` });
    const err = await rejection(make({ attempts: 3 }).complete(PAPER));
    assert.equal(gemini.count("generateContent"), 3);
    assert.equal(err.code, "PROVIDER");
    assert.ok(err instanceof ChatError);
    assert.equal(err.status, 500);
    assert.match(err.message, /gemini:gemini-2\.5-flash .*\(3 attempts\): HTTP 500 INTERNAL: backend melted/);
    assert.ok(!visible(err).includes(GEMINI_KEY), "the key leaked into the error");
  });

  test("a wrong key is final (400), not retried", async () => {
    const err = await rejection(make({ apiKey: "AIzaWRONG-key-0000000000" }).complete(PAPER));
    assert.equal(gemini.count(), 1);
    assert.equal((err as ChatError).status, 400);
    assert.match(err.message, /API key not valid/);
    assert.ok(!visible(err).includes("AIzaWRONG-key-0000000000"));
  });

  test("gives up after the per-attempt timeout", async () => {
    gemini.fault("slow", 1, { delayMs: 2000, action: "generateContent" });
    const started = Date.now();
    const err = await rejection(make({ timeoutMs: 200, attempts: 1 }).complete(PAPER));
    assert.ok(Date.now() - started < 1500);
    assert.equal(err.code, "PROVIDER");
    assert.match(err.message, /no complete answer from .* within 200 ms/);
  });

  test("keeps at most `concurrency` requests in flight at the server", async () => {
    gemini.generate(() => ({ delayMs: 60 }));
    const m = make({ concurrency: 2 });
    const before = gemini.peakInFlight();
    const answers = await Promise.all(Array.from({ length: 8 }, (_, i) => m.complete({ system: "s", user: `ερώτηση ${i}` })));
    assert.equal(gemini.count("generateContent"), 8);
    assert.ok(before <= 2, `an earlier test left a peak of ${before}`);
    assert.equal(gemini.peakInFlight(), 2);
    answers.forEach((a, i) => assert.equal(a.text, echoGeminiText("gemini-2.5-flash", `ερώτηση ${i}`)));
  });
});

describe("chat models from the environment", () => {
  let api: OpenAIDouble;
  let gemini: GeminiDouble;
  before(async () => {
    api = await startOpenAIDouble();
    gemini = await startGeminiDouble({ apiKey: GEMINI_KEY });
  });
  afterEach(() => api.reset());
  after(async () => {
    await api.close();
    await gemini.close();
  });

  test("OpenAI-compatible without a base URL: NOT_CONFIGURED, saying what to set", () => {
    const err = (() => {
      try {
        openaiChatFrom(readConfig({ OPENAI_API_KEY: SECRET }), undefined, {});
      } catch (e) {
        return e;
      }
      return assert.fail("expected NOT_CONFIGURED");
    })();
    assert.ok(err instanceof ChatError);
    assert.equal(err.code, "NOT_CONFIGURED");
    assert.match(err.message, /GBR_CHAT_BASE_URL/);
    assert.match(err.message, /OPENAI_BASE_URL/);
    assert.match(err.message, /GEMINI_API_KEY/, "mentions the other provider");
    assert.ok(!err.message.includes(SECRET));
  });

  test("GBR_CHAT_* take precedence over OPENAI_*; model from argument, GBR_CHAT_MODEL, then gpt-oss-120b", async () => {
    const env = {
      GBR_CHAT_BASE_URL: `${api.url}/v1`,
      OPENAI_BASE_URL: "http://127.0.0.1:9/v1",
      GBR_CHAT_API_KEY: "sk-chat-key",
      OPENAI_API_KEY: "sk-other-key",
    };
    const llm = openaiChatFrom(readConfig(env), undefined, { maxRetries: 0 });
    assert.equal(llm.id, `openai:${GPT_OSS}`);
    await llm.complete({ system: "s", user: "u" });
    assert.equal(api.requests[0].authorization, "Bearer sk-chat-key");
    assert.equal(api.chatRequests()[0].model, GPT_OSS);
    assert.equal(openaiChatFrom(readConfig({ ...env, GBR_CHAT_MODEL: "gpt-oss:20b" }), undefined, {}).id, "openai:gpt-oss:20b");
    assert.equal(openaiChatFrom(readConfig({ ...env, GBR_CHAT_MODEL: "openai:qwen3-32b" }), undefined, {}).id, "openai:qwen3-32b");
    assert.equal(openaiChatFrom(readConfig({ ...env, GBR_CHAT_MODEL: "gpt-oss:20b" }), "llama-3.3", {}).id, "openai:llama-3.3");
    // OPENAI_* alone suffice.
    const plain = openaiChatFrom(readConfig({ OPENAI_BASE_URL: `${api.url}/v1`, OPENAI_API_KEY: "sk-plain" }), undefined, { maxRetries: 0 });
    await plain.complete({ system: "s", user: "u" });
    assert.equal(api.requests[1].authorization, "Bearer sk-plain");
  });

  test("Gemini without a key: NOT_CONFIGURED, saying what to set", () => {
    assert.throws(
      () => geminiChatFrom(readConfig({}), undefined, {}),
      (e: unknown) => e instanceof ChatError && e.code === "NOT_CONFIGURED" && /GEMINI_API_KEY/.test(e.message) && /GOOGLE_API_KEY/.test(e.message),
    );
  });

  test("Gemini from GOOGLE_API_KEY and GBR_GEMINI_BASE_URL; model from argument, a Gemini GBR_CHAT_MODEL, then gemini-2.5-flash", async () => {
    const env = { GOOGLE_API_KEY: GEMINI_KEY, GBR_GEMINI_BASE_URL: gemini.url };
    const llm = geminiChatFrom(readConfig(env), undefined, { attempts: 1 });
    assert.equal(llm.id, "gemini:gemini-2.5-flash");
    await llm.complete({ system: "s", user: "u" });
    assert.equal(gemini.requests.at(-1)?.keyMatches, true);
    assert.equal(geminiChatFrom(readConfig({ ...env, GBR_CHAT_MODEL: "gemini-2.5-pro" }), undefined, {}).id, "gemini:gemini-2.5-pro");
    assert.equal(geminiChatFrom(readConfig({ ...env, GBR_CHAT_MODEL: GPT_OSS }), undefined, {}).id, "gemini:gemini-2.5-flash", "a gpt-oss name is not for Gemini");
    assert.equal(geminiChatFrom(readConfig(env), "gemini-3-pro", {}).id, "gemini:gemini-3-pro");
  });

  test("chatModelFrom picks the provider by name", async () => {
    const env = { GBR_CHAT_BASE_URL: `${api.url}/v1`, GEMINI_API_KEY: GEMINI_KEY, GBR_GEMINI_BASE_URL: gemini.url };
    assert.equal(chatModelFrom(readConfig(env), undefined).id, `openai:${GPT_OSS}`, "the paper's model by default");
    assert.equal(chatModelFrom(readConfig({ ...env, GBR_CHAT_MODEL: "gemini-2.5-flash" }), undefined).id, "gemini:gemini-2.5-flash");
    assert.equal(chatModelFrom(readConfig(env), "gemini-2.5-pro").id, "gemini:gemini-2.5-pro");
    assert.equal(chatModelFrom(readConfig(env), "gemini:gemini-2.5-flash-lite").id, "gemini:gemini-2.5-flash-lite");
    assert.equal(chatModelFrom(readConfig(env), "gpt-oss:20b").id, "openai:gpt-oss:20b", "an Ollama tag is a model name, not a provider");
    assert.equal(chatModelFrom(readConfig(env), "openai:gemini-2.5-pro").id, "openai:gemini-2.5-pro", "forced through an OpenAI-compatible proxy");
    // Ids round-trip.
    for (const id of ["openai:gpt-oss:20b", "gemini:gemini-2.5-pro", `openai:${GPT_OSS}`]) assert.equal(chatModelFrom(readConfig(env), id).id, id);
    // And the chosen model really talks to its server.
    const r = await chatModelFrom(readConfig(env), "gemini-2.5-flash").complete({ system: "s", user: "γεια" });
    assert.equal(r.text, echoGeminiText("gemini-2.5-flash", "γεια"));
  });

  test("chatModelFrom reports the missing configuration of the provider it picked", () => {
    const code = (f: () => unknown) => {
      try {
        f();
      } catch (e) {
        return e instanceof ChatError ? `${e.code}: ${e.message}` : String(e);
      }
      return "no error";
    };
    assert.match(code(() => chatModelFrom(readConfig({}), undefined)), /^NOT_CONFIGURED: .*GBR_CHAT_BASE_URL/);
    assert.match(code(() => chatModelFrom(readConfig({ OPENAI_BASE_URL: `${api.url}/v1` }), "gemini-2.5-flash")), /^NOT_CONFIGURED: .*GEMINI_API_KEY/);
    assert.match(code(() => chatModelFrom(readConfig({ OPENAI_BASE_URL: `${api.url}/v1` }), "openai:")), /^NOT_CONFIGURED: .*no model/);
  });

  test("parseChatModelName", () => {
    assert.deepEqual(parseChatModelName(undefined), { provider: "openai", model: undefined });
    assert.deepEqual(parseChatModelName("  "), { provider: "openai", model: undefined });
    assert.deepEqual(parseChatModelName("Gemini-2.5-Flash"), { provider: "gemini", model: "Gemini-2.5-Flash" });
    assert.deepEqual(parseChatModelName("models/gemini-2.5-flash"), { provider: "gemini", model: "models/gemini-2.5-flash" });
    assert.deepEqual(parseChatModelName("OPENAI:gpt-oss:120b"), { provider: "openai", model: "gpt-oss:120b" });
    assert.deepEqual(parseChatModelName("gemma3:27b"), { provider: "openai", model: "gemma3:27b" });
    assert.deepEqual(parseChatModelName("google/gemini-2.5-flash"), { provider: "openai", model: "google/gemini-2.5-flash" });
  });
});

describe("longRequestDispatcher", () => {
  test("its header timeout reaches Node's fetch (so 0 really lifts the 300 s default)", async () => {
    const api = await startOpenAIDouble();
    try {
      api.fault("slow", 1, { delayMs: 3000 });
      const dispatcher = longRequestDispatcher({ headersTimeoutMs: 500 });
      assert.ok(dispatcher, "available in Node");
      const init = { method: "POST", body: "{}", dispatcher } as RequestInit;
      const err = await fetch(`${api.url}/v1/chat/completions`, init).then(
        () => assert.fail("expected a headers timeout"),
        (e: unknown) => e as { cause?: { code?: string } },
      );
      assert.equal(err.cause?.code, "UND_ERR_HEADERS_TIMEOUT");
      // The untimed variant still answers normally.
      const ok = await fetch(`${api.url}/v1/chat/completions`, {
        method: "POST",
        body: JSON.stringify({ model: "m", messages: [{ role: "user", content: "α" }] }),
        dispatcher: longRequestDispatcher(),
      } as RequestInit);
      assert.equal(ok.status, 200);
    } finally {
      await api.close();
    }
  });
});
