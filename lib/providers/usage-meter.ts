/** Provider work a run has made so far (calls sent, not replayed), for progress lines and metadata.json. */
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

export type Pricer = (kind: "chat" | "embed" | "rerank", usage: { model?: string; input: number; output: number }) => number;

export type StepRecord = { label: string; done: number; total: number; seconds: number; perSecond: number; work: UsageTotals };

export class UsageMeter {
  private readonly totals: UsageTotals = { chatCalls: 0, chatTokens: 0, embedCalls: 0, embedTokens: 0, rerankCalls: 0, rerankPairs: 0, cost: 0 };
  private readonly finished: StepRecord[] = [];

  constructor(private readonly pricer?: Pricer) {}

  /** Counts one answered request: `amount` is its tokens (chat: input + output; embeddings) or pairs (rerank). */
  record(kind: "chat" | "embed" | "rerank", amount: number, priced?: Parameters<Pricer>[1]): void {
    const t = this.totals;
    const usd = this.pricer && priced ? this.pricer(kind, priced) : 0;
    if (Number.isFinite(usd)) t.cost += usd;
    t[`${kind}Calls`]++;
    t[kind === "rerank" ? "rerankPairs" : (`${kind}Tokens` as const)] += amount;
  }

  snapshot(): UsageTotals {
    return { ...this.totals };
  }

  noteStep(step: StepRecord): void {
    this.finished.push(step);
  }

  steps(): StepRecord[] {
    return this.finished.map((s) => ({ ...s, work: { ...s.work } }));
  }
}
