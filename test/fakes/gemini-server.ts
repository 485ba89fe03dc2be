/**
 * A local double of the Gemini API (the subset `@google/genai` speaks for embeddings), on
 * 127.0.0.1 with a random port. What the SDK 2.32 sends, as logged from the real client:
 *
 *   POST /v1beta/models/{model}:batchEmbedContents
 *     headers: x-goog-api-key, content-type: application/json, user-agent and x-goog-api-client
 *              "google-genai-sdk/2.32.0 gl-node/v20…", x-server-timeout (seconds, when a timeout is set)
 *     body: {"requests": [{"content": {"role": "user", "parts": [{"text": "…"}]},
 *                          "taskType"?, "outputDimensionality"?, "model": "models/{model}"}, …]}
 *     -> {"embeddings": [{"values": [...]}, …]}
 *   POST /v1beta/models/{model}:embedContent   (REST clients; the SDK never uses it for Gemini API)
 *     body: {"content": {...}, "taskType"?, "outputDimensionality"?} -> {"embedding": {"values": [...]}}
 *
 *   POST /v1beta/models/{model}:generateContent
 *     body: {"contents": [{"role": "user", "parts": [{"text": "…"}]}],
 *            "systemInstruction"?: {"role": "user", "parts": [{"text": "…"}]},
 *            "generationConfig"?: {"temperature", "topP", "maxOutputTokens", "seed", …}}
 *     -> {"candidates": [{"content": {"role": "model", "parts": [{"text"}, …]}, "finishReason", "index"}],
 *         "usageMetadata": {"promptTokenCount", "candidatesTokenCount", "thoughtsTokenCount"?, "totalTokenCount"},
 *         "modelVersion"}
 *     Answers are scripted: `queueGenerate(...)` answers the next requests in order,
 *     `generate(handler)` the rest; by default the double echoes (`echoGeminiText`).
 *
 * Vectors are a deterministic function of (model, taskType, text, size), so a test can compute
 * the expected vector with `fakeGeminiVector`. Routes live in a table keyed by the method after
 * the colon; `routes` (or `route()`) adds or replaces one without touching this file.
 */
import { createHash } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";

/** One request as the double saw it (the API key itself is never stored). */
export interface GeminiRequest {
  method: string;
  /** URL path, e.g. "/v1beta/models/gemini-embedding-001:batchEmbedContents". */
  path: string;
  /** Query parameters, with `key` removed. */
  query: Record<string, string>;
  /** API version from the path ("v1beta"). */
  version: string;
  /** Model from the path, without "models/". */
  model: string;
  /** Method after the colon ("batchEmbedContents"). */
  action: string;
  /** Lower-cased headers, minus x-goog-api-key. */
  headers: Record<string, string>;
  /** An API key came, in the x-goog-api-key header or the ?key= parameter. */
  keyPresent: boolean;
  /** The key equals `opts.apiKey` (true whenever the double was started without one). */
  keyMatches: boolean;
  /** Parsed JSON body (undefined when empty or not JSON). */
  body: any;
  /** Status the double answered with. */
  status: number;
  /** The fault that answered, if any. */
  fault?: FaultKind;
}

/** What a route answers. */
export interface RouteAnswer {
  status?: number;
  body: unknown;
  headers?: Record<string, string>;
}

/** Context a route handler gets; `fault` is the scripted data fault for this request, if any. */
export interface RouteContext {
  model: string;
  action: string;
  body: any;
  request: GeminiRequest;
  fault?: ActiveFault;
}

/** Serves one method (e.g. "batchEmbedContents", later "generateContent"). */
export type RouteHandler = (ctx: RouteContext) => RouteAnswer | Promise<RouteAnswer>;

/**
 * Scripted faults, each for the next `times` matching requests:
 * - "429": rate limited, with `Retry-After: extra.retryAfter` (default "0"); `extra.retryDelay`
 *   (e.g. "0s") also puts Google's RetryInfo in the body.
 * - "500": internal error (`extra.status` for another code, `extra.message` for the text).
 * - "slow": answers normally after `extra.delayMs` (default 1000).
 * - "drop": destroys the connection without an answer.
 * - "drip": 200 headers, then one byte every `extra.everyMs` (default 300) until the client goes.
 * - "wrong-count": one vector fewer than asked (`extra.delta` to change by another amount).
 * - "wrong-dims": vectors of `extra.dims` values (default the requested size + 1).
 */
