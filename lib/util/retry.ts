/** Retry helpers for every client of a remote service: Retry-After, backoff with jitter, a retry loop. */

/** However long a server asks us to wait, we wait no longer than this per attempt. */
const RETRY_AFTER_CEILING_MS = 5 * 60_000;

/** Milliseconds a `Retry-After` header asks for (delta-seconds or HTTP date); undefined if absent or unreadable. */
export function retryAfterMs(value: string | null | undefined, now = Date.now()): number | undefined {
  if (value == null || value.trim() === "") return undefined;
  const v = value.trim();
  if (/^\d+(\.\d+)?$/.test(v)) return Math.round(Number(v) * 1000);
  const at = Date.parse(v);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

export interface RetryOptions {
  /** Attempts in all, the first included (default 5). */
  attempts?: number;
  /** First delay without a server hint, in ms (default 1000); doubles each attempt. */
  baseMs?: number;
  /** Longest delay without a server hint, in ms (default 60000). */
  maxMs?: number;
  /** Whether an error deserves another attempt, and the wait the server asked for, if any. */
  classify: (err: unknown) => { retry: boolean; afterMs?: number };
  /** Replaceable for tests. */
  sleep?: (ms: number) => Promise<void>;
  /** Jitter source in [0, 1), replaceable for tests. */
  random?: () => number;
  /** The longest wait a server's Retry-After gets, in ms (default and at most five minutes): the request's deadline. */
  maxWaitMs?: number;
  /** Who waits, for the line announcing a long server-requested wait (default: no announcement). */
  label?: string;
  /** Where that line goes (default stderr). */
  announce?: (line: string) => void;
}

/** A server-requested wait at least this long is announced: minutes of silence look like a hang. */
const LONG_WAIT_MS = 10_000;

/**
 * The wait before attempt `attempt + 1`: the server's hint (capped at `maxWaitMs`, at most five minutes), else `baseMs · 2^(attempt-1)`
 * up to `maxMs` with "equal jitter" (half fixed, half random) so parallel clients spread out.
 */
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

