/**
 * Requests- and tokens-per-minute caps for paid APIs, whose documented limits are per account
 * (not per endpoint): a request is sent only when, over the last 60 seconds, the requests sent
 * plus this one stay within the requests cap and the tokens spent or reserved plus this one's
 * reservation stay within the tokens cap. A request reserves its input estimate plus its output
 * limit, the most it can spend, and the reservation becomes its reported usage when it answers,
 * so the caps hold even before the answers say what was spent.
 */
import { GbrError } from "./errors";
import type { ProviderKind } from "./concurrency";

/**
 * Caps over a sliding window (60 s unless a test shortens it).
 *
 * @example
 * const caps: RateCaps = { requestsPerMinute: 500, tokensPerMinute: 2_000_000 };
 */
export interface RateCaps {
  requestsPerMinute?: number;
  tokensPerMinute?: number;
  windowMs?: number;
}

interface Entry {
  at: number;
  tokens: number;
}

/**
 * A sliding-window limiter of requests and tokens.
 *
 * @example
 * const cap = new RateCap({ requestsPerMinute: 60 });
 * const ticket = await cap.acquire(1200); // waits while 60 requests were sent in the last minute
 * ticket.settle(1350);                    // what the answer reported
 */
export class RateCap {
  private readonly entries: Entry[] = [];
  private waiting: Promise<void> = Promise.resolve();
  private readonly windowMs: number;
  /** Milliseconds spent waiting for the caps, in all. */
  waitedMs = 0;

  constructor(
    private readonly caps: RateCaps,
    private readonly now: () => number = () => Date.now(),
    private readonly sleep: (ms: number) => Promise<void> = (ms) => new Promise((r) => setTimeout(r, ms)),
  ) {
    this.windowMs = caps.windowMs ?? 60_000;
    for (const [name, v] of [["requestsPerMinute", caps.requestsPerMinute], ["tokensPerMinute", caps.tokensPerMinute]] as const) {
      if (v !== undefined && !(Number.isFinite(v) && v > 0)) throw new RangeError(`${name} must be a positive number, got ${v}`);
    }
  }

  /**
   * Waits until a request reserving `tokens` fits in the window, records it, and returns its
   * ticket: `settle(actual)` replaces the reservation by what was spent. Requests are admitted in
   * the order they asked. A reservation larger than the whole tokens cap is admitted alone in an
   * otherwise empty window (it could never fit otherwise).
   */
  acquire(tokens = 0): Promise<{ settle(actual: number): void }> {
    const turn = this.waiting.then(async () => {
      for (;;) {
        const wait = this.waitFor(tokens);
        if (wait <= 0) break;
        this.waitedMs += wait;
        await this.sleep(wait);
      }
      const entry: Entry = { at: this.now(), tokens };
      this.entries.push(entry);
      return {
        settle: (actual: number) => {
          if (Number.isFinite(actual) && actual >= 0) entry.tokens = actual;
        },
      };
    });
    this.waiting = turn.then(
      () => undefined,
      () => undefined,
    );
    return turn;
  }

  /** Milliseconds until a request of `tokens` fits (0: now). */
  private waitFor(tokens: number): number {
    const now = this.now();
    while (this.entries.length && this.entries[0].at <= now - this.windowMs) this.entries.shift();
    const rpm = this.caps.requestsPerMinute;
    const tpm = this.caps.tokensPerMinute;
    let until = 0;
    if (rpm !== undefined && this.entries.length + 1 > rpm) {
      // The oldest request that must leave the window for this one to fit.
      until = Math.max(until, this.entries[this.entries.length - Math.floor(rpm)].at + this.windowMs - now);
    }
    if (tpm !== undefined && this.entries.length > 0) {
      let spent = this.entries.reduce((n, e) => n + e.tokens, 0);
      let i = 0;
      while (spent + tokens > tpm && i < this.entries.length) {
        spent -= this.entries[i].tokens;
        until = Math.max(until, this.entries[i].at + this.windowMs - now);
        i++;
      }
    }
    return until > 0 ? Math.ceil(until) : 0;
  }
}

const NAMES: Readonly<Record<ProviderKind, { rpm: string; tpm: string }>> = {
  chat: { rpm: "GBR_CHAT_RPM", tpm: "GBR_CHAT_TPM" },
  embed: { rpm: "GBR_EMBED_RPM", tpm: "GBR_EMBED_TPM" },
  rerank: { rpm: "GBR_RERANK_RPM", tpm: "GBR_RERANK_TPM" },
};

/**
 * The caps set for a kind of provider (`GBR_CHAT_RPM` / `GBR_CHAT_TPM`, `GBR_EMBED_RPM` /
 * `GBR_EMBED_TPM`, `GBR_RERANK_RPM` / `GBR_RERANK_TPM`), or undefined when none is.
 *
 * @example
 * rateCapsFor("chat", { GBR_CHAT_RPM: "500" }); // { requestsPerMinute: 500 }
 */
export function rateCapsFor(kind: ProviderKind, env: NodeJS.ProcessEnv = process.env): RateCaps | undefined {
  const read = (name: string): number | undefined => {
    const raw = env[name]?.trim();
    if (!raw) return undefined;
    const n = Number(raw);
    if (!(Number.isFinite(n) && n > 0)) throw new GbrError(`${name} must be a positive number (per minute), got '${raw}'`, "USAGE");
    return n;
  };
  const requestsPerMinute = read(NAMES[kind].rpm);
  const tokensPerMinute = read(NAMES[kind].tpm);
  if (requestsPerMinute === undefined && tokensPerMinute === undefined) return undefined;
  return { ...(requestsPerMinute !== undefined ? { requestsPerMinute } : {}), ...(tokensPerMinute !== undefined ? { tokensPerMinute } : {}) };
}

/**
 * One cap per kind of provider per process: a paid API's limits are the account's, so every
 * client of a kind (several endpoints, several retrievers) draws from the same window.
 *
 * @example
 * const cap = sharedRateCap("chat"); // undefined when GBR_CHAT_RPM and GBR_CHAT_TPM are unset
 */
export function sharedRateCap(kind: ProviderKind, env: NodeJS.ProcessEnv = process.env): RateCap | undefined {
  const caps = rateCapsFor(kind, env);
  if (!caps) return undefined;
  const key = `${kind}:${caps.requestsPerMinute ?? ""}:${caps.tokensPerMinute ?? ""}`;
  let cap = shared.get(key);
  if (!cap) shared.set(key, (cap = new RateCap(caps)));
  return cap;
}

const shared = new Map<string, RateCap>();
