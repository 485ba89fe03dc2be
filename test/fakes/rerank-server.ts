/**
 * A local double of a rerank server, on 127.0.0.1 with a random port, speaking what vLLM, Jina
 * and Cohere-compatible servers speak (or Text Embeddings Inference's variant with `tei: true`):
 *
 *   POST /rerank  (also /v1/rerank)
 *     { model, query, documents: string[], top_n? }
 *     -> { id, model, results: [{ index, relevance_score, document: { text } }] (score descending,
 *          ties by index, cut to top_n), usage: { prompt_tokens, total_tokens }, gbr_test_double: true }
 *   with `tei: true`:
 *     { query, texts: string[], raw_scores? } -> [{ index, score, gbr_test_double: true }] (score descending)
 *
 * Every answer carries the `gbr_test_double` mark (on each item of TEI's bare array, which has no
 * body to put it on), so results made through it show as stand-ins. Scores are a pure function of
 * (query, document) as sent: `defaultRerankScore` unless the test gives its own, so a test can
 * compute the expected ranking itself. `usage` counts whitespace-separated words of the query
 * (once per document) and the documents.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { fakeTokens } from "./openai-server";

/**
 * The double's default score: how many distinct lower-cased words of the query occur as words
 * in the document, divided by the document's word count + 1 (words: runs of letters and digits).
 * Deterministic, cheap, and favouring short articles that share the query's words.
 *
 * @example
 * defaultRerankScore("Ο Α πώλησε", "ο Α αγόρασε"); // 2 / (3 + 1) = 0.5
 */
export function defaultRerankScore(query: string, document: string): number {
  const docWords = words(document);
  const inDoc = new Set(docWords);
  let shared = 0;
  for (const w of new Set(words(query))) if (inDoc.has(w)) shared++;
  return shared / (docWords.length + 1);
}

function words(text: string): string[] {
  return text.toLowerCase().split(/[^\p{L}\p{N}]+/u).filter(Boolean);
}

/**
 * A scripted error answer for the next `times` requests (default 1).
 *
 * @example
 * api.fault({ status: 429, retryAfter: "1" });          // one rate limit, asking for a 1 s wait
 * api.fault({ status: 500, times: 100 });               // broken for good
 * api.fault({ drop: true });                            // connection closed without an answer
 */
export interface RerankFault {
  /** HTTP status of the error answer (default 500). */
  status?: number;
  /** Retry-After header value (seconds, as a string). */
  retryAfter?: string;
  /** Error message in the body. */
  message?: string;
  /** Close the connection without answering instead. */
  drop?: boolean;
  times?: number;
}

/** One request as the double saw it. */
export interface RecordedRerankRequest {
  path: string;
  authorization?: string;
  /** Parsed JSON body (undefined when it was not a JSON object). */
  body: { model?: string; query?: string; documents?: string[]; texts?: string[]; top_n?: number; [field: string]: unknown } | undefined;
}

export interface RerankDoubleOptions {
  /** Score of one (query, document) pair as sent (default `defaultRerankScore`). */
  score?: (query: string, document: string) => number;
  /** Delay every answer by this much (default 0), to hold requests in flight. */
  delayMs?: number;
  /** When set, requests need `Authorization: Bearer <apiKey>` (401 otherwise). */
  apiKey?: string;
  /** Speak Text Embeddings Inference's variant (`texts` in, a bare `[{index, score}]` out). */
  tei?: boolean;
}

export interface RerankDouble {
  /** http://127.0.0.1:<port> (no trailing slash). */
  url: string;
  /** Every request so far, in arrival order (recorded before any delay or fault). */
  requests(): RecordedRerankRequest[];
  /** Requests so far. */
  count(): number;
  /** Documents received over all requests so far (pairs asked for). */
  pairs(): number;
  /** Answer the next request(s) with an error (queued behind earlier faults). */
  fault(f: RerankFault): void;
  /** Forget requests and pending faults. */
  reset(): void;
  close(): Promise<void>;
}

/**
 * Starts the double.
 *
 * @example
 * const api = await startRerankDouble({ score: (q, d) => (d.includes("μίσθωση") ? 1 : 0) });
 * process.env.GBR_RERANK_BASE_URL = api.url;
 * // … run, then:
 * api.count(); await api.close();
 */
