/**
 * Provider work made by this process so far (calls sent now, not answers replayed from a
 * cache), counted by the clients as their answers arrive: what a progress line turns into
 * calls and tokens per second.
 */

/** Totals per kind of provider. */
export interface UsageTotals {
  chatCalls: number;
  chatTokens: number;
  embedCalls: number;
  embedTokens: number;
  rerankCalls: number;
  rerankPairs: number;
  /** USD at the installed prices (`setPricer`); 0 when none is installed. */
  cost: number;
}

const totals: UsageTotals = { chatCalls: 0, chatTokens: 0, embedCalls: 0, embedTokens: 0, rerankCalls: 0, rerankPairs: 0, cost: 0 };

/** What one answered request was, for pricing. */
export interface PricedUsage {
  model?: string;
  input: number;
  output: number;
}

/** Turns one request's usage into USD. */
export type Pricer = (kind: "chat" | "embed" | "rerank", usage: PricedUsage) => number;

let pricer: Pricer | undefined;

/**
 * Installs the prices the meter adds up as `cost` (the CLI installs config/prices.json's);
 * undefined removes them.
 *
 * @example
 * setPricer((kind, u) => (kind === "chat" ? (u.input * 0.15 + u.output * 0.6) / 1e6 : 0));
 */
export function setPricer(p: Pricer | undefined): void {
  pricer = p;
}

/**
 * Counts one answered request.
 *
 * @example
 * recordUsage("chat", 1_234); // a chat call of 1,234 tokens (input + output)
 */
export function recordUsage(kind: "chat" | "embed" | "rerank", amount: number, priced?: PricedUsage): void {
  if (pricer && priced) {
    const usd = pricer(kind, priced);
    if (Number.isFinite(usd)) totals.cost += usd;
  }
  if (kind === "chat") {
    totals.chatCalls++;
    totals.chatTokens += amount;
  } else if (kind === "embed") {
    totals.embedCalls++;
    totals.embedTokens += amount;
  } else {
    totals.rerankCalls++;
    totals.rerankPairs += amount;
  }
}

/**
 * The totals so far (a copy).
 *
 * @example
 * const before = usageSnapshot(); await run(); usageSnapshot().chatCalls - before.chatCalls;
 */
export function usageSnapshot(): UsageTotals {
  return { ...totals };
}

/**
 * One long step as it ended (`gbr reproduce` records them into metadata.json's `progress`):
 * done/total, wall time, rate, and the provider work and cost it made.
 *
 * @example
 * const s: StepRecord = { label: "REACT-BM25", done: 283, total: 283, seconds: 5400, perSecond: 0.05, work: usageSnapshot() };
 */
export interface StepRecord {
  label: string;
  done: number;
  total: number;
  seconds: number;
  perSecond: number;
  work: UsageTotals;
}

const steps: StepRecord[] = [];

/**
 * Records a finished step.
 *
 * @example
 * noteStep({ label: "qwen3-8b documents", done: 6308, total: 6308, seconds: 95, perSecond: 66.4, work });
 */
export function noteStep(step: StepRecord): void {
  steps.push(step);
}

/**
 * The steps recorded so far in this process, oldest first (copies).
 *
 * @example
 * stepsSoFar().map((s) => s.label);
 */
export function stepsSoFar(): StepRecord[] {
  return steps.map((s) => ({ ...s, work: { ...s.work } }));
}
