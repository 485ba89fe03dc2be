/**
 * A local double of an OpenAI-compatible server (the protocol subset the product speaks), on
 * 127.0.0.1 with a random port, for driving the real `openai` SDK in tests. It records every
 * request, counts them, tracks how many are in flight, and plays scripted faults.
 *
 *   POST /v1/embeddings  (also /embeddings, for base URLs without /v1)
 *     { model, input: string | string[], dimensions?, encoding_format? }
 *     -> { object: "list", model, data: [{ object: "embedding", index, embedding }], usage }
 *        (`usage` left out when the double is started with `usage: false`)
 *
 *   POST /v1/chat/completions  (also /chat/completions)
 *     { model, messages: [{ role, content }], temperature?, top_p?, max_tokens?, reasoning_effort?, seed? … }
 *     -> { object: "chat.completion", model, choices: [{ index, message: { role, content,
 *          reasoning_content? | reasoning? }, finish_reason }], usage }
 *     Answers are scripted: `queueChat(...)` answers the next requests in order, `chat(handler)`
 *     answers the rest; by default the double echoes (`echoChatContent`), deterministically.
 *
 * The SDK appends "/embeddings" (or "/chat/completions") to its baseURL, so tests pass
 * `${double.url}/v1` as baseURL.
 *
 * Vectors are a pure function of (model, text, dimension): a test can compute the expected
 * vector with `fakeVector` and compare exactly. `usage` counts whitespace-separated words, a
 * stand-in for tokens that a test can compute too.
 *
 * Adding a route: write a `RouteHandler` and register it in `ROUTES` (or, when it needs state of
 * its own double, in `routes` inside `startOpenAIDouble`, as chat completions do); recording,
 * counting, in-flight tracking and the transport faults then apply to it unchanged.
 */
import { createHash } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";

/**
 * What a fault does to the next request(s) it applies to.
 *
 * Transport faults (any route):
 * - "rateLimit": 429 with `Retry-After` (`extra.retryAfter`, default "0") and optionally `retry-after-ms`.
 * - "status":    an error status (`extra.status`, default 500) with an OpenAI-style error body;
 *                `extra.retryAfter` adds a Retry-After header (the SDK honours it for any retried status).
 * - "slow":      wait `extra.delayMs` (default 1000) before answering normally (to trip client timeouts).
 * - "drop":      destroy the connection without answering.
 * - "malformed": 200 with a body that is not JSON.
 * - "truncate":  200 promising more bytes than it sends, then destroy the connection.
 * - "drip":      200 headers, then one byte every `extra.everyMs` (default 300; 0 sends none) until the client goes.
 * Embedding content faults (a 200 whose content is wrong):
 * - "wrongCount": `extra.count` embeddings (default: one fewer than inputs).
 * - "wrongDims":  vectors of `extra.dims` entries (default: one more than asked).
 * - "badValue":   the first vector's first entry is `extra.value` (default null; JSON has no NaN).
 * - "reorder":    correct embeddings, listed in reverse order (each keeps its `index`).
 */
export type FaultKind =
  | "rateLimit"
  | "status"
  | "slow"
  | "drop"
  | "malformed"
  | "truncate"
  | "drip"
  | "wrongCount"
  | "wrongDims"
  | "badValue"
  | "reorder";

export interface FaultExtra {
  /** Retry-After header value in seconds ("rateLimit", "status"). */
  retryAfter?: string;
  /** retry-after-ms header value ("rateLimit", "status"); the SDK prefers it to Retry-After. */
  retryAfterMs?: string;
  /** HTTP status ("status"; default 500). */
  status?: number;
  /** Error message in the body ("rateLimit", "status"). */
  message?: string;
  /** Delay before answering ("slow"; default 1000 ms). */
  delayMs?: number;
  /** Time between the bytes of a "drip" answer (default 300 ms; 0: headers, then silence). */
  everyMs?: number;
  /** Number of embeddings to return ("wrongCount"). */
  count?: number;
  /** Vector length to return ("wrongDims"). */
  dims?: number;
  /** The value to plant in a vector ("badValue"; default null). */
  value?: null | string;
  /** Only requests to this route consume the fault, e.g. "embeddings" or "chat/completions" (default: any route). */
  route?: string;
}

