/** The `openai` SDK as chat and embeddings use it: one client per server, our retries and deadline, failures keyless. */
import { inspect } from "node:util";
import { printable } from "../util/printable";
import type OpenAI from "openai";
import type { APIError } from "openai";
import { openaiSdk } from "../util/sdk";
import { deadlineFetch, deadlinePassed, describeCause, endpointOrigin, maskCredentials, redactSecrets } from "../util/http";
import { retryAfterMs, retryWithBackoff } from "../util/retry";
import { createSemaphore } from "../util/semaphore";
import { AdaptiveLimit, observingFetch } from "../util/adaptive-limit";

export interface OpenAIServerOptions {
  /** Up to and including the API version, e.g. "http://localhost:8000/v1". */
  baseURL: string;
  apiKey?: string;
  maxRetries?: number;
  timeoutMs?: number;
  concurrency?: number;
}

/** An SDK client of one server; `send` runs a call under the in-flight limit (adapted to 429/503), retried, `fail` at last. */
export function openaiServer(id: string, o: OpenAIServerOptions & { timeoutMs: number; concurrency: number }, fail: (message: string, status: number | undefined, cause: unknown) => Error) {
  const apiKey = o.apiKey || OPENAI_PLACEHOLDER_KEY;
  const maxRetries = o.maxRetries ?? 4;
  // The SDK validates `timeout` as a positive integer.
  const timeout = Math.max(1, Math.round(o.timeoutMs));
  const limit = createSemaphore(o.concurrency);
  const adaptive = new AdaptiveLimit(limit, o.concurrency);
  const client = new (openaiSdk().default)({
    apiKey,
    baseURL: o.baseURL,
    maxRetries: 0,
    timeout,
    fetch: observingFetch(adaptive, deadlineFetch(timeout)) as unknown as NonNullable<ConstructorParameters<typeof OpenAI>[0]>["fetch"],
  });
  // Without the query string, which proxies sometimes use for keys.
  const where = `${id} at ${maskCredentials(o.baseURL.split("?")[0]).replace(/\/$/, "")}`;
  const send = <T>(call: (client: OpenAI) => Promise<T>): Promise<{ response: T; seconds: number }> =>
    limit.run(async () => {
      const started = performance.now();
      try {
        const response = await retryWithBackoff(() => call(client), { attempts: maxRetries + 1, baseMs: 500, maxMs: 8000, classify: classifyOpenAIAttempt, maxWaitMs: timeout, label: where });
        return { response, seconds: (performance.now() - started) / 1000 };
      } catch (err) {
        const { message, status } = describeOpenAIError(err, { where, apiKey, timeoutMs: timeout, maxRetries });
        // An SDK error can carry the request headers: not kept as cause when it mentions the key.
        throw fail(message, status, errorMentionsKey(err, apiKey) ? undefined : err);
      }
    });
  return { send, where, endpoint: endpointOrigin(o.baseURL), limitState: () => adaptive.state(), capacity: o.concurrency };
}

/** The SDK insists on some key; never redacted, or "not-needed" in any text would become "[redacted]". */
const OPENAI_PLACEHOLDER_KEY = "not-needed";

/** Redacts the key, in case a server echoes it back; not the placeholder or keys under 4 characters. */
export function redactKey(text: string, apiKey: string): string {
  return isSecret(apiKey) ? redactSecrets(text, [apiKey]) : text;
}

function errorMentionsKey(err: unknown, apiKey: string): boolean {
  return isSecret(apiKey) && inspect(err, { depth: 6 }).includes(apiKey);
}

/** An SDK failure described for people, key redacted; retry counts only for what the SDK retries. */
function describeOpenAIError(
  err: unknown,
  o: { where: string; apiKey: string; timeoutMs: number; maxRetries: number },
): { message: string; status: number | undefined } {
  const attempts = `${o.maxRetries + 1} attempt${o.maxRetries === 0 ? "" : "s"}`;
  let status: number | undefined;
  let detail: string;
  const { APIConnectionError, APIConnectionTimeoutError, APIError: SdkAPIError } = openaiSdk();
  if (err instanceof APIConnectionTimeoutError || deadlinePassed(err)) {
    detail = `timed out after ${o.timeoutMs} ms per attempt (${attempts})`;
  } else if (err instanceof APIConnectionError) {
    const cause = (err as { cause?: unknown }).cause;
    detail = `connection failed (${attempts}): ${cause instanceof Error ? describeCause(cause) : err.message}`;
  } else if (err instanceof SdkAPIError && err.status !== undefined) {
    status = err.status;
    detail = `HTTP ${err.status}: ${serverMessage(err)}`;
    if ([408, 409, 429].includes(err.status) || err.status >= 500) detail += ` (after ${attempts})`;
  } else if (err instanceof SyntaxError) {
    detail = `answer is not valid JSON (${err.message})`;
  } else {
    // e.g. the connection dropped while the body was read ("terminated"): also past the retry loop.
    detail = `request failed: ${err instanceof Error ? describeCause(err) : String(err)}`;
  }
  return { message: redactKey(`${o.where}: ${detail}`, o.apiKey), status };
}

/** The retry verdict on one SDK attempt (ours, not the SDK's: its loop would sleep a Retry-After of days). */
function classifyOpenAIAttempt(err: unknown): { retry: boolean; afterMs?: number } {
  const { APIConnectionError, APIError: SdkAPIError, APIUserAbortError } = openaiSdk();
  // A user abort is an APIConnectionError too; we never abort, but it must not be retried.
  if (err instanceof APIUserAbortError) return { retry: false };
  if (err instanceof APIConnectionError) return { retry: true };
  if (err instanceof SdkAPIError && err.status !== undefined) {
    const retry = [408, 409, 429].includes(err.status) || err.status >= 500;
    const headers = err.headers as { get(name: string): string | null } | undefined;
    const ms = Number(headers?.get("retry-after-ms") ?? NaN);
    return { retry, afterMs: Number.isFinite(ms) && ms >= 0 ? ms : retryAfterMs(headers?.get("retry-after")) };
  }
  return { retry: deadlinePassed(err) || cutShort(err) };
}

/** An answer cut short after its headers; the SDK reads bodies after its own attempt, so the caller retries. */
function cutShort(err: unknown): boolean {
  const { APIError: SdkAPIError } = openaiSdk();
  if (!(err instanceof Error) || err instanceof SdkAPIError || err instanceof SyntaxError) return false;
  return /terminated|other side closed|ECONNRESET|UND_ERR_SOCKET|socket hang up/i.test(describeCause(err));
}

function isSecret(apiKey: string): boolean {
  return apiKey !== OPENAI_PLACEHOLDER_KEY && apiKey.length >= 4;
}

/** The server's message without the SDK's leading status (it is already in our text), its controls shown. */
function serverMessage(err: APIError): string {
  const body = err.error as { message?: unknown } | string | undefined;
  if (typeof body === "string" && body) return printable(body);
  if (body && typeof body === "object" && typeof body.message === "string" && body.message) return printable(body.message);
  return printable(err.message.replace(new RegExp(`^${err.status}\\s*`), "") || "(no message)");
}
