/** Rerank client (vLLM, Jina, Cohere-style, TEI) over `fetch` (no SDK fits); retries 408/429/5xx, time-outs, drops. */
import { spread } from "./endpoints";
import { RerankError, type RerankClient, type RerankResult } from "../models/rerank";
import { DEFAULT_TIMEOUT_S, type Config } from "../config";
import { checkedBaseUrl, deadlineFetch, deadlinePassed, describeCause, endpointOrigin, maskCredentials } from "../util/http";
import { redactKey } from "./openai-client";
import { servedByOpenAI } from "./served-by";
import { printable } from "../util/printable";
import { parsedOr } from "../util/errors";
import { retryAfterMs, retryWithBackoff } from "../util/retry";

export interface RerankClientOptions {
  /** Up to the path the server puts "/rerank" under, e.g. "http://localhost:8000" or "https://api.jina.ai/v1". */
  baseUrl: string;
  apiKey?: string;
  /** "rerank" (Cohere, Jina, vLLM: `{model, query, documents, top_n}`) or "tei" (`{query, texts}`; one model). */
  api?: "rerank" | "tei";
  timeoutMs?: number;
  attempts?: number;
  backoffMs?: number;
  sleep?: (ms: number) => Promise<void>;
}

/** A client of `POST {baseUrl}/rerank`; scores come back in the order of the documents sent. */
export function rerankClient(o: RerankClientOptions): RerankClient {
  const api = o.api ?? "rerank";
  const timeoutMs = o.timeoutMs ?? DEFAULT_TIMEOUT_S.rerank * 1000;
  const attempts = o.attempts ?? 5;
  const apiKey = o.apiKey ?? "";
  const u = new URL(checkedBaseUrl("rerank base URL", o.baseUrl, "GBR_RERANK_API_KEY"));
  u.pathname = `${u.pathname.replace(/\/+$/, "")}/rerank`;
  const url = u.toString();
  // Messages show the URL without its query string, which proxies sometimes use for tokens.
  const where = `${api} at ${maskCredentials(url.split("?")[0])}`;
  const endpoint = endpointOrigin(url);
  const timedFetch = deadlineFetch(timeoutMs);
  const headers: Record<string, string> = { "Content-Type": "application/json", Accept: "application/json" };
  if (apiKey) headers.Authorization = `Bearer ${apiKey}`;
  const listeners = new Set<(status: number) => void>();
  const classify = (e: unknown) => e instanceof RerankError ? { retry: e.retryable, afterMs: e.retryAfterMs } : { retry: false };
  const retry = { attempts, baseMs: o.backoffMs ?? 1000, sleep: o.sleep, maxWaitMs: timeoutMs, label: where, classify };

  async function attempt(body: string, n: number): Promise<RerankResult> {
    let res: Response;
    let text: string;
    try {
      res = await timedFetch(url, { method: "POST", headers, body });
      for (const l of listeners) l(res.status);
      text = await res.text();
    } catch (err) {
      if (deadlinePassed(err)) throw new RerankError(`${where}: timed out after ${timeoutMs} ms`, "TIMEOUT", undefined, true);
      throw new RerankError(`${where}: connection failed (${describeCause(err)})`, "NETWORK", undefined, true);
    }
    if (!res.ok) {
      const retryable = res.status === 408 || res.status === 429 || res.status >= 500;
      const message = redactKey(`${where}: HTTP ${res.status}: ${serverMessage(text)}`, apiKey);
      throw new RerankError(message, "HTTP", res.status, retryable, retryAfterMs(res.headers.get("retry-after")));
    }
    const notJson = () => new RerankError(`${where}: answer is not JSON: ${redactKey(clip(text), apiKey)}`, "BAD_ANSWER");
    const json: unknown = parsedOr(() => JSON.parse(text), notJson);
    return { ...parseRerankAnswer(json, n, where), ...usageOf(json) };
  }

  async function rerank(model: string, query: string, documents: readonly string[]): Promise<RerankResult> {
    if (documents.length === 0) return { scores: [], standIn: false };
    const body = JSON.stringify(
      api === "tei" ? { query, texts: documents, raw_scores: false } : { model, query, documents, top_n: documents.length },
    );
    let tries = 0;
    try {
      return await retryWithBackoff((n) => {
        tries = n;
        return attempt(body, documents.length);
      }, retry);
    } catch (err) {
      if (!(err instanceof RerankError) || !err.retryable || tries < 2) throw err;
      throw new RerankError(`${err.message} (after ${tries} attempts)`, err.code, err.status, false, err.retryAfterMs);
    }
  }

  const onStatus = (listener: (status: number) => void) => {
    listeners.add(listener);
    return () => void listeners.delete(listener);
  };
  return { id: `${api}@${endpoint}`, endpoint, rerank, onStatus };
}

