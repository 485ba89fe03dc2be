/** The terminal table of `gbr reproduce --plan` (plan.json has the same numbers, unrounded). */
import type { Plan } from "../experiments/plan";
import { clipAtWord, formatTable } from "../util/text-table";

const int = (n: number): string => Math.round(n).toLocaleString("en-US").replace(/,/g, "");

/** The earlier rows a row shares calls with, as few words as a column takes. */
function sharers(ids: readonly string[]): string {
  return clipAtWord(ids.length > 2 ? `${ids.slice(0, 2).join(", ")} and ${ids.length - 2} more` : ids.join(", "), 70);
}

export function formatPlan(plan: Plan, file: string): string {
  const rows = plan.experiments.map((e) =>
    e.status === "ok"
      ? [e.id, int(e.calls), int(e.cached), int(e.newCalls), int(e.inputTokens), int(e.outputTokens), e.cost.toFixed(2), e.exact ? "exact" : "estimate", sharers(e.sharedWith)]
      : // What it sent before it stopped (a translation before a missing tokenizer) is in the total too.
        [e.id, "-", "-", e.newCalls ? int(e.newCalls) : "-", "-", "-", "-", `${e.status}: ${clipAtWord(e.reason ?? "", 80)}`, ""],
  );
  const lines = [
    `Plan for ${plan.dataset}: ${plan.queries} queries, ${plan.articles} articles. No model was called.`,
    "",
    formatTable(["experiment", "calls", "cached", "new", "input tokens", "output tokens", "USD", "counts", "shared with"], rows).trimEnd(),
    "",
    `Total, each call once (the sum of the new column): ${int(plan.total.chatCalls)} chat calls, ${int(plan.total.embeddedTexts)} texts to embed, ` +
      `${int(plan.total.rerankRequests)} rerank requests (${int(plan.total.rerankPairs)} pairs); ${int(plan.total.inputTokens)} input and ` +
      `${int(plan.total.outputTokens)} output tokens; USD ${plan.total.cost.toFixed(2)}.`,
    ...plan.outputGuesses.map((g) => `Output tokens of ${g.model}: ${g.perCall} per new call (${g.basis}).`),
    ...plan.notes.map((n) => `Note: ${n}.`),
    `Prices: ${plan.prices}. Written to ${file}.`,
  ];
  return lines.join("\n") + "\n";
}
