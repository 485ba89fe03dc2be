/** Retry helpers for every client of a remote service: Retry-After, backoff with jitter, a retry loop. */

const RETRY_AFTER_CEILING_MS = 5 * 60_000;

/** Milliseconds a `Retry-After` header asks for (delta-seconds or HTTP date); undefined if absent or unreadable. */
export function retryAfterMs(value: string | null | undefined, now = Date.now()): number | undefined {
  if (value == null || value.trim() === "") return undefined;
  const v = value.trim();
  if (/^\d+(\.\d+)?$/.test(v)) return Math.round(Number(v) * 1000);
  const at = Date.parse(v);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

/** Defaults: 5 attempts, 1 s doubling up to 60 s without a server hint; a Retry-After gets at most `maxWaitMs` (5 min). */
export interface RetryOptions {
  attempts?: number;
  baseMs?: number;
  maxMs?: number;
  /** Whether an error deserves another attempt, and the wait the server asked for, if any. */
  classify: (err: unknown) => { retry: boolean; afterMs?: number };
  sleep?: (ms: number) => Promise<void>;
  random?: () => number;
  maxWaitMs?: number;
  /** Who waits, for a line announcing a long server-requested wait (to `announce`, default stderr). */
  label?: string;
  announce?: (line: string) => void;
}

/** A server-requested wait at least this long is announced: minutes of silence look like a hang. */
const LONG_WAIT_MS = 10_000;

/** The wait before attempt `attempt + 1`: the server's hint (capped), else exponential with "equal jitter" (half random). */
export function backoffDelay(
  attempt: number,
  o: { baseMs?: number; maxMs?: number; afterMs?: number; random?: () => number; maxWaitMs?: number } = {},
): number {
  if (o.afterMs !== undefined) return Math.min(Math.max(0, o.afterMs), o.maxWaitMs ?? RETRY_AFTER_CEILING_MS, RETRY_AFTER_CEILING_MS);
  const cap = Math.min(o.maxMs ?? 60_000, (o.baseMs ?? 1000) * 2 ** (attempt - 1));
  return cap / 2 + (o.random ?? Math.random)() * (cap / 2);
}

/** Runs `fn(attempt)` until success, a final error (per `classify`) or the last attempt, then rethrows. */
export async function retryWithBackoff<T>(fn: (attempt: number) => Promise<T>, o: RetryOptions): Promise<T> {
  const attempts = Math.max(1, o.attempts ?? 5);
  const sleep = o.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  for (let attempt = 1; ; attempt++) {
    try {
      return await fn(attempt);
    } catch (err) {
      const verdict = o.classify(err);
      if (!verdict.retry || attempt >= attempts) throw err;
      const ms = backoffDelay(attempt, { baseMs: o.baseMs, maxMs: o.maxMs, afterMs: verdict.afterMs, random: o.random, maxWaitMs: o.maxWaitMs });
      if (o.label && verdict.afterMs !== undefined && ms >= LONG_WAIT_MS) {
        const asked = verdict.afterMs > ms ? ` (it asked for ${Math.round(verdict.afterMs / 1000)} s)` : "";
        (o.announce ?? ((line: string) => void process.stderr.write(`${line}\n`)))(
          `${o.label}: the server asked to wait; retrying in ${Math.round(ms / 1000)} s${asked}`,
        );
      }
      await sleep(ms);
    }
  }
}

