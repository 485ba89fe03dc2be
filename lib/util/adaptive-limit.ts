/** AIMD in-flight limit, as TCP: 429/503 halves it (at most once a second); a limit's worth of successes adds one. */
import type { Semaphore } from "./semaphore";

/** What happened to the limit: the user's ceiling, now, lowest, and refusals (429, 503) seen. */
export type LimitRecord = { max: number; current: number; lowest: number; refusals: number };

export class AdaptiveLimit {
  private successes = 0;
  private lastDecrease = -Infinity;
  private readonly record: LimitRecord;

  constructor(private readonly limit: Semaphore, max: number, private readonly now: () => number = () => Date.now()) {
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

  state(): LimitRecord {
    return { ...this.record };
  }
}

/** A `fetch` that reports every status to `adaptive`; given to the OpenAI SDK so its retries steer the limit too. */
export function observingFetch(adaptive: AdaptiveLimit, base: typeof fetch): typeof fetch {
  return (async (input: Parameters<typeof fetch>[0], init?: Parameters<typeof fetch>[1]) => {
    const res = await base(input, init);
    adaptive.observe(res.status);
    return res;
  }) as typeof fetch;
}
