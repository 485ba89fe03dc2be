/** HTTP plumbing shared by every client on Node's built-in fetch (the `openai` SDK, `@google/genai`). */
import { GbrError, parsedOr } from "./errors";

// undici's well-known symbol for the dispatcher Node's built-in fetch uses.
const UNDICI_GLOBAL_DISPATCHER = Symbol.for("undici.globalDispatcher.1");

/** Node's fetch dispatcher with other header/body timeouts (default none): its 300 s cuts a slow model's first byte. */
export function longRequestDispatcher(o: { headersTimeoutMs?: number; bodyTimeoutMs?: number } = {}): object | undefined {
  const g = globalThis as Record<symbol, unknown>;
  // Node loads undici lazily; constructing a Headers object is enough to make it register.
  if (!g[UNDICI_GLOBAL_DISPATCHER]) new Headers();
  const global = g[UNDICI_GLOBAL_DISPATCHER] as { dispatch?: (opts: object, handler: unknown) => boolean } | undefined;
  if (!global || typeof global.dispatch !== "function") return undefined;
  const headersTimeout = o.headersTimeoutMs ?? 0;
  const bodyTimeout = o.bodyTimeoutMs ?? 0;
  return {
    dispatch(opts: object, handler: unknown): boolean {
      // Looked up per request: a test or a proxy setup may replace the global dispatcher later.
      const current = (g[UNDICI_GLOBAL_DISPATCHER] ?? global) as { dispatch: (opts: object, handler: unknown) => boolean };
      return current.dispatch({ ...opts, headersTimeout, bodyTimeout }, handler);
    },
  };
}

/**
 * A `fetch` whose whole exchange, body included, must be over within `timeoutMs`, else a TimeoutError: the SDKs' timeouts
 * stop at the headers, and undici's body timeout is idle time, which a server dripping one byte at a time resets forever.
 */
export function deadlineFetch(timeoutMs: number): typeof fetch {
  const dispatcher = longRequestDispatcher();
  return ((input: Parameters<typeof fetch>[0], init?: Parameters<typeof fetch>[1]) => {
    // Not AbortSignal.timeout/any: they hold their signals weakly, and a collected one never fires mid-body.
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(new DOMException(`no complete answer within ${timeoutMs} ms`, "TimeoutError")), timeoutMs);
    timer.unref?.();
    const outer = init?.signal;
    if (outer?.aborted) controller.abort(outer.reason);
    else outer?.addEventListener("abort", () => controller.abort(outer.reason), { once: true });
    const withDispatcher = dispatcher && !(init && "dispatcher" in init) ? { dispatcher } : {};
    return fetch(input, { ...init, signal: controller.signal, ...withDispatcher } as RequestInit);
  }) as typeof fetch;
}

/** Whether `err` (or a cause of it) is a `deadlineFetch` deadline that passed. */
export function deadlinePassed(err: unknown): boolean {
  let cur: unknown = err;
  for (let depth = 0; cur && typeof cur === "object" && depth < 4; depth++) {
    if ((cur as { name?: unknown }).name === "TimeoutError") return true;
    cur = (cur as { cause?: unknown }).cause;
  }
  return false;
}

/** Scheme, host and port of a URL, so credentials, paths and query tokens never reach metadata or reports. */
export function endpointOrigin(url: string): string {
  try {
    const u = new URL(url);
    return u.origin === "null" ? `${u.protocol}//${u.host}` : u.origin;
  } catch {
    return "(invalid URL)";
  }
}

const SECRET_PARAM = /^(api[-_]?key|key|token|access[-_]?token|auth|authorization|secret|password|pass|sig|signature|x-api-key)$/i;

/** A URL (one `checkedBaseUrl` parsed) with its user name, password and secret-bearing query values replaced by `***`. */
export function maskCredentials(url: string): string {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return url.replace(/\/\/[^/@]*@/, "//***@");
  }
  const secrets = [...u.searchParams.keys()].filter((k) => SECRET_PARAM.test(k));
  if (!u.username && !u.password && !secrets.length) return url;
  if (u.username) u.username = "***";
  if (u.password) u.password = "***";
  for (const k of secrets) u.searchParams.set(k, "***");
  return u.toString();
}

/**
 * A configured base URL (`source` says where), refused with credentials in it, or any query string or fragment: requests
 * are appended to its path, which a query would mangle (and a server echoing it would put into every output).
 */
export function checkedBaseUrl(source: string, url: string, keyVariable?: string): string {
  // The value is not shown: it may hold a secret that no parser found.
  const hint = "give a base URL such as http://localhost:8000/v1";
  const u = parsedOr(() => new URL(url), () => new GbrError(`${source} is not a URL`, "INVALID_URL", { hint }));
  if (u.username !== "" || u.password !== "" || [...u.searchParams.keys()].some((k) => SECRET_PARAM.test(k))) {
    throw new GbrError(`${source} carries credentials (${maskCredentials(url)}): they are never sent or recorded from a URL`, "CREDENTIALS_IN_URL", {
      hint: keyVariable ? `remove them from the URL and set ${keyVariable} instead` : "remove them from the URL",
    });
  }
  if (u.search !== "" || u.hash !== "") {
    const shown = `${endpointOrigin(url)}${u.pathname}`;
    throw new GbrError(`${source} has a query string or fragment after ${shown}: a base URL is a path that requests are appended to`, "QUERY_IN_URL", {
      hint: keyVariable ? `remove it; a key goes in ${keyVariable}, which is sent as a header` : "remove it from the URL",
    });
  }
  return url;
}

/** `text` with each of `secrets` replaced by "[redacted]": a server may echo a key it was sent into its error text. */
export function redactSecrets(text: string, secrets: readonly string[]): string {
  return secrets.reduce((t, secret) => (secret ? t.split(secret).join("[redacted]") : t), text);
}

/** An error and its causes in one line: undici hides the useful part ("ECONNREFUSED") in nested causes. */
export function describeCause(err: unknown): string {
  const parts: string[] = [];
  let cur: unknown = err;
  for (let depth = 0; cur instanceof Error && depth < 4; depth++) {
    const code = (cur as { code?: unknown }).code;
    parts.push(typeof code === "string" && !cur.message.includes(code) ? `${cur.message} [${code}]` : cur.message);
    cur = (cur as { cause?: unknown }).cause;
  }
  return parts.join(": ") || String(err);
}
