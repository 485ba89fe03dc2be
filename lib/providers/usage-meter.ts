/**
 * Provider work made by a run so far (calls sent now, not answers replayed from a cache),
 * counted as the answers arrive: what a progress line turns into calls and tokens per second,
 * and what metadata.json records per long step.
 */

/** Totals per kind of provider. */
export interface UsageTotals {
  chatCalls: number;
  chatTokens: number;
  embedCalls: number;
  embedTokens: number;
  rerankCalls: number;
  rerankPairs: number;
  /** USD at the run's prices; 0 when it has none. */
  cost: number;
}

/** What one answered request was, for pricing. */
export interface PricedUsage {
  model?: string;
  input: number;
  output: number;
}

/** Turns one request's usage into USD. */
export type Pricer = (kind: "chat" | "embed" | "rerank", usage: PricedUsage) => number;

/**
 * One long step as it ended (`gbr reproduce` records them into metadata.json's `progress`):
 * done/total, wall time, rate, and the provider work and cost it made.
 */
export interface StepRecord {
  label: string;
  done: number;
  total: number;
  seconds: number;
  perSecond: number;
  work: UsageTotals;
}

/**
 * The provider work of one run (its `Providers` own one): every answered request, priced when
 * the run has prices, and the long steps as they ended.
 */
export class UsageMeter {
  private readonly totals: UsageTotals = { chatCalls: 0, chatTokens: 0, embedCalls: 0, embedTokens: 0, rerankCalls: 0, rerankPairs: 0, cost: 0 };
  private readonly finished: StepRecord[] = [];

  constructor(private readonly pricer?: Pricer) {}

  /** Counts one answered request: `amount` is its tokens (chat: input + output; embeddings) or pairs (rerank). */
  record(kind: "chat" | "embed" | "rerank", amount: number, priced?: PricedUsage): void {
    const t = this.totals;
    if (this.pricer && priced) {
      const usd = this.pricer(kind, priced);
      if (Number.isFinite(usd)) t.cost += usd;
    }
    if (kind === "chat") {
      t.chatCalls++;
      t.chatTokens += amount;
    } else if (kind === "embed") {
      t.embedCalls++;
      t.embedTokens += amount;
    } else {
      t.rerankCalls++;
      t.rerankPairs += amount;
    }
  }

  /** The totals so far (a copy). */
  snapshot(): UsageTotals {
    return { ...this.totals };
  }

  /** Records a finished step. */
  noteStep(step: StepRecord): void {
    this.finished.push(step);
  }

  /** The steps recorded so far, oldest first (copies). */
  steps(): StepRecord[] {
    return this.finished.map((s) => ({ ...s, work: { ...s.work } }));
  }
}
