/**
 * What every client of the official `openai` SDK (the OpenAI-compatible embedder and chat model)
 * says when a call fails: the HTTP status and the server's own message when there was an answer,
 * the kind of connection failure otherwise, and never the key. Kept in one place so both report a
 * failure alike and a fix to the redaction reaches both.
 */
import { inspect } from "node:util";
import type { APIError } from "openai";
import { openaiSdk } from "../util/sdk";
import { describeCause } from "../util/http";

/**
 * The key local servers get: the SDK insists on some string, and most local servers ignore it.
 * Never redacted, since it is no secret and would otherwise turn "not-needed" in any text into
 * "[redacted]".
 */
export const OPENAI_PLACEHOLDER_KEY = "not-needed";

/**
 * The base URL without credentials or query (proxies sometimes carry keys there), for messages.
 */
export function safeBaseURL(url: string): string {
  try {
    const u = new URL(url);
    u.username = "";
    u.password = "";
    u.search = "";
    u.hash = "";
    return u.toString().replace(/\/$/, "");
  } catch {
    return "(invalid base URL)";
  }
}

/**
 * `text` with every occurrence of the key replaced by "[redacted]", in case a server echoes the
 * Authorization header back. The placeholder and keys under four characters are left alone:
 * redacting them would mangle ordinary text and protect nothing.
 */
export function redactKey(text: string, apiKey: string): string {
  if (!isSecret(apiKey)) return text;
  return text.split(apiKey).join("[redacted]");
}

/**
 * Whether the key appears anywhere in the error as `inspect` would print it (nested causes,
 * request options, headers), so a caller can leave the error out as `cause` rather than leak the
 * key that its message redacts.
 */
export function errorMentionsKey(err: unknown, apiKey: string): boolean {
  return isSecret(apiKey) && inspect(err, { depth: 6 }).includes(apiKey);
}

/**
 * An `openai` SDK failure described for people, key redacted: "<where>: HTTP 401: <server's
 * message>", "<where>: timed out after … ms per attempt (5 attempts)", "<where>: connection
 * failed (…): ECONNREFUSED …". `status` is the HTTP status of the answer, undefined when there was
 * none. Retry counts are mentioned only for what the SDK retries (408, 409, 429, 5xx, connection
 * errors, time-outs).
 */
export function describeOpenAIError(
  err: unknown,
  o: { where: string; apiKey: string; timeoutMs: number; maxRetries: number },
): { message: string; status: number | undefined } {
  const attempts = `${o.maxRetries + 1} attempt${o.maxRetries === 0 ? "" : "s"}`;
  let status: number | undefined;
  let detail: string;
  // The SDK is loaded already: only an error it raised reaches here.
  const { APIConnectionError, APIConnectionTimeoutError, APIError: SdkAPIError, APIUserAbortError } = openaiSdk();
  if (err instanceof APIConnectionTimeoutError) {
    detail = `timed out after ${o.timeoutMs} ms per attempt (${attempts})`;
  } else if (err instanceof APIUserAbortError) {
    detail = "request aborted";
  } else if (err instanceof APIConnectionError) {
    const cause = (err as { cause?: unknown }).cause;
    detail = `connection failed (${attempts}): ${cause instanceof Error ? describeCause(cause) : err.message}`;
  } else if (err instanceof SdkAPIError && err.status !== undefined) {
    status = err.status;
    detail = `HTTP ${err.status}: ${serverMessage(err)}`;
    if ([408, 409, 429].includes(err.status) || err.status >= 500) detail += ` (after ${attempts})`;
  } else if (err instanceof SyntaxError) {
    // A 200 whose body is not JSON; the SDK parses after its retry loop, so this was not retried.
    detail = `answer is not valid JSON (${err.message})`;
  } else {
    // e.g. the connection dropped while the body was read ("terminated"): also past the retry loop.
    detail = `request failed: ${err instanceof Error ? describeCause(err) : String(err)}`;
  }
  return { message: redactKey(`${o.where}: ${detail}`, o.apiKey), status };
}

/**
 * Whether a failure is an answer cut short: the server's headers came, then its body stopped
 * (undici's "terminated", "other side closed", a reset socket). The SDK reads the body after its
 * retry loop, so such a failure is retried by the caller, like a dropped connection.
 */
export function cutShort(err: unknown): boolean {
  const { APIError: SdkAPIError } = openaiSdk();
  if (!(err instanceof Error) || err instanceof SdkAPIError || err instanceof SyntaxError) return false;
  return /terminated|other side closed|ECONNRESET|UND_ERR_SOCKET|socket hang up/i.test(describeCause(err));
}

function isSecret(apiKey: string): boolean {
  return apiKey !== OPENAI_PLACEHOLDER_KEY && apiKey.length >= 4;
}

/** The server's message without the SDK's leading status (it is already in our text). */
function serverMessage(err: APIError): string {
  const body = err.error as { message?: unknown } | string | undefined;
  if (typeof body === "string" && body) return body;
  if (body && typeof body === "object" && typeof body.message === "string" && body.message) return body.message;
  const m = err.message.replace(new RegExp(`^${err.status}\\s*`), "");
  return m || "(no message)";
}
