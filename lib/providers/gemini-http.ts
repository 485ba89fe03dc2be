/**
 * HTTP plumbing for calling the Gemini API through `@google/genai`, shared by the Gemini chat
 * model and the Gemini embedder.
 *
 * Why it exists: the SDK, given no `retryOptions`, makes one attempt and throws an ApiError that
 * keeps the status and the body but drops the response headers, so a `Retry-After` never
 * reaches the caller. Passing our own `fetch` (per call, so safe under concurrency) lets us read
 * the headers before the SDK sees the response. Doing so also drops the SDK's own undici
 * dispatcher, which turns off Node's 300 s header/body timeouts; `longRequestDispatcher`
 * (lib/util/http.ts) puts that back, which matters for reasoning models that think for minutes
 * before the first byte.
 */
import type { GoogleGenAI } from "@google/genai";
import { genaiSdk } from "../util/sdk";
import { retryAfterMs } from "../util/retry";
import { GbrError } from "../util/errors";
import { checkedBaseUrl } from "../util/http";
import type { Config } from "../config";

/**
 * Where the Gemini API is served when no base URL is configured (what runs record as its endpoint).
 */
export const GEMINI_API_ORIGIN = "https://generativelanguage.googleapis.com";

/**
 * Status codes worth another attempt: the server is busy or briefly broken, not refusing the
 * request (400 bad argument, 403 bad key, 404 unknown model are final).
 */
export const GEMINI_RETRYABLE_STATUS: ReadonlySet<number> = new Set([408, 429, 500, 502, 503, 504]);

/**
 * One failed attempt, already described for people (key-free) and classified for the retry loop
 * of `retryWithBackoff`.
 */
export class GeminiAttemptFailure extends GbrError {
  constructor(
    message: string,
    /** HTTP status, when the server answered at all. */
    readonly status: number | undefined,
    /** Whether another attempt may succeed. */
    readonly retryable: boolean,
    /** The wait the server asked for (Retry-After header, else Google's RetryInfo), in ms. */
    readonly retryAfterMs: number | undefined,
  ) {
    super(message, "GEMINI_ATTEMPT");
    this.name = "GeminiAttemptFailure";
  }
}

/**
 * The `retryWithBackoff` verdict on one attempt: a GeminiAttemptFailure says itself whether to
 * retry and how long the server asked us to wait; anything else is a bug, not a hiccup.
 */
export function classifyGeminiAttempt(err: unknown): { retry: boolean; afterMs?: number } {
  return err instanceof GeminiAttemptFailure ? { retry: err.retryable, afterMs: err.retryAfterMs } : { retry: false };
}

/**
 * A Gemini API client that makes exactly one attempt per call, so the caller owns the retry
 * policy (the SDK's own retries would ignore Retry-After).
 */
export function geminiClient(o: { apiKey: string; baseUrl?: string; timeoutMs: number }): GoogleGenAI {
  return new (genaiSdk().GoogleGenAI)({
    apiKey: o.apiKey,
    // Explicit, so GOOGLE_GENAI_USE_VERTEXAI in the environment cannot reroute us to Vertex AI,
    // whose paths, payloads and auth differ.
    vertexai: false,
    // No retryOptions: the SDK then makes exactly one attempt and we own the retry policy.
    httpOptions: { ...(o.baseUrl ? { baseUrl: o.baseUrl } : {}), timeout: o.timeoutMs },
  });
}

/**
 * A `fetch` for one SDK call, and what it saw of the answer.
 */
export interface ObservedFetch {
  /** Pass as `config.httpOptions.fetch` of exactly one SDK call. */
  fetch: (input: Parameters<typeof fetch>[0], init?: Parameters<typeof fetch>[1]) => Promise<Response>;
  /** The wait the last answer's `Retry-After` asked for, in ms (undefined when absent). */
  retryAfterMs(): number | undefined;
  /**
   * The JSON body of the last successful answer (read from a clone), for fields the SDK drops
   * (e.g. `usageMetadata` of embedding calls); undefined unless `readBody` was set.
   */
  body(): Promise<unknown> | undefined;
}

/**
 * A fetch wrapper that remembers the `Retry-After` header (and optionally the body) of the
 * answer. Create one per SDK call: the state is that call's alone.
 */