/**
 * A chat completion request body as the double received it (only the fields tests look at are typed).
 *
 * @example
 * const [body]: ChatCompletionBody[] = api.chatRequests();
 * body.messages[0]; // { role: "system", content: "…" }
 */
export interface ChatCompletionBody {
  model: string;
  messages: { role: string; content: unknown }[];
  temperature?: number;
  top_p?: number;
  max_tokens?: number;
  max_completion_tokens?: number;
  reasoning_effort?: string;
  seed?: number;
  stream?: boolean;
  [field: string]: unknown;
}

/**
 * What the double answers to one chat completion. Everything is optional: the defaults are the
 * echo answer with word-count usage.
 *
 * @example
 * api.queueChat(
 *   { content: "<think>…</think>μίσθωση", usage: { prompt_tokens: 900, completion_tokens: 120 } },
 *   { content: null, reasoning: "ran out of tokens", finish_reason: "length" },
 *   { status: 500, message: "CUDA out of memory" },
 * );
 */
export interface ChatAnswer {
  /** `message.content` (null is sent as null, as vLLM does when only reasoning was produced). */
  content?: string | null;
  /** Reasoning in the field older vLLM, LM Studio and DeepSeek use. */
  reasoning_content?: string;
  /** Reasoning in the field newer vLLM (gpt-oss) and Ollama use. */
  reasoning?: string;
  /** `usage` (default: word counts of the prompt and of the content); null leaves it out. */
  usage?: { prompt_tokens: number; completion_tokens: number; total_tokens?: number } | null;
  /** `finish_reason` (default "stop"). */
  finish_reason?: string;
  /** Wait this long before answering (to hold the request in flight). */
  delayMs?: number;
  /** Answer with this error status (and `message`) instead of a completion. */
  status?: number;
  message?: string;
  /** Answer exactly this JSON body (status 200), ignoring the fields above except `delayMs`. */
  rawBody?: unknown;
}

/**
 * Chooses the answer to one chat completion request (`index` counts chat requests from 0).
 *
 * @example
 * api.chat((body) => ({ content: body.messages.some((m) => m.role === "system") ? "με system" : "χωρίς", delayMs: 50 }));
 */
export type ChatHandler = (body: ChatCompletionBody, index: number) => ChatAnswer | Promise<ChatAnswer>;

/**
 * The double's default chat answer: the model name and the last user message, so a test can
 * tell which request an answer belongs to.
 *
 * @example
 * echoChatContent({ model: "m", messages: [{ role: "system", content: "s" }, { role: "user", content: "Ερώτηση" }] });
 * // "echo(m): Ερώτηση"
 */
export function echoChatContent(body: Pick<ChatCompletionBody, "model" | "messages">): string {
  const users = body.messages.filter((m) => m.role === "user");
  const last = users[users.length - 1]?.content;
  return `echo(${body.model}): ${typeof last === "string" ? last : JSON.stringify(last ?? "")}`;
}

/** One request as the double saw it. */
export interface RecordedRequest {
  method: string;
  /** Path as requested, e.g. "/v1/embeddings". */
  path: string;
  /** Route name it was served by ("embeddings"), or undefined for an unknown path. */
  route?: string;
  /** The Authorization header, to check which key was sent (or that one was). */
  authorization?: string;
  /** Parsed JSON body (undefined when the body was not JSON). */
  body: Record<string, unknown> | undefined;
}

export interface OpenAIDoubleOptions {
  /** Vector length when the request does not ask for `dimensions` (default 8). */
  dims?: number;
  /** L2-normalise the vectors (default true, as most embedding servers do). */
  normalize?: boolean;
  /** Delay every answer by this much (default 0): to hold requests in flight for concurrency tests. */
  delayMs?: number;
  /** When set, requests need `Authorization: Bearer <apiKey>` (401 otherwise). */
  apiKey?: string;
  /** Honour `dimensions` in embedding requests (default true, like text-embedding-3). */
  honourDimensions?: boolean;
  /** Report `usage` in embedding answers (default true; false plays a server that leaves it out). */
  usage?: boolean;
  /** The port to listen on (default 0: a random free one); a fixed one is for running a documented command exactly as written. */
  port?: number;
}

