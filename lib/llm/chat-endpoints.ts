/**
 * One chat model behind several servers (a base URL given as a comma-separated list: vLLM on
 * several GPUs or machines): each request goes to the endpoint with the fewest requests in
 * flight; an endpoint that fails (no answer, a time-out, 429 or 5xx) is set aside for a while,
 * with a backoff that doubles while it keeps failing, and the request is sent to another one,
 * so a run completes on the endpoints that remain. A client error (400, 401, 404) is the
 * request's, not the server's, and fails at once. Per-endpoint counts and errors are kept.
 */
import { backoffDelay } from "../util/retry";
import { ChatError, ChatProviderError, type ChatModel, type ChatRequest, type ChatResponse } from "./types";

/** One endpoint's record: requests sent, answered, failed, and the last error. */
export interface EndpointStats {
  endpoint: string;
  sent: number;
  answered: number;
  failed: number;
  lastError?: string;
}

/** A chat model over several endpoints, with their records. */
export interface SpreadChatModel extends ChatModel {
  endpointStats(): EndpointStats[];
}

/** Options of `spreadChat`. */
export interface SpreadOptions {
  /** Tries of one request over the endpoints before its error is thrown (default 8). */
  attempts?: number;
  /** First time an endpoint is set aside, in ms (default 1000; doubles while it keeps failing, up to 60 s). */
  baseMs?: number;
  /** Replaceable for tests. */
  sleep?: (ms: number) => Promise<void>;
}

/** Whether an error is the endpoint's (try another) rather than the request's. */
function endpointFailure(err: unknown): boolean {
  if (!(err instanceof ChatProviderError)) return false;
  return err.status === undefined || err.status === 429 || err.status >= 500;
}

/**
 * `models` (one per endpoint, each limiting its own requests in flight) as one chat model.
 *
 * @example
 * const llm = spreadChat([openaiChat({ model, baseURL: "http://gpu1:8000/v1" }), openaiChat({ model, baseURL: "http://gpu2:8000/v1" })]);
 * await llm.complete(req); llm.endpointStats(); // [{ endpoint: "http://gpu1:8000", sent: 1, … }, …]
 */
export function spreadChat(models: readonly ChatModel[], opts: SpreadOptions = {}): SpreadChatModel {
  if (models.length === 0) throw new ChatError("spreadChat: no endpoint", "NOT_CONFIGURED");
  const attempts = opts.attempts ?? 8;
  const sleep = opts.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  const state = models.map((m) => ({ model: m, inFlight: 0, downUntil: 0, strikes: 0, stats: { endpoint: m.endpoint ?? m.id, sent: 0, answered: 0, failed: 0 } as EndpointStats }));

  /** The endpoint to use now: available, fewest in flight, then the earliest in the list. */
  const pick = () => {
    const now = Date.now();
    const up = state.filter((s) => s.downUntil <= now);
    if (!up.length) return undefined;
    return up.reduce((best, s) => (s.inFlight < best.inFlight ? s : best));
  };

  async function complete(req: ChatRequest): Promise<ChatResponse> {
    let last: unknown;
    for (let attempt = 1; attempt <= attempts; attempt++) {
      let s = pick();
      while (!s) {
        // Every endpoint is set aside: wait for the first to come back.
        await sleep(Math.max(10, Math.min(...state.map((x) => x.downUntil)) - Date.now()));
        s = pick();
      }
      s.inFlight++;
      s.stats.sent++;
      try {
        const r = await s.model.complete(req);
        s.stats.answered++;
        s.strikes = 0;
        return r;
      } catch (err) {
        s.stats.failed++;
        s.stats.lastError = err instanceof Error ? err.message : String(err);
        if (!endpointFailure(err)) throw err;
        last = err;
        s.strikes++;
        s.downUntil = Date.now() + backoffDelay(s.strikes, { baseMs: opts.baseMs ?? 1000, maxMs: 60_000 });
      } finally {
        s.inFlight--;
      }
    }
    throw last;
  }

  const first = models[0];
  return {
    id: first.id,
    endpoint: models.map((m) => m.endpoint ?? m.id).join(", "),
    complete,
    endpointStats: () => state.map((s) => ({ ...s.stats })),
  };
}
