/**
 * An in-flight limit that follows what a server can take (additive increase, multiplicative
 * decrease, as TCP does): a 429 or 503 halves it (at most once per second, so one burst of
 * refusals counts once), and each run of as many successes as the limit adds one slot back, up
 * to the limit the user set. The waiting a refusal asks for (Retry-After) is the client's own
 * retry's business; this only decides how many requests are out at once.
 */
import type { Semaphore } from "../util/semaphore";

/** What happened to the limit, for the run's record and for tests. */
export interface LimitRecord {
  /** The limit the user set (the ceiling). */
  max: number;
  /** The limit now. */
  current: number;
  /** The lowest it went. */
  lowest: number;
  /** Refusals seen (429, 503). */
  refusals: number;
}

/**
 * Ties a semaphore's size to a server's answers.
 */
export class AdaptiveLimit {
  private successes = 0;
  private lastDecrease = -Infinity;
  private readonly record: LimitRecord;

  constructor(
    private readonly limit: Semaphore,
    max: number,
    private readonly now: () => number = () => Date.now(),
  ) {
    this.record = { max, current: limit.size, lowest: limit.size, refusals: 0 };
  }

  /** Takes one HTTP status (of any attempt, retries included). */
  observe(status: number): void {
    if (status === 429 || status === 503) {
      this.record.refusals++;
      this.successes = 0;
      if (this.now() - this.lastDecrease < 1000) return;
      this.lastDecrease = this.now();
      this.set(Math.max(1, Math.floor(this.limit.size / 2)));
    } else if (status < 400 && this.limit.size < this.record.max && ++this.successes >= this.limit.size) {
      this.successes = 0;
      this.set(this.limit.size + 1);
    }
  }

  private set(size: number): void {
    this.limit.resize(size);
    this.record.current = size;
    this.record.lowest = Math.min(this.record.lowest, size);
  }

  /** The record so far (a copy). */
  state(): LimitRecord {
    return { ...this.record };
  }
}

/**
 * A `fetch` that tells `adaptive` the status of every answer it gets: what the OpenAI SDK is
 * given, so that its own retries steer the limit too.
 */
export function observingFetch(adaptive: AdaptiveLimit): typeof fetch {
  return (async (input: Parameters<typeof fetch>[0], init?: Parameters<typeof fetch>[1]) => {
    const res = await fetch(input, init);
    adaptive.observe(res.status);
    return res;
  }) as typeof fetch;
}
