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
}

const totals: UsageTotals = { chatCalls: 0, chatTokens: 0, embedCalls: 0, embedTokens: 0, rerankCalls: 0, rerankPairs: 0 };

/**
 * Counts one answered request.
 *
 * @example
 * recordUsage("chat", 1_234); // a chat call of 1,234 tokens (input + output)
 */
export function recordUsage(kind: "chat" | "embed" | "rerank", amount: number): void {
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