export type FaultKind = "429" | "500" | "slow" | "drop" | "drip" | "wrong-count" | "wrong-dims";

export interface FaultExtra {
  retryAfter?: string;
  retryDelay?: string;
  status?: number;
  message?: string;
  delayMs?: number;
  everyMs?: number;
  delta?: number;
  dims?: number;
  /** Only requests to this method count (default: any). */
  action?: string;
}

export interface ActiveFault extends FaultExtra {
  kind: FaultKind;
  times: number;
}

/**
 * What the double answers to one generateContent request. Everything is optional: the default is
 * the echo answer with word-count usage.
 *
 * @example
 * gemini.queueGenerate(
 *   { thought: "**Thinking**", text: "μίσθωση", usageMetadata: { promptTokenCount: 700, candidatesTokenCount: 4, thoughtsTokenCount: 90 } },
 *   { parts: [], finishReason: "SAFETY" },
 * );
 */
export interface GenerateAnswer {
  /** The answer's text part (default: `echoGeminiText`). */
  text?: string;
  /** A thought-summary part sent before the text, marked `"thought": true`. */
  thought?: string;
  /** The candidate's parts exactly (overrides `text` and `thought`). */
  parts?: unknown[];
  /** `usageMetadata` (default: word counts; thoughts counted as thoughtsTokenCount); null leaves it out. */
  usageMetadata?: Record<string, number> | null;
  /** `finishReason` (default "STOP"). */
  finishReason?: string;
  /** Wait this long before answering (to hold the request in flight). */
  delayMs?: number;
  /** Answer with this error status (and `message`) instead. */
  status?: number;
  message?: string;
  /** Answer exactly this JSON body (status 200), ignoring the fields above except `delayMs`. */
  rawBody?: unknown;
}

/**
 * Chooses the answer to one generateContent request (`index` counts them from 0).
 *
 * @example
 * gemini.generate(({ body }) => ({ text: body.generationConfig?.temperature === 0.2 ? "paper" : "other", delayMs: 50 }));
 */
export type GenerateHandler = (ctx: RouteContext, index: number) => GenerateAnswer | Promise<GenerateAnswer>;

/**
 * The double's default generateContent answer: the model and the user's text, so a test can tell
 * which request an answer belongs to.
 *
 * @example
 * echoGeminiText("gemini-2.5-flash", "Ερώτηση"); // "echo(gemini-2.5-flash): Ερώτηση"
 */
export function echoGeminiText(model: string, userText: string): string {
  return `echo(${model}): ${userText}`;
}

export interface GeminiDoubleOptions {
  /** The key every request must carry; without it any key (or none) is accepted. */
  apiKey?: string;
  /** Size when the request gives no `outputDimensionality` (default 8). */
  defaultDims?: number;
  /** Add `usageMetadata` (whitespace-word counts) to embedding answers (default false). */
  usage?: boolean;
  /** Extra or replacement routes, by method name. */
  routes?: Record<string, RouteHandler>;
}

export interface GeminiDouble {
  /** Base URL for `httpOptions.baseUrl` / GBR_GEMINI_BASE_URL. */
  url: string;
  /** Every request, in arrival order. */
  requests: GeminiRequest[];
  /** Requests so far, all or for one method ("batchEmbedContents"). */
  count(action?: string): number;
  /** Most requests the double was answering at one moment (proves client-side concurrency caps). */
  peakInFlight(): number;
  /** Scripts a fault for the next `times` requests (queued behind earlier faults). */
  fault(kind: FaultKind, times: number, extra?: FaultExtra): void;
  /** Adds or replaces a route. */
  route(action: string, handler: RouteHandler): void;
  /** Answers the next generateContent requests, one each, in order (before the handler is asked). */
  queueGenerate(...answers: GenerateAnswer[]): void;
  /** Answers generateContent requests that the queue does not; no argument restores the echo. */
  generate(handler?: GenerateHandler): void;
  close(): Promise<void>;
}

/**
 * The double's vector for one text: deterministic in (model, taskType, text), values in
 * [-1, 1), `dims` long. Tests use it to check order and task types.
 *
 * @example
 * fakeGeminiVector("gemini-embedding-001", "RETRIEVAL_QUERY", "α", 4); // [0.12, -0.87, …]
 */
