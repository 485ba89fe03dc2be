/** Gemini HTTP plumbing: our own per-call `fetch` reads `Retry-After`, which the SDK's ApiError drops. */
import type { GoogleGenAI } from "@google/genai";
import { genaiSdk } from "../util/sdk";
import { printable } from "../util/printable";
import { retryAfterMs, retryWithBackoff } from "../util/retry";
import { GbrError } from "../util/errors";
import { deadlineFetch, deadlinePassed, endpointOrigin, redactSecrets } from "../util/http";
import { createSemaphore } from "../util/semaphore";
import type { Config } from "../config";

export const NEED_KEY =
  "an API key is needed: set GEMINI_API_KEY (or GOOGLE_API_KEY) to a key from https://aistudio.google.com/apikey; " +
  "set GBR_GEMINI_BASE_URL to use another endpoint.";

/** Busy or briefly broken, not refusing the request (400, 403, 404 are final). */
const GEMINI_RETRYABLE_STATUS: ReadonlySet<number> = new Set([408, 429, 500, 502, 503, 504]);

/** One failed attempt, described key-free, for `retryWithBackoff`. */
export class GeminiAttemptFailure extends GbrError {
  constructor(
    message: string,
    readonly status: number | undefined,
    readonly retryable: boolean,
    /** The wait the server asked for (Retry-After header, else Google's RetryInfo), in ms. */
    readonly retryAfterMs: number | undefined,
  ) {
    super(message, "GEMINI_ATTEMPT");
    this.name = "GeminiAttemptFailure";
  }
}

export interface GeminiServerOptions {
  apiKey: string;
  baseUrl?: string;
  attempts?: number;
  timeoutMs?: number;
  concurrency?: number;
  retryBaseMs?: number;
  retryMaxMs?: number;
}

/** The Gemini API of one model client; `send` runs one SDK call under the in-flight limit (held across backoff), retried. */
export function geminiServer(id: string, o: GeminiServerOptions & { timeoutMs: number; concurrency: number }) {
  const { apiKey, timeoutMs, concurrency } = o;
  const attempts = o.attempts ?? 5;
  const baseUrl = o.baseUrl?.trim().replace(/\/+$/, "") || undefined;
  const where = baseUrl ?? "the Gemini API";
  // Scrub the key from anything we show: a proxy or a misbehaving server may echo it back.
  const redact = (s: string) => redactSecrets(s, [apiKey]);
  const ai = geminiClient({ apiKey, baseUrl, timeoutMs });
  const limit = createSemaphore(concurrency);
  const classify = (e: unknown) =>
    e instanceof GeminiAttemptFailure ? { retry: e.retryable, afterMs: e.retryAfterMs } : { retry: false };
  const retry = { attempts, baseMs: o.retryBaseMs ?? 1000, maxMs: o.retryMaxMs ?? 60_000, classify, maxWaitMs: timeoutMs, label: `${id} at ${where}` };
  const send = <T>(call: (fetch: GeminiFetch) => Promise<T>, fail: (err: unknown, made: number) => Error) =>
    limit.run(async () => {
      const started = performance.now();
      let made = 0;
      try {
        const { value, body } = await retryWithBackoff(async (attempt) => {
          made = attempt;
          const seen = observeGeminiFetch(timeoutMs);
          try {
            return { value: await call(seen.fetch), body: await seen.body() };
          } catch (err) {
            throw describeGeminiFailure(err, { retryAfterHeaderMs: seen.retryAfterMs(), timeoutMs, where, redact });
          }
        }, retry);
        return { value, body, made, seconds: (performance.now() - started) / 1000 };
      } catch (err) {
        throw fail(err, made);
      }
    });
  const endpoint = endpointOrigin(baseUrl ?? "https://generativelanguage.googleapis.com");
  return { ai, send, redact, where, capacity: concurrency, endpoint };
}

export const attemptsMade = (made: number) => `${made} attempt${made === 1 ? "" : "s"}`;

