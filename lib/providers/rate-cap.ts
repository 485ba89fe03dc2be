/** RPM/TPM caps per paid account over a sliding window; a request reserves its maximum until its usage is known. */
import type { RateCaps } from "../config";

export class RateCap {
  private readonly entries: { at: number; tokens: number }[] = [];
  private waiting: Promise<void> = Promise.resolve();

  constructor(
    private readonly caps: RateCaps & { windowMs?: number },
    private readonly now: () => number = () => Date.now(),
    private readonly sleep: (ms: number) => Promise<void> = (ms) => new Promise((r) => setTimeout(r, ms)),
  ) {}

  /** Waits, in arrival order, until `tokens` fit (alone in an empty window if over the cap); `settle` sets what was spent. */
  acquire(tokens = 0): Promise<{ settle(actual: number): void }> {
    const turn = this.waiting.then(async () => {
      for (;;) {
        const wait = this.waitFor(tokens);
        if (wait <= 0) break;
        await this.sleep(wait);
      }
      const entry = { at: this.now(), tokens };
      this.entries.push(entry);
      return {
        settle: (actual: number) => {
          if (Number.isFinite(actual) && actual >= 0) entry.tokens = actual;
        },
      };
    });
    this.waiting = turn.then(() => undefined, () => undefined);
    return turn;
  }

  /** Runs one request under the caps; its reservation becomes what `used` reads from the answer. */
  async run<R>(tokens: number, call: () => Promise<R>, used: (answer: R) => number | undefined): Promise<R> {
    const ticket = await this.acquire(tokens);
    const answer = await call();
    const n = used(answer);
    if (n !== undefined) ticket.settle(n);
    return answer;
  }

  private waitFor(tokens: number): number {
    const now = this.now();
    const windowMs = this.caps.windowMs ?? 60_000;
    while (this.entries.length && this.entries[0].at <= now - windowMs) this.entries.shift();
    const rpm = this.caps.requestsPerMinute;
    const tpm = this.caps.tokensPerMinute;
    let until = 0;
    if (rpm !== undefined && this.entries.length + 1 > rpm) {
      // The oldest request that must leave the window for this one to fit.
      until = Math.max(until, this.entries[this.entries.length - Math.floor(rpm)].at + windowMs - now);
    }
    if (tpm !== undefined && this.entries.length > 0) {
      let spent = this.entries.reduce((n, e) => n + e.tokens, 0);
      let i = 0;
      while (spent + tokens > tpm && i < this.entries.length) {
        spent -= this.entries[i].tokens;
        until = Math.max(until, this.entries[i].at + windowMs - now);
        i++;
      }
    }
    return until > 0 ? Math.ceil(until) : 0;
  }
}
