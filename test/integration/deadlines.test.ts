/**
 * GBR_REQUEST_TIMEOUT_S is one deadline per request over connection, headers and body, for every kind of model server:
 * a server dripping one byte at a time, or sending headers and then nothing, cannot hold a request past it; a
 * failover goes to the healthy server; a Retry-After of days is capped at the deadline and announced when long.
 * Timings: deadline 1 s, drip every 300 ms (forever); assertions only say "well before a drip would have ended".
 */
import assert from "node:assert/strict";
import { afterEach, beforeEach, describe, test } from "node:test";
import { readConfig } from "../../lib/config";
import { openaiChat, openaiChatFrom } from "../../lib/providers/openai-chat";
import { openaiEmbedder } from "../../lib/providers/openai-embedder";
import { geminiChat } from "../../lib/providers/gemini-chat";
import { retryWithBackoff } from "../../lib/util/retry";
import { downloadFile } from "../../lib/util/download";
import { rerankClient } from "../../lib/providers/rerank-client";
import { promises as fs } from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { startGeminiDouble, type GeminiDouble } from "../fakes/gemini-server";
import { startOpenAIDouble, type OpenAIDouble } from "../fakes/openai-server";

for (const k of ["OPENAI_BASE_URL", "OPENAI_API_KEY", "OPENAI_LOG"]) delete process.env[k];

/** Far beyond any deadline here: a request still open then was held by the server, not ended by us. */
const HELD_MS = 20_000;

/** How `p` ended and after how long; a promise still pending after HELD_MS counts as held. */
async function settle(p: Promise<unknown>): Promise<{ outcome: "resolved" | "rejected" | "held"; ms: number; error?: unknown }> {
  const started = Date.now();
  let timer: NodeJS.Timeout | undefined;
  const held = new Promise<"held">((resolve) => (timer = setTimeout(() => resolve("held"), HELD_MS)));
  try {
    const r = await Promise.race([p.then(() => "resolved" as const), held]);
    return { outcome: r, ms: Date.now() - started };
  } catch (error) {
    return { outcome: "rejected", ms: Date.now() - started, error };
  } finally {
    clearTimeout(timer);
  }
}

describe("one deadline per request, body included", () => {
  // Fresh doubles per test: a request a broken client left open must not take the next test's fault.
  let api: OpenAIDouble;
  let healthy: OpenAIDouble;
  let gemini: GeminiDouble;
  beforeEach(async () => {
    api = await startOpenAIDouble();
    healthy = await startOpenAIDouble();
    gemini = await startGeminiDouble({ apiKey: "TEST-gemini-deadline-0123" });
  });
  afterEach(async () => {
    await api.close();
    await healthy.close();
    await gemini.close();
  });

  test("chat: a body dripping a byte every 300 ms fails at the 1 s deadline, retried once", async () => {
    api.fault("drip", 2, { everyMs: 300 });
    const chat = openaiChat({ model: "m", baseURL: `${api.url}/v1`, timeoutMs: 1000, maxRetries: 1 });
    const r = await settle(chat.complete({ system: "", user: "Ερώτηση" }));
    assert.equal(r.outcome, "rejected", `after ${r.ms} ms`);
    assert.match(String((r.error as Error).message), /timed out after 1000 ms per attempt \(2 attempts\)/);
    assert.equal(api.count("chat/completions"), 2);
  });

  test("embeddings: headers and then silence fail at the deadline", async () => {
    api.fault("drip", 1, { everyMs: 0 });
    const embedder = openaiEmbedder({ model: "e", baseURL: `${api.url}/v1`, timeoutMs: 1000, maxRetries: 0 });
    const r = await settle(embedder.embed(["α"], "document"));
    assert.equal(r.outcome, "rejected", `after ${r.ms} ms`);
    assert.match(String((r.error as Error).message), /timed out after 1000 ms/);
  });

  test("two chat servers: a dripping one is set aside at the deadline and the healthy one answers", async () => {
    api.fault("drip", 1, { everyMs: 300 });
    const config = readConfig({ GBR_CHAT_BASE_URL: `${api.url}/v1,${healthy.url}/v1`, GBR_REQUEST_TIMEOUT_S: "1" });
    const chat = openaiChatFrom(config, "m");
    const r = await settle(chat.complete({ system: "", user: "Ερώτηση" }));
    assert.equal(r.outcome, "resolved", `after ${r.ms} ms: ${String(r.error)}`);
    assert.equal(api.count("chat/completions"), 1);
    assert.equal(healthy.count("chat/completions"), 1);
  });

  test("a Retry-After of 999999 s waits no longer than the deadline", async () => {
    api.fault("rateLimit", 1, { retryAfter: "999999", route: "chat/completions" });
    const chat = openaiChat({ model: "m", baseURL: `${api.url}/v1`, timeoutMs: 1000, maxRetries: 1 });
    const r = await settle(chat.complete({ system: "", user: "Ερώτηση" }));
    assert.equal(r.outcome, "resolved", `after ${r.ms} ms: ${String(r.error)}`);
  });

  test("Gemini chat: a dripping body fails at the deadline", async () => {
    gemini.fault("drip", 1, { everyMs: 300 });
    const chat = geminiChat({ apiKey: "TEST-gemini-deadline-0123", model: "gemini-2.5-flash", baseUrl: gemini.url, timeoutMs: 1000, attempts: 1 });
    const r = await settle(chat.complete({ system: "", user: "Ερώτηση" }));
    assert.equal(r.outcome, "rejected", `after ${r.ms} ms`);
    assert.match(String((r.error as Error).message), /within 1000 ms/);
  });
});