export async function startRerankDouble(o: RerankDoubleOptions = {}): Promise<RerankDouble> {
  const score = o.score ?? defaultRerankScore;
  const requests: RecordedRerankRequest[] = [];
  let faults: (RerankFault & { times: number })[] = [];
  const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

  const send = (res: http.ServerResponse, status: number, json: unknown, headers: Record<string, string> = {}) => {
    if (res.destroyed || res.writableEnded) return; // the client gave up meanwhile
    const buf = Buffer.from(JSON.stringify(json));
    res.writeHead(status, { "Content-Type": "application/json", "Content-Length": String(buf.length), ...headers });
    res.end(buf);
  };
  const error = (status: number, message: string) => (o.tei ? { error: message, error_type: "Validation" } : { object: "error", message, type: "BadRequestError", code: status });

  const handle = async (req: http.IncomingMessage, res: http.ServerResponse, raw: Buffer) => {
    const path = new URL(req.url ?? "/", "http://x").pathname;
    let body: RecordedRerankRequest["body"];
    try {
      const parsed: unknown = JSON.parse(raw.toString("utf8"));
      if (parsed && typeof parsed === "object" && !Array.isArray(parsed)) body = parsed as RecordedRerankRequest["body"];
    } catch {
      body = undefined;
    }
    requests.push({ path, authorization: req.headers.authorization, body });
    if (o.delayMs) await sleep(o.delayMs);
    if (path !== "/rerank" && path !== "/v1/rerank") return send(res, 404, error(404, `no route ${req.method} ${path}`));
    if (req.method !== "POST") return send(res, 405, error(405, "method not allowed"));
    if (o.apiKey !== undefined && req.headers.authorization !== `Bearer ${o.apiKey}`) return send(res, 401, error(401, "invalid API key"));
    const f = faults[0];
    if (f) {
      if (--f.times <= 0) faults.shift();
      if (f.drop) return void req.socket.destroy();
      const status = f.status ?? 500;
      return send(res, status, error(status, f.message ?? `scripted ${status} error`), f.retryAfter !== undefined ? { "Retry-After": f.retryAfter } : {});
    }
    if (!body) return send(res, 400, error(400, "body is not a JSON object"));
    const docs = o.tei ? body.texts : body.documents;
    if (typeof body.query !== "string") return send(res, 400, error(400, "query must be a string"));
    if (!Array.isArray(docs) || docs.length === 0 || !docs.every((d) => typeof d === "string")) {
      return send(res, o.tei ? 422 : 400, error(o.tei ? 422 : 400, `${o.tei ? "texts" : "documents"} must be a non-empty list of strings`));
    }
    if (!o.tei && (typeof body.model !== "string" || !body.model)) return send(res, 400, error(400, "model must be given"));
    const query = body.query;
    const ranked = docs.map((d, index) => ({ index, s: score(query, d) })).sort((a, b) => b.s - a.s || a.index - b.index);
    if (o.tei) return send(res, 200, ranked.map((r) => ({ index: r.index, score: r.s, gbr_test_double: true })));
    const topN = typeof body.top_n === "number" && body.top_n > 0 ? body.top_n : ranked.length;
    const tokens = fakeTokens(docs.flatMap((d) => [query, d]));
    send(res, 200, {
      id: `rerank-${requests.length}`,
      model: body.model,
      results: ranked.slice(0, topN).map((r) => ({ index: r.index, relevance_score: r.s, document: { text: docs[r.index] } })),
      usage: { prompt_tokens: tokens, total_tokens: tokens },
      gbr_test_double: true,
    });
  };

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      handle(req, res, Buffer.concat(chunks)).catch((err: unknown) => send(res, 500, error(500, `double crashed: ${String(err)}`)));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}`,
    requests: () => [...requests],
    count: () => requests.length,
    pairs: () => requests.reduce((n, r) => n + ((o.tei ? r.body?.texts : r.body?.documents)?.length ?? 0), 0),
    fault(f) {
      const times = f.times ?? 1;
      if (!(Number.isInteger(times) && times >= 1)) throw new RangeError(`fault times must be a positive integer, got ${times}`);
      faults.push({ ...f, times });
    },
    reset() {
      requests.length = 0;
      faults = [];
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve, reject) => server.close((err) => (err ? reject(err) : resolve())));
    },
  };
}