/** The rerank client of a configuration; without a base URL the error is `unavailable`, so experiments skip. */
export function rerankClientFrom(
  c: Config["rerank"],
  more: Partial<Pick<RerankClientOptions, "attempts" | "backoffMs" | "sleep" | "timeoutMs">> = {},
): RerankClient {
  if (c.baseUrls.length === 0) {
    throw new RerankError(
      "no rerank server configured: set GBR_RERANK_BASE_URL to a server exposing POST /rerank (vLLM, Text Embeddings Inference, Jina or Cohere-compatible), e.g. http://localhost:8000",
      "NOT_CONFIGURED",
      undefined,
      false,
      undefined,
      "also set GBR_RERANK_API_KEY if the server needs a key, and GBR_RERANK_API=tei for Text Embeddings Inference",
      "no rerank server configured: set GBR_RERANK_BASE_URL",
    );
  }
  const opts = { timeoutMs: c.timeoutMs, ...more, apiKey: c.apiKey, api: c.api };
  if (c.baseUrls.length === 1) return { ...rerankClient({ ...opts, baseUrl: c.baseUrls[0] }), capacity: c.concurrency };
  // No retry in place: a failing endpoint is set aside.
  const clients = c.baseUrls.map((u) => ({ ...rerankClient({ ...opts, attempts: 1, baseUrl: u }), capacity: c.concurrency }));
  const { run, reports } = spread(clients, (err) => err instanceof RerankError && err.retryable);
  return {
    ...reports,
    rerank: (model, query, documents) => run((cl) => cl.rerank(model, query, documents)),
    onStatus: (listener) => {
      const offs = clients.map((cl) => cl.onStatus?.(listener));
      return () => offs.forEach((off) => off?.());
    },
  };
}

/** Scores by document from `{results: [{index, relevance_score}]}` or TEI's `[{index, score}]`: each once, finite. */
function parseRerankAnswer(json: unknown, n: number, where: string): { scores: number[]; servedModel?: string; standIn: boolean } {
  const body = json as { results?: unknown; gbr_test_double?: unknown } | null;
  const items: unknown = Array.isArray(json) ? json : body?.results;
  if (!Array.isArray(items)) throw new RerankError(`${where}: answer has neither a "results" array nor a bare list of results`, "BAD_ANSWER");
  const scores = new Array<number | undefined>(n).fill(undefined);
  let standIn = !Array.isArray(json) && body?.gbr_test_double === true;
  items.forEach((raw, position) => {
    const item = raw as { index?: unknown; relevance_score?: unknown; score?: unknown; gbr_test_double?: unknown } | null;
    if (item?.gbr_test_double === true) standIn = true;
    const i = item?.index;
    const s = item?.relevance_score ?? item?.score;
    const index = typeof i === "number" && Number.isInteger(i) && i >= 0 && i < n && scores[i] === undefined;
    if (!index || typeof s !== "number" || !Number.isFinite(s)) {
      const what = `result ${position} (index ${JSON.stringify(i)}, score ${JSON.stringify(s)})`;
      throw new RerankError(`${where}: sent ${n} documents; ${what} is out of range, repeated or not finite`, "BAD_ANSWER");
    }
    scores[i] = s;
  });
  const missing = scores.indexOf(undefined);
  if (missing >= 0) throw new RerankError(`${where}: sent ${n} documents, no score for index ${missing}`, "BAD_ANSWER");
  return { scores: scores as number[], ...servedByOpenAI(body), standIn };
}

/** `usage.total_tokens` (vLLM, Jina); Cohere's `search_units` are no token count, so not read. */
function usageOf(json: unknown): { tokens?: number } {
  const usage = (json as { usage?: { total_tokens?: unknown; prompt_tokens?: unknown } } | null)?.usage;
  const t = usage?.total_tokens ?? usage?.prompt_tokens;
  return typeof t === "number" && Number.isFinite(t) ? { tokens: t } : {};
}

/** The server's own words from an error body (OpenAI/vLLM, TEI, FastAPI shapes), else the text. */
function serverMessage(text: string): string {
  try {
    const j = JSON.parse(text) as { error?: unknown; message?: unknown; detail?: unknown };
    const e = j?.error as { message?: unknown } | string | undefined;
    const m = typeof e === "string" ? e : typeof e?.message === "string" ? e.message : typeof j?.message === "string" ? j.message : j?.detail;
    if (typeof m === "string" && m) return clip(m);
    if (m !== undefined) return clip(JSON.stringify(m));
  } catch {
    /* not JSON: the text itself */
  }
  return text.trim() ? clip(text.trim()) : "(no message)";
}

/** A server's text as a message quotes it: cut at 300 characters (HTML error pages can be long), its controls shown. */
function clip(s: string): string {
  return printable(s.length > 300 ? `${s.slice(0, 300)}… (${s.length} characters)` : s);
}