export interface OpenAIDouble {
  /** http://127.0.0.1:<port> (no trailing slash, no /v1). */
  url: string;
  /** Every request so far, in arrival order. */
  requests: RecordedRequest[];
  /** Requests so far, to one route when given. */
  count(route?: string): number;
  /** Script `kind` for the next `times` requests (queued behind earlier faults). */
  fault(kind: FaultKind, times?: number, extra?: FaultExtra): void;
  /** Requests being handled right now, and the most ever at once. */
  inFlight(): number;
  maxInFlight(): number;
  /** Bodies of the embedding requests so far, typed. */
  embeddingRequests(): { model: string; input: string[]; dimensions?: number; encoding_format?: string }[];
  /** Answers the next chat completions, one each, in order (before the handler is asked). */
  queueChat(...answers: ChatAnswer[]): void;
  /** Answers chat completions that the queue does not; no argument restores the echo. */
  chat(handler?: ChatHandler): void;
  /** Bodies of the chat completion requests so far (count("chat/completions") counts them). */
  chatRequests(): ChatCompletionBody[];
  /** Forget requests, counts, the in-flight peak, pending faults and chat scripts (between subtests). */
  reset(): void;
  close(): Promise<void>;
}

/**
 * The vector the double returns for `text` under `model`: sha256(model, text, counter) bytes
 * mapped to [-1, 1), optionally L2-normalised. Exported so tests can assert exact values.
 *
 * @example
 * fakeVector("m", "Άρθρο 1", 8).length; // 8
 */
export function fakeVector(model: string, text: string, dims: number, normalize = true): number[] {
  const v: number[] = [];
  for (let block = 0; v.length < dims; block++) {
    const h = createHash("sha256").update(`${model}\0${text}\0${block}`).digest();
    for (let o = 0; o + 4 <= h.length && v.length < dims; o += 4) v.push(h.readUInt32LE(o) / 2 ** 31 - 1);
  }
  if (!normalize) return v;
  const norm = Math.hypot(...v) || 1;
  return v.map((x) => x / norm);
}

/**
 * The double's stand-in for tokens: whitespace-separated words, summed over the inputs.
 *
 * @example
 * fakeTokens(["Ο Α", "άρθρο 914 ΑΚ"]); // 5
 */
export function fakeTokens(inputs: string[]): number {
  return inputs.reduce((n, s) => n + s.split(/\s+/).filter(Boolean).length, 0);
}

interface Fault extends FaultExtra {
  kind: FaultKind;
  times: number;
}

const CONTENT_FAULTS: ReadonlySet<FaultKind> = new Set(["wrongCount", "wrongDims", "badValue", "reorder"]);

/** What a route answers: a status and a JSON-able body. */
type RouteResult = { status: number; json: unknown };
type RouteHandler = (
  body: Record<string, unknown>,
  ctx: { opts: Required<Omit<OpenAIDoubleOptions, "apiKey" | "port">>; fault?: Fault },
) => RouteResult | Promise<RouteResult>;

const apiError = (status: number, message: string, type = "invalid_request_error", code: string | null = null): RouteResult => ({
  status,
  json: { error: { message, type, param: null, code } },
});