export function fakeGeminiVector(model: string, taskType: string | undefined, text: string, dims: number): number[] {
  const seed = JSON.stringify([model.replace(/^models\//, ""), taskType ?? "", text]);
  const out: number[] = [];
  for (let block = 0; out.length < dims; block++) {
    const h = createHash("sha256").update(`${block}\0${seed}`).digest();
    for (let i = 0; i + 4 <= h.length && out.length < dims; i += 4) out.push(h.readUInt32BE(i) / 2 ** 31 - 1);
  }
  return out;
}

const textOf = (content: any): string =>
  Array.isArray(content?.parts) ? content.parts.map((p: any) => (typeof p?.text === "string" ? p.text : "")).join("") : "";

const words = (s: string) => s.split(/\s+/).filter(Boolean).length;

const googleError = (code: number, status: string, message: string, details?: unknown[]) => ({
  error: { code, message, status, ...(details ? { details } : {}) },
});

/**
 * Starts the double.
 *
 * @example
 * const gemini = await startGeminiDouble({ apiKey: "test-key" });
 * const ai = new GoogleGenAI({ apiKey: "test-key", httpOptions: { baseUrl: gemini.url } });
 * await ai.models.embedContent({ model: "gemini-embedding-001", contents: ["α"] });
 * gemini.count("batchEmbedContents"); // 1
 * gemini.fault("429", 2, { retryAfter: "0" });
 * await gemini.close();
 */
export async function startGeminiDouble(opts: GeminiDoubleOptions = {}): Promise<GeminiDouble> {
  const defaultDims = opts.defaultDims ?? 8;
  const requests: GeminiRequest[] = [];
  const faults: ActiveFault[] = [];
  const timers = new Set<NodeJS.Timeout>();
  let inFlight = 0;
  let peak = 0;

  const embedOne = (model: string, r: any, fault: ActiveFault | undefined) => {
    const dims = fault?.kind === "wrong-dims" ? (fault.dims ?? (r?.outputDimensionality ?? defaultDims) + 1) : (r?.outputDimensionality ?? defaultDims);
    return fakeGeminiVector(model, r?.taskType, textOf(r?.content), dims);
  };
  const usage = (texts: string[]) => {
    const n = texts.reduce((s, t) => s + words(t), 0);
    return opts.usage ? { usageMetadata: { promptTokenCount: n, totalTokenCount: n } } : {};
  };

  const routes = new Map<string, RouteHandler>([
    [
      "batchEmbedContents",
      ({ model, body, fault }) => {
        const reqs: any[] = Array.isArray(body?.requests) ? body.requests : [];
        if (reqs.length === 0) return { status: 400, body: googleError(400, "INVALID_ARGUMENT", "* BatchEmbedContentsRequest.requests: contents is not specified") };
        if (reqs.length > 100) return { status: 400, body: googleError(400, "INVALID_ARGUMENT", "* BatchEmbedContentsRequest.requests: at most 100 requests can be in one batch") };
        let embeddings = reqs.map((r) => ({ values: embedOne(model, r, fault) }));
        if (fault?.kind === "wrong-count") {
          const n = Math.max(0, embeddings.length + (fault.delta ?? -1));
          embeddings = n <= embeddings.length ? embeddings.slice(0, n) : [...embeddings, ...embeddings.slice(0, n - embeddings.length)];
        }
        return { body: { embeddings, ...usage(reqs.map((r) => textOf(r?.content))) } };
      },
    ],
    [
      "embedContent",
      ({ model, body, fault }) => {
        if (!body?.content) return { status: 400, body: googleError(400, "INVALID_ARGUMENT", "* EmbedContentRequest.content: contents is not specified") };
        return { body: { embedding: { values: embedOne(model, body, fault) }, ...usage([textOf(body.content)]) } };
      },
    ],
  ]);
  const generateQueue: GenerateAnswer[] = [];
  let generateHandler: GenerateHandler | undefined;
  let generateIndex = 0;
  const sleep = (ms: number) =>
    new Promise<void>((resolve) => {
      const t = setTimeout(() => {
        timers.delete(t);
        resolve();
      }, ms);
      timers.add(t);
    });
  routes.set("generateContent", async (ctx) => {
    const { model, body } = ctx;
    const contents: any[] = Array.isArray(body?.contents) ? body.contents : [];
    if (contents.length === 0) return { status: 400, body: googleError(400, "INVALID_ARGUMENT", "* GenerateContentRequest.contents: contents is not specified") };
    if (body?.systemInstruction !== undefined && !textOf(body.systemInstruction)) {
      return { status: 400, body: googleError(400, "INVALID_ARGUMENT", "* GenerateContentRequest.system_instruction: parts is not specified") };
    }
    const index = generateIndex++;
    const answer: GenerateAnswer = generateQueue.length > 0 ? generateQueue.shift()! : generateHandler ? await generateHandler(ctx, index) : {};
    if (answer.delayMs) await sleep(answer.delayMs);
    if (answer.rawBody !== undefined) return { body: answer.rawBody };
    if (answer.status !== undefined && answer.status >= 400) {
      return { status: answer.status, body: googleError(answer.status, answer.status === 429 ? "RESOURCE_EXHAUSTED" : "INTERNAL", answer.message ?? `scripted ${answer.status} error`) };
    }
    const userText = contents.filter((c) => c?.role !== "model").map(textOf).join("\n");
    const text = answer.text ?? echoGeminiText(model, userText);
    const parts = answer.parts ?? [...(answer.thought !== undefined ? [{ text: answer.thought, thought: true }] : []), { text }];
    const prompt = words(textOf(body.systemInstruction)) + contents.reduce((n, c) => n + words(textOf(c)), 0);
    const thoughts = answer.thought !== undefined ? words(answer.thought) : 0;
    const usageMetadata =
      answer.usageMetadata === null
        ? undefined
        : (answer.usageMetadata ?? {
            promptTokenCount: prompt,
            candidatesTokenCount: words(text),
            ...(thoughts ? { thoughtsTokenCount: thoughts } : {}),
            totalTokenCount: prompt + words(text) + thoughts,
          });
    return {
      body: {
        candidates: [{ content: { role: "model", parts }, finishReason: answer.finishReason ?? "STOP", index: 0 }],
        ...(usageMetadata ? { usageMetadata } : {}),
        modelVersion: model,
        responseId: `resp-${index}`,
      },
    };
  });
  for (const [action, handler] of Object.entries(opts.routes ?? {})) routes.set(action, handler);

  const takeFault = (action: string): ActiveFault | undefined => {
    const i = faults.findIndex((f) => !f.action || f.action === action);
    if (i < 0) return undefined;
    const f = faults[i];
    if (--f.times <= 0) faults.splice(i, 1);
    return { ...f };
  };

  const send = (res: http.ServerResponse, rec: GeminiRequest, a: RouteAnswer) => {
    rec.status = a.status ?? 200;
    // The double identifies itself in every answer, so results made through it are marked as stand-ins.
    const body = rec.status === 200 && a.body && typeof a.body === "object" && !Array.isArray(a.body) ? { ...(a.body as object), gbrTestDouble: true } : a.body;
    const buf = Buffer.from(JSON.stringify(body));
    res.writeHead(rec.status, { "Content-Type": "application/json; charset=UTF-8", "Content-Length": String(buf.length), ...(a.headers ?? {}) });
    res.end(buf);
  };

  const handle = async (req: http.IncomingMessage, res: http.ServerResponse, raw: string) => {
    const url = new URL(req.url ?? "/", "http://x");
    const headerKey = req.headers["x-goog-api-key"];
    const key = (Array.isArray(headerKey) ? headerKey[0] : headerKey) ?? url.searchParams.get("key") ?? undefined;
    url.searchParams.delete("key");
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(req.headers)) if (k !== "x-goog-api-key" && v !== undefined) headers[k] = Array.isArray(v) ? v.join(", ") : v;
    let body: any;
    try {
      body = raw ? JSON.parse(raw) : undefined;
    } catch {
      body = undefined;
    }
    // /{version}/models/{model}:{action}; the model may itself contain dots and dashes.
    const m = /^\/([^/]+)\/models\/([^/:]+):([A-Za-z]+)$/.exec(url.pathname);
    const rec: GeminiRequest = {
      method: req.method ?? "",
      path: url.pathname,
      query: Object.fromEntries(url.searchParams),
      version: m?.[1] ?? "",
      model: m ? decodeURIComponent(m[2]) : "",
      action: m?.[3] ?? "",
      headers,
      keyPresent: key !== undefined,
      keyMatches: opts.apiKey === undefined || key === opts.apiKey,
      body,
      status: 0,
    };
    requests.push(rec);

    const handler = m ? routes.get(rec.action) : undefined;
    if (req.method !== "POST" || !handler) {
      return send(res, rec, { status: 404, body: googleError(404, "NOT_FOUND", `no route for ${req.method} ${url.pathname}`) });
    }
    // Google's answers: no key -> 403 PERMISSION_DENIED; a wrong key -> 400 INVALID_ARGUMENT.
    if (opts.apiKey !== undefined && !rec.keyPresent) {
      return send(res, rec, { status: 403, body: googleError(403, "PERMISSION_DENIED", "Method doesn't allow unregistered callers (callers without established identity). Please use API Key or other form of API consumer identity to call this API.") });
    }
    if (!rec.keyMatches) {
      return send(res, rec, { status: 400, body: googleError(400, "INVALID_ARGUMENT", "API key not valid. Please pass a valid API key.") });
    }
    if (raw && body === undefined) {
      return send(res, rec, { status: 400, body: googleError(400, "INVALID_ARGUMENT", "Invalid JSON payload received.") });
    }

    const fault = takeFault(rec.action);
    if (fault) rec.fault = fault.kind;
    switch (fault?.kind) {
      case "429":
        return send(res, rec, {
          status: 429,
          headers: { "Retry-After": fault.retryAfter ?? "0" },
          body: googleError(
            429,
            "RESOURCE_EXHAUSTED",
            fault.message ?? "Resource has been exhausted (e.g. check quota).",
            fault.retryDelay ? [{ "@type": "type.googleapis.com/google.rpc.RetryInfo", retryDelay: fault.retryDelay }] : undefined,
          ),
        });
      case "500": {
        const status = fault.status ?? 500;
        return send(res, rec, {
          status,
          body: googleError(status, status === 503 ? "UNAVAILABLE" : "INTERNAL", fault.message ?? "An internal error has occurred. Please retry or report in https://developers.generativeai.google/guide/troubleshooting"),
        });
      }
      case "drop":
        rec.status = -1;
        req.socket.destroy();
        return;
      case "drip": {
        rec.status = 200;
        res.writeHead(200, { "Content-Type": "application/json", "Content-Length": "1000000" });
        const t = setInterval(() => res.write(" "), fault.everyMs ?? 300);
        timers.add(t);
        res.once("close", () => {
          clearInterval(t);
          timers.delete(t);
        });
        return;
      }
      case "slow":
        await new Promise<void>((resolve) => {
          const t = setTimeout(() => {
            timers.delete(t);
            resolve();
          }, fault.delayMs ?? 1000);
          timers.add(t);
        });
        if (res.destroyed || req.socket.destroyed) {
          rec.status = -1;
          return;
        }
        break;
    }
    let answer: RouteAnswer;
    try {
      answer = await handler({ model: rec.model, action: rec.action, body, request: rec, fault });
    } catch (err) {
      answer = { status: 500, body: googleError(500, "INTERNAL", `double route failed: ${(err as Error).message}`) };
    }
    if (!res.destroyed) send(res, rec, answer);
  };

  const server = http.createServer((req, res) => {
    peak = Math.max(peak, ++inFlight);
    let done = false;
    const finish = () => {
      if (!done) inFlight--;
      done = true;
    };
    res.on("close", finish);
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      handle(req, res, Buffer.concat(chunks).toString("utf8")).catch((err) => {
        if (!res.headersSent) res.writeHead(500, { "Content-Type": "text/plain" });
        res.end(String(err));
      });
    });
  });

  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    peakInFlight: () => peak,
    count: (action) => (action === undefined ? requests.length : requests.filter((r) => r.action === action).length),
    fault: (kind, times, extra = {}) => {
      if (times > 0) faults.push({ ...extra, kind, times });
    },
    route: (action, handler) => routes.set(action, handler),
    queueGenerate: (...answers) => {
      generateQueue.push(...answers);
    },
    generate: (handler) => {
      generateHandler = handler;
    },
    close: () =>
      new Promise<void>((resolve, reject) => {
        for (const t of timers) clearTimeout(t);
        timers.clear();
        server.close((err) => (err ? reject(err) : resolve()));
        server.closeAllConnections();
      }),
  };
}