/** A client making exactly one attempt per call (no retryOptions): the SDK's retries would ignore Retry-After. */
function geminiClient(o: { apiKey: string; baseUrl?: string; timeoutMs: number }): GoogleGenAI {
  return new (genaiSdk().GoogleGenAI)({
    apiKey: o.apiKey,
    // So GOOGLE_GENAI_USE_VERTEXAI cannot reroute us to Vertex AI (other paths, payloads and auth).
    vertexai: false,
    httpOptions: { ...(o.baseUrl ? { baseUrl: o.baseUrl } : {}), timeout: o.timeoutMs },
  });
}

type GeminiFetch = (input: Parameters<typeof fetch>[0], init?: Parameters<typeof fetch>[1]) => Promise<Response>;

/** A `fetch` for one SDK call (deadline `timeoutMs`, body included), and the Retry-After and JSON body it saw. */
function observeGeminiFetch(timeoutMs: number) {
  let wait: number | undefined;
  let body: Promise<unknown> | undefined;
  const timed = deadlineFetch(timeoutMs);
  return {
    fetch: (async (input, init) => {
      const res = await timed(input, init);
      wait = retryAfterMs(res.headers.get("retry-after"));
      if (res.ok) body = res.clone().json().catch(() => undefined);
      return res;
    }) as GeminiFetch,
    retryAfterMs: () => wait,
    body: () => body,
  };
}

/** Whatever the SDK threw as a GeminiAttemptFailure; an ApiError's message is Google's JSON error body. */
function describeGeminiFailure(
  err: unknown,
  o: { retryAfterHeaderMs?: number; timeoutMs: number; where: string; redact: (s: string) => string },
): GeminiAttemptFailure {
  if (err instanceof GeminiAttemptFailure) return err;
  const e = err as { name?: string; message?: string; status?: unknown; cause?: unknown } | undefined;
  const message = String(e?.message ?? err);
  if (typeof e?.status === "number") {
    const status = e.status;
    const body = parseGoogleError(message);
    const text = printable(body.message ?? message.slice(0, 500));
    const label = body.status ? ` ${body.status}` : "";
    // Google states the wait in the body (RetryInfo) more often than in a header.
    const afterMs = o.retryAfterHeaderMs ?? body.retryDelayMs;
    return new GeminiAttemptFailure(o.redact(`HTTP ${status}${label}: ${text}`), status, GEMINI_RETRYABLE_STATUS.has(status), afterMs);
  }
  if (e?.name === "AbortError" || deadlinePassed(err)) {
    return new GeminiAttemptFailure(`no complete answer from ${o.where} within ${o.timeoutMs} ms`, undefined, true, undefined);
  }
  if (e?.name === "SyntaxError") {
    // A 200 whose body is not JSON: usually a cut connection or a proxy page, worth another try.
    return new GeminiAttemptFailure(o.redact(`unreadable answer from ${o.where}: ${printable(message)}`), undefined, true, undefined);
  }
  // Refused or dropped connections: TypeError "fetch failed", the reason in cause.
  const cause = e?.cause as { code?: string; message?: string } | undefined;
  const reason = cause ? ` (${cause.code ?? cause.message ?? String(cause)})` : "";
  return new GeminiAttemptFailure(o.redact(`cannot reach ${o.where}: ${printable(message + reason)}`), undefined, e?.name === "TypeError", undefined);
}

/** The fields we use from a Google API error body; tolerant of non-JSON bodies. */
function parseGoogleError(text: string): { message?: string; status?: string; retryDelayMs?: number } {
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

/** `GBR_GEMINI_BASE_URL` (checked by readConfig) and the `GBR_REQUEST_TIMEOUT_S` deadline. */
export function geminiEndpoint(config: Config): { baseUrl: string | undefined; timeoutMs?: number } {
  const { baseUrl, timeoutS } = config.gemini;
  return { baseUrl, ...(timeoutS === undefined ? {} : { timeoutMs: Math.round(timeoutS * 1000) }) };
}
