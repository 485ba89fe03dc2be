// The cross-encoder's requests in flight follow the server's answers: refusals (429) halve them,
// and the client reports every answer's status, retries included.
import { test } from "node:test";
import assert from "node:assert/strict";
import { crossEncoderRerankRun } from "../../../lib/rerank/cross-encoder";
import { rerankClient } from "../../../lib/providers/rerank-client";
import type { RerankClient } from "../../../lib/models/rerank";
import { rerankPreset } from "../../../lib/rerank/presets";
import { startRerankDouble } from "../../fakes/rerank-server";
import type { Run } from "../../../lib/types";

test("refusals drive the cross-encoder's requests in flight down, and every pair is scored", async () => {
  const listeners = new Set<(s: number) => void>();
  let inFlight = 0;
  let answered = 0;
  const peaks: number[] = []; // in flight when each request starts
  const client: RerankClient = {
    id: "fake",
    endpoint: "http://127.0.0.1:1",
    onStatus: (l) => {
      listeners.add(l);
      return () => void listeners.delete(l);
    },
    async rerank(_model, _query, documents) {
      peaks.push(++inFlight);
      await new Promise((r) => setTimeout(r, 5));
      // The first 12 answers: refused, then retried (as the real client does) and answered.
      if (answered < 12) for (const l of listeners) l(429);
      for (const l of listeners) l(200);
      answered++;
      inFlight--;
      return { scores: documents.map((d) => d.length), standIn: true };
    },
  };
  const preset = { ...rerankPreset("bge-reranker-v2-m3"), batchSize: 2 };
  const queries = Array.from({ length: 20 }, (_, i) => ({ id: `q${i}`, text: `ερώτηση ${i}` }));
  const docText = new Map(Array.from({ length: 8 }, (_, d) => [`D${d}`, "κείμενο ".repeat(d + 1)] as const));
  const first: Run = { rankings: new Map(queries.map((q) => [q.id, [...docText.keys()]])) };
  const run = await crossEncoderRerankRun(preset, client, queries, first, docText, { concurrency: 8, depth: 8 });
  assert.equal(answered, 20 * 4, "every batch of two pairs was scored");
  assert.equal(run.rankings.get("q0")![0], "D7", "the longest article scores highest");
  assert.ok(Math.max(...peaks.slice(0, 8)) === 8, `it started at 8 in flight: ${peaks.slice(0, 8)}`);
  // Halved by the refusals (8 -> 4), then one more per run of successes back up to 8.
  assert.ok(peaks.slice(8).some((p) => p <= 5), `after the refusals the requests in flight went down: ${peaks}`);
  assert.ok(peaks.slice(-10).some((p) => p === 8), `and grew back to 8: ${peaks}`);
  assert.equal(listeners.size, 0, "the run stopped listening when it ended");
});

test("the rerank client reports the status of every answer, a refused attempt included", async () => {
  const api = await startRerankDouble();
  try {
    api.fault({ status: 429, retryAfter: "0" });
    const c = rerankClient({ baseUrl: api.url, backoffMs: 1 });
    const seen: number[] = [];
    const off = c.onStatus!((s) => seen.push(s));
    await c.rerank("BAAI/bge-reranker-v2-m3", "ερώτηση", ["α", "β"]);
    off();
    await c.rerank("BAAI/bge-reranker-v2-m3", "ερώτηση", ["α"]);
    assert.deepEqual(seen, [429, 200]);
  } finally {
    await api.close();
  }
});