const embeddings: RouteHandler = (body, { opts, fault }) => {
  const model = body.model;
  if (typeof model !== "string" || !model) return apiError(400, "you must provide a model parameter");
  const raw = body.input;
  const input = typeof raw === "string" ? [raw] : raw;
  if (!Array.isArray(input) || input.length === 0 || !input.every((s) => typeof s === "string")) {
    return apiError(400, "'input' must be a non-empty string or array of strings");
  }
  if (body.encoding_format !== undefined && body.encoding_format !== "float") {
    // Several local servers only speak float; the product must ask for it.
    return apiError(400, `encoding_format ${JSON.stringify(body.encoding_format)} not supported by this double`);
  }
  const asked = body.dimensions;
  if (asked !== undefined && !(typeof asked === "number" && Number.isInteger(asked) && asked > 0)) {
    return apiError(400, "'dimensions' must be a positive integer");
  }
  const dims = opts.honourDimensions && typeof asked === "number" ? asked : opts.dims;
  const texts = input as string[];

  let data: { object: "embedding"; index: number; embedding: (number | null | string)[] }[] = texts.map((t, index) => ({
    object: "embedding",
    index,
    embedding: fakeVector(model, t, fault?.kind === "wrongDims" ? (fault.dims ?? dims + 1) : dims, opts.normalize),
  }));
  switch (fault?.kind) {
    case "wrongCount": {
      const n = fault.count ?? texts.length - 1;
      while (data.length < n) data.push({ ...data[data.length % texts.length], index: data.length });
      data = data.slice(0, n);
      break;
    }
    case "badValue":
      data[0].embedding[0] = fault.value === undefined ? null : fault.value;
      break;
    case "reorder":
      data.reverse();
      break;
  }
  const tokens = fakeTokens(texts);
  const usage = opts.usage ? { usage: { prompt_tokens: tokens, total_tokens: tokens } } : {};
  return { status: 200, json: { object: "list", model, data, ...usage } };
};

/** Route name -> handler; paths are `/v1/<name>` and `/<name>`. Routes with state per double are added in `startOpenAIDouble`. */
const ROUTES: Record<string, RouteHandler> = { embeddings };

/** A chat request body checked the way servers check it; a string is the 400 message. */
function chatBody(body: Record<string, unknown>): ChatCompletionBody | string {
  if (typeof body.model !== "string" || !body.model) return "you must provide a model parameter";
  const messages = body.messages;
  if (!Array.isArray(messages) || messages.length === 0) return "'messages' must be a non-empty array";
  for (const m of messages) {
    if (!m || typeof m !== "object" || typeof (m as { role?: unknown }).role !== "string") return "each message needs a role";
  }
  if (body.stream === true) return "this double does not stream";
  return body as ChatCompletionBody;
}

/**
 * Starts the double. `close()` ends open connections and pending slow answers, so no test hangs.
 *
 * @example
 * const api = await startOpenAIDouble({ dims: 8 });
 * const e = openaiEmbedder({ model: "m", baseURL: `${api.url}/v1` });
 * api.fault("rateLimit", 1, { retryAfter: "0" });
 * await e.embed(["α"], "document");
 * api.count(); // 2: the 429 and its retry
 * await api.close();
 */
