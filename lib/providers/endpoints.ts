/** One model over several servers, fewest in flight first; a failing server is set aside (doubling backoff). */
import { backoffDelay } from "../util/retry";
import type { EndpointStats } from "../models/servers";

export interface SpreadOptions {
  /** Tries of one request over the endpoints before its error is thrown (default 8). */
  attempts?: number;
  /** First time an endpoint is set aside, in ms (default 1000; doubles while it keeps failing, up to 60 s). */
  baseMs?: number;
  sleep?: (ms: number) => Promise<void>;
}

/** A model client as a spread sees it: what it is, where it sends, how many requests it takes at once. */
interface Spreadable {
  readonly id: string;
  readonly endpoint?: string;
  readonly capacity?: number;
}

/**
 * `clients` (one per endpoint, each limiting its own requests in flight) as one: `run` sends through the least busy and
 * tries another when `isServerFailure` blames the endpoint; `reports` is what the whole reports of itself.
 *
 * @example
 * const { run, reports } = spread(models, (err) => err instanceof ChatProviderError);
 * const model = { ...reports, complete: (req) => run((m) => m.complete(req)) };
 */
export function spread<C extends Spreadable>(clients: readonly C[], isServerFailure: (err: unknown) => boolean, opts: SpreadOptions = {}) {
  const s = new EndpointSpread(clients.map((c) => ({ client: c, endpoint: c.endpoint ?? c.id })), isServerFailure, opts);
  return {
    run: <R>(send: (client: C) => Promise<R>) => s.run(send),
    reports: {
      id: clients[0].id,
      endpoint: clients.map((c) => c.endpoint ?? c.id).join(", "),
      endpointStats: () => s.stats(),
      capacity: clients.reduce((n, c) => n + (c.capacity ?? 1), 0),
    },
  };
}

/** Clients of several endpoints as one: `run` tries another when `isServerFailure` blames the endpoint. */
class EndpointSpread<C> {
  private readonly state: { client: C; inFlight: number; downUntil: number; strikes: number; stats: EndpointStats }[];
  private readonly attempts: number;
  private readonly sleep: (ms: number) => Promise<void>;

  constructor(
    endpoints: readonly { client: C; endpoint: string }[],
    private readonly isServerFailure: (err: unknown) => boolean,
    private readonly opts: SpreadOptions = {},
  ) {
    if (endpoints.length === 0) throw new Error("EndpointSpread: no endpoint");
    this.state = endpoints.map((e) => ({ client: e.client, inFlight: 0, downUntil: 0, strikes: 0, stats: { endpoint: e.endpoint, sent: 0, answered: 0, failed: 0 } }));
    this.attempts = opts.attempts ?? 8;
    this.sleep = opts.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  }

  /** Available, fewest in flight, then the earliest in the list. */
  private pick() {
    const now = Date.now();
    const up = this.state.filter((s) => s.downUntil <= now);
    return up.length ? up.reduce((best, s) => (s.inFlight < best.inFlight ? s : best)) : undefined;
  }

  async run<R>(send: (client: C) => Promise<R>): Promise<R> {
    let last: unknown;
    for (let attempt = 1; attempt <= this.attempts; attempt++) {
      let s = this.pick();
      while (!s) {
        // Every endpoint is set aside: wait for the first to come back.
        await this.sleep(Math.max(10, Math.min(...this.state.map((x) => x.downUntil)) - Date.now()));
        s = this.pick();
      }
      s.inFlight++;
      s.stats.sent++;
      try {
        const r = await send(s.client);
        s.stats.answered++;
        s.strikes = 0;
        return r;
      } catch (err) {
        s.stats.failed++;
        s.stats.lastError = err instanceof Error ? err.message : String(err);
        if (!this.isServerFailure(err)) throw err;
        last = err;
        s.strikes++;
        s.downUntil = Date.now() + backoffDelay(s.strikes, { baseMs: this.opts.baseMs ?? 1000, maxMs: 60_000 });
      } finally {
        s.inFlight--;
      }
    }
    throw last;
  }

  stats(): EndpointStats[] {
    return this.state.map((s) => ({ ...s.stats }));
  }
}
