/** One model over several servers, fewest in flight first; a failing server is set aside (doubling backoff). */
import { backoffDelay } from "../util/retry";
import type { EndpointStats } from "../models/servers";

/** `clients` (one per endpoint) as one: `run` sends through the least busy, another when `isServerFailure` blames it. */
export function spread<C extends { readonly id: string; readonly endpoint?: string; readonly capacity?: number }>(
  clients: readonly C[],
  isServerFailure: (err: unknown) => boolean,
  opts: { attempts?: number; sleep?: (ms: number) => Promise<void> } = {},
) {
  if (clients.length === 0) throw new Error("spread: no endpoint");
  const state = clients.map((client) => {
    const stats: EndpointStats = { endpoint: client.endpoint ?? client.id, sent: 0, answered: 0, failed: 0 };
    return { client, inFlight: 0, downUntil: 0, strikes: 0, stats };
  });
  const sleep = opts.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  // Available, fewest in flight, then the earliest in the list.
  const pick = () => {
    const up = state.filter((s) => s.downUntil <= Date.now());
    return up.length ? up.reduce((best, s) => (s.inFlight < best.inFlight ? s : best)) : undefined;
  };
  async function run<R>(send: (client: C) => Promise<R>): Promise<R> {
    let last: unknown;
    for (let attempt = 1; attempt <= (opts.attempts ?? 8); attempt++) {
      let s = pick();
      while (!s) {
        // Every endpoint is set aside: wait for the first to come back.
        await sleep(Math.max(10, Math.min(...state.map((x) => x.downUntil)) - Date.now()));
        s = pick();
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
        if (!isServerFailure(err)) throw err;
        last = err;
        s.downUntil = Date.now() + backoffDelay(++s.strikes, { baseMs: 1000, maxMs: 60_000 });
      } finally {
        s.inFlight--;
      }
    }
    throw last;
  }
  return {
    run,
    reports: {
      id: clients[0].id,
      endpoint: state.map((s) => s.stats.endpoint).join(", "),
      endpointStats: () => state.map((s) => ({ ...s.stats })),
      capacity: clients.reduce((n, c) => n + (c.capacity ?? 1), 0),
    },
  };
}