/** A server answering every request with 200 headers and then one byte every 300 ms, forever. */
async function startDripServer(): Promise<{ url: string; close(): Promise<void> }> {
  const server = http.createServer((req, res) => {
    req.resume();
    res.writeHead(200, { "Content-Type": "application/json", "Content-Length": "1000000" });
    const t = setInterval(() => res.write(" "), 300);
    res.once("close", () => clearInterval(t));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => {
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

describe("the same deadline for rerank and downloads", () => {
  test("rerank and a Hub-style download of a dripping body fail at the deadline", async () => {
    const drip = await startDripServer();
    const tmp = await fs.mkdtemp(path.join(os.tmpdir(), "gbr-deadline-"));
    try {
      const rerank = await settle(rerankClient({ baseUrl: drip.url, timeoutMs: 1000, attempts: 1 }).rerank("m", "q", ["α"]));
      assert.equal(rerank.outcome, "rejected", `after ${rerank.ms} ms`);
      assert.match(String((rerank.error as Error).message), /timed out after 1000 ms/);
      const download = await settle(downloadFile(`${drip.url}/file.json`, path.join(tmp, "file.json"), { timeoutMs: 1000, attempts: 1 }));
      assert.equal(download.outcome, "rejected", `after ${download.ms} ms`);
    } finally {
      await drip.close();
      await fs.rm(tmp, { recursive: true, force: true });
    }
  });
});

describe("a server's long wait", () => {
  test("is capped at the request's deadline and announced with what was asked", async () => {
    const slept: number[] = [];
    const lines: string[] = [];
    let n = 0;
    const result = await retryWithBackoff(
      async () => {
        if (n++ === 0) throw new Error("429");
        return "ok";
      },
      {
        classify: () => ({ retry: true, afterMs: 999_999_000 }),
        maxWaitMs: 120_000,
        label: "openai:m at http://h/v1",
        announce: (line) => lines.push(line),
        sleep: async (ms) => void slept.push(ms),
      },
    );
    assert.equal(result, "ok");
    assert.deepEqual(slept, [120_000]);
    assert.deepEqual(lines, ["openai:m at http://h/v1: the server asked to wait; retrying in 120 s (it asked for 999999 s)"]);
  });

  test("a short one is not announced", async () => {
    const lines: string[] = [];
    let n = 0;
    await retryWithBackoff(
      async () => {
        if (n++ === 0) throw new Error("429");
      },
      { classify: () => ({ retry: true, afterMs: 2000 }), label: "x", announce: (l) => lines.push(l), sleep: async () => {} },
    );
    assert.deepEqual(lines, []);
  });
});