export function observeGeminiFetch(o: { dispatcher?: object; readBody?: boolean } = {}): ObservedFetch {
  let wait: number | undefined;
  let body: Promise<unknown> | undefined;
  return {
    async fetch(input, init) {
      // Our dispatcher only when the caller did not bring one of its own.
      const withDispatcher =
        o.dispatcher && !(init && "dispatcher" in init) ? ({ ...init, dispatcher: o.dispatcher } as RequestInit) : init;
      const res = await fetch(input, withDispatcher);
      wait = retryAfterMs(res.headers.get("retry-after"));
      if (o.readBody && res.ok) body = res.clone().json().catch(() => undefined);
      return res;
    },
    retryAfterMs: () => wait,
    body: () => body,
  };
}

/**
 * Turns whatever the SDK threw into a GeminiAttemptFailure. The SDK's ApiError carries the status
 * and, as its message, the JSON error body `{"error": {"code", "message", "status", "details"}}`;
 * time-outs surface as AbortError, refused or dropped connections as TypeError "fetch failed".
 */
export function describeGeminiFailure(
  err: unknown,
  o: { retryAfterHeaderMs?: number; timeoutMs: number; where: string; redact: (s: string) => string },
): GeminiAttemptFailure {
  if (err instanceof GeminiAttemptFailure) return err;
  const e = err as { name?: string; message?: string; status?: unknown; cause?: unknown } | undefined;
  const message = String(e?.message ?? err);
  if (typeof e?.status === "number") {
    const status = e.status;
    const body = parseGoogleError(message);
    const text = body.message ?? message.slice(0, 500);
    const label = body.status ? ` ${body.status}` : "";
    // Google states the wait in the body (RetryInfo) more often than in a header; take either.
    const afterMs = o.retryAfterHeaderMs ?? body.retryDelayMs;
    return new GeminiAttemptFailure(o.redact(`HTTP ${status}${label}: ${text}`), status, GEMINI_RETRYABLE_STATUS.has(status), afterMs);
  }
  if (e?.name === "AbortError" || e?.name === "TimeoutError") {
    return new GeminiAttemptFailure(`no complete answer from ${o.where} within ${o.timeoutMs} ms`, undefined, true, undefined);
  }
  if (e?.name === "SyntaxError") {
    // A 200 whose body is not JSON: usually a cut connection or a proxy page, worth another try.
    return new GeminiAttemptFailure(o.redact(`unreadable answer from ${o.where}: ${message}`), undefined, true, undefined);
  }
  // fetch() reports refused or dropped connections as "fetch failed" with the reason in cause.
  const cause = e?.cause as { code?: string; message?: string } | undefined;
  const reason = cause ? ` (${cause.code ?? cause.message ?? String(cause)})` : "";
  return new GeminiAttemptFailure(o.redact(`cannot reach ${o.where}: ${message}${reason}`), undefined, e?.name === "TypeError", undefined);
}

/**
 * The fields we use from a Google API error body; tolerant of non-JSON bodies.
 */
export function parseGoogleError(text: string): { message?: string; status?: string; retryDelayMs?: number } {
  try {
    const body = JSON.parse(text) as { error?: { message?: unknown; status?: unknown; details?: unknown } };
    const error = body?.error;
    if (!error || typeof error !== "object") return {};
    const details = Array.isArray(error.details) ? (error.details as { retryDelay?: unknown }[]) : [];
    const delay = details.map((d) => d?.retryDelay).find((d): d is string => typeof d === "string");
    const m = delay ? /^(\d+(?:\.\d+)?)s$/.exec(delay) : null;
    return {
      message: typeof error.message === "string" ? error.message : undefined,
      status: typeof error.status === "string" ? error.status : undefined,
      retryDelayMs: m ? Math.round(Number(m[1]) * 1000) : undefined,
    };
  } catch {
    return {};
  }
}

/**
 * Re-exported from lib/util/http.ts, where it now lives (it serves the OpenAI SDK too), for the
 * callers that still import it from here.
 */
export { longRequestDispatcher } from "../util/http";

/**
 * What a configuration says of the Gemini endpoint, for the chat model and the embedder alike:
 * `GBR_GEMINI_BASE_URL` (credentials in it refused) and the deadline of `GBR_REQUEST_TIMEOUT_S`.
 */
export function geminiEndpoint(config: Config): { baseUrl: string | undefined; timeoutMs?: number } {
  const { baseUrl, timeoutS } = config.gemini;
  return {
    baseUrl: baseUrl ? checkedBaseUrl("GBR_GEMINI_BASE_URL", baseUrl, "GEMINI_API_KEY") : undefined,
    ...(timeoutS === undefined ? {} : { timeoutMs: Math.round(timeoutS * 1000) }),
  };
}