export async function startOpenAIDouble(options: OpenAIDoubleOptions = {}): Promise<OpenAIDouble> {
  const opts = {
    dims: options.dims ?? 8,
    normalize: options.normalize ?? true,
    delayMs: options.delayMs ?? 0,
    honourDimensions: options.honourDimensions ?? true,
    usage: options.usage ?? true,
  };
  const requests: RecordedRequest[] = [];
  let faults: Fault[] = [];
  let active = 0;
  let peak = 0;
  const timers = new Set<NodeJS.Timeout>();
  let chatQueue: ChatAnswer[] = [];
  let chatHandler: ChatHandler | undefined;
  let chatIndex = 0;

  const sleep = (ms: number) =>
    new Promise<void>((resolve) => {
      if (ms <= 0) return resolve();
      const t = setTimeout(() => {
        timers.delete(t);
        resolve();
      }, ms);
      timers.add(t);
    });

  const chatCompletions: RouteHandler = async (raw) => {
    const body = chatBody(raw);
    if (typeof body === "string") return apiError(400, body);
    const index = chatIndex++;
    const answer: ChatAnswer = chatQueue.length > 0 ? chatQueue.shift()! : chatHandler ? await chatHandler(body, index) : {};
    if (answer.delayMs) await sleep(answer.delayMs);
    if (answer.rawBody !== undefined) return { status: 200, json: answer.rawBody };
    if (answer.status !== undefined && answer.status >= 400) {
      return apiError(answer.status, answer.message ?? `scripted ${answer.status} error`, answer.status === 429 ? "rate_limit_error" : "server_error");
    }
    const content = answer.content === undefined ? echoChatContent(body) : answer.content;
    const promptWords = fakeTokens(body.messages.map((m) => (typeof m.content === "string" ? m.content : "")));
    const completionWords = fakeTokens([content ?? "", answer.reasoning ?? "", answer.reasoning_content ?? ""]);
    const usage =
      answer.usage === null
        ? undefined
        : (answer.usage ?? { prompt_tokens: promptWords, completion_tokens: completionWords, total_tokens: promptWords + completionWords });
    const message: Record<string, unknown> = { role: "assistant", content };
    if (answer.reasoning_content !== undefined) message.reasoning_content = answer.reasoning_content;
    if (answer.reasoning !== undefined) message.reasoning = answer.reasoning;
    return {
      status: 200,
      json: {
        id: `chatcmpl-${index}`,
        object: "chat.completion",
        created: 1_700_000_000,
        model: body.model,
        choices: [{ index: 0, message, logprobs: null, finish_reason: answer.finish_reason ?? "stop" }],
        ...(usage ? { usage } : {}),
      },
    };
  };
  const routes: Record<string, RouteHandler> = { ...ROUTES, "chat/completions": chatCompletions };

  /** The first queued fault this route may consume, used up once. */
  const takeFault = (route: string | undefined): Fault | undefined => {
    const i = faults.findIndex((f) => f.route === undefined || f.route === route);
    if (i < 0) return undefined;
    const f = faults[i];
    if (--f.times <= 0) faults.splice(i, 1);
    return { ...f };
  };

  const sendJson = (res: http.ServerResponse, status: number, json: unknown, headers: Record<string, string> = {}) => {
    if (res.destroyed || res.writableEnded) return; // the client gave up (timeout) meanwhile
    const buf = Buffer.from(JSON.stringify(json));
    res.writeHead(status, { "Content-Type": "application/json", "Content-Length": String(buf.length), ...headers });
    res.end(buf);
  };

  const routeOf = (path: string): string | undefined => {
    const name = path.replace(/^\/v1\//, "/").replace(/^\//, "").replace(/\/$/, "");
    return Object.prototype.hasOwnProperty.call(routes, name) ? name : undefined;
  };

  const handle = async (req: http.IncomingMessage, res: http.ServerResponse, raw: Buffer) => {
    const path = new URL(req.url ?? "/", "http://x").pathname;
    const route = routeOf(path);
    let body: Record<string, unknown> | undefined;
    try {
      const parsed: unknown = JSON.parse(raw.toString("utf8"));
      if (parsed && typeof parsed === "object" && !Array.isArray(parsed)) body = parsed as Record<string, unknown>;
    } catch {
      body = undefined;
    }
    requests.push({ method: req.method ?? "", path, route, authorization: req.headers.authorization, body });

    if (opts.delayMs > 0) await sleep(opts.delayMs);
    if (!route) return sendJson(res, 404, apiError(404, `no route ${req.method} ${path}`, "not_found").json);
    if (req.method !== "POST") return sendJson(res, 405, apiError(405, "method not allowed").json);
    if (options.apiKey !== undefined && req.headers.authorization !== `Bearer ${options.apiKey}`) {
      return sendJson(res, 401, apiError(401, "Incorrect API key provided", "invalid_request_error", "invalid_api_key").json);
    }

    let fault = takeFault(route);
    if (fault?.kind === "slow") {
      await sleep(fault.delayMs ?? 1000);
      fault = undefined;
    }
    switch (fault?.kind) {
      case "rateLimit":
      case "status": {
        const status = fault.kind === "rateLimit" ? 429 : (fault.status ?? 500);
        const headers: Record<string, string> = {};
        if (fault.kind === "rateLimit" || fault.retryAfter !== undefined) headers["Retry-After"] = fault.retryAfter ?? "0";
        if (fault.retryAfterMs !== undefined) headers["retry-after-ms"] = fault.retryAfterMs;
        const message = fault.message ?? (status === 429 ? "Rate limit reached, slow down" : `scripted ${status} error`);
        return sendJson(res, status, apiError(status, message, status === 429 ? "rate_limit_error" : "server_error").json, headers);
      }
      case "drop":
        req.socket.destroy();
        return;
      case "malformed": {
        const buf = Buffer.from('{"object": "list", "data": [');
        res.writeHead(200, { "Content-Type": "application/json", "Content-Length": String(buf.length) });
        res.end(buf);
        return;
      }
      case "drip": {
        res.writeHead(200, { "Content-Type": "application/json", "Content-Length": "1000000" });
        const every = fault.everyMs ?? 300;
        if (every > 0) {
          const t = setInterval(() => res.write(" "), every);
          timers.add(t);
          res.once("close", () => {
            clearInterval(t);
            timers.delete(t);
          });
        }
        return;
      }
      case "truncate": {
        const buf = Buffer.from(JSON.stringify({ object: "list", data: [] }));
        res.writeHead(200, { "Content-Type": "application/json", "Content-Length": String(buf.length + 64) });
        res.write(buf, () => req.socket.destroy());
        return;
      }
    }
    if (!body) return sendJson(res, 400, apiError(400, "body is not a JSON object").json);
    const out = await routes[route](body, { opts, fault: fault && CONTENT_FAULTS.has(fault.kind) ? fault : undefined });
    // The double identifies itself in every answer, so results made through it are marked as stand-ins.
    sendJson(res, out.status, out.status === 200 && out.json && typeof out.json === "object" && !Array.isArray(out.json) ? { ...(out.json as object), gbr_test_double: true } : out.json);
  };

  const server = http.createServer((req, res) => {
    active++;
    peak = Math.max(peak, active);
    // 'close' fires once whether the answer was sent, the socket dropped or the client aborted.
    res.once("close", () => active--);
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      handle(req, res, Buffer.concat(chunks)).catch((err: unknown) => {
        if (!res.headersSent) sendJson(res, 500, apiError(500, `double crashed: ${String(err)}`, "server_error").json);
      });
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject); // a fixed port already taken
    server.listen(options.port ?? 0, "127.0.0.1", () => {
      server.off("error", reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    count: (route) => (route === undefined ? requests.length : requests.filter((r) => r.route === route).length),
    fault(kind, times = 1, extra = {}) {
      if (!(Number.isInteger(times) && times >= 1)) throw new RangeError(`fault times must be a positive integer, got ${times}`);
      faults.push({ ...extra, kind, times });
    },
    inFlight: () => active,
    maxInFlight: () => peak,
    embeddingRequests: () =>
      requests
        .filter((r) => r.route === "embeddings" && r.body)
        .map((r) => {
          const b = r.body!;
          return {
            model: b.model as string,
            input: (typeof b.input === "string" ? [b.input] : b.input) as string[],
            ...(b.dimensions !== undefined ? { dimensions: b.dimensions as number } : {}),
            ...(b.encoding_format !== undefined ? { encoding_format: b.encoding_format as string } : {}),
          };
        }),
    queueChat(...answers) {
      chatQueue.push(...answers);
    },
    chat(handler) {
      chatHandler = handler;
    },
    chatRequests: () => requests.filter((r) => r.route === "chat/completions" && r.body).map((r) => r.body as ChatCompletionBody),
    reset() {
      requests.length = 0;
      faults = [];
      peak = active;
      chatQueue = [];
      chatHandler = undefined;
      chatIndex = 0;
    },
    async close() {
      for (const t of timers) clearTimeout(t);
      timers.clear();
      server.closeAllConnections();
      await new Promise<void>((resolve, reject) => server.close((err) => (err ? reject(err) : resolve())));
    },
  };
}
