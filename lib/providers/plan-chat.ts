/** `--plan` chat: sends nothing; replay hits answered, others counted (o200k input) and answered "" ("nothing new"). */
import { replayKey, type ReplayCache } from "../store";
import { countTokensJoined } from "../text/tokens";
import type { ChatModel, ChatRequest, ChatResponse } from "../llm/types";

/** Output tokens assumed per new call: the mean of the model's cached answers, else `fallback`. */
export async function outputGuess(cache: ReplayCache | undefined, modelId: string, fallback = 1000): Promise<{ perCall: number; basis: string }> {
  if (cache) {
    const i = modelId.indexOf(":");
    const provider = i < 0 ? "" : modelId.slice(0, i);
    const model = i < 0 ? modelId : modelId.slice(i + 1);
    let n = 0;
    let sum = 0;
    for await (const r of cache.records()) {
      if (r.provider !== provider || r.model !== model) continue;
      n++;
      sum += r.response.usage?.output ?? 0;
    }
    if (n > 0) return { perCall: Math.round(sum / n), basis: `the mean of the ${n} answers of ${model} in the replay cache` };
  }
  return { perCall: fallback, basis: `assumed: the replay cache holds no answer of this model` };
}

/** o200k tokens of a message, its paragraphs counted apart where the pre-tokenizer cuts anyway and remembered: the
 * same articles fill thousands of a plan's prompts (REACT's observer, listwise windows, translations), and a numbered
 * one ("[3] text") is counted apart from its number, which changes with its place. */
function messageTokens(text: string): number {
  return countTokensJoined(text.split(/(?<=\n\n)|(?<=(?:^|\n)\[\d{1,4}\])(?= )/));
}

/**
 * Answers "" (or the store's answer) and tallies the call with its o200k input tokens (`tokensOf` may remember them by
 * the store's key). With `exact`, the tally gets that key, so a request several experiments send is counted once.
 *
 * @example
 * const m = planChatModel("openai:openai/gpt-oss-120b", undefined, 1000, 0, (input, output, key) => {}, true);
 * await m.complete({ system: "s", user: "u" }); // { text: "", usage: { input: 2, output: 1000 }, … }
 */
export function planChatModel(
  modelId: string,
  cache: ReplayCache | undefined,
  outputPerCall: number,
  sample = 0,
  tally: (input: number, output: number, key?: string) => void = () => {},
  exact = false,
  tokensOf: (key: string, count: () => number) => number = (_key, count) => count(),
): ChatModel {
  // A request sent again as the same object (REACT's rounds retrieving the same articles) is keyed once.
  const keys = new WeakMap<ChatRequest, string>();
  return {
    id: modelId,
    endpoint: "plan",
    async complete(req: ChatRequest): Promise<ChatResponse> {
      let key = keys.get(req);
      if (key === undefined) keys.set(req, (key = replayKey(modelId, req, sample)));
      if (cache?.has(key)) {
        const hit = await cache.get(key);
        // Cached calls cost nothing.
        if (hit) return { text: hit.response.text, raw: hit.response.raw, usage: { input: 0, output: 0 }, seconds: 0, replayed: true };
      }
      const input = tokensOf(key, () => messageTokens(req.system) + messageTokens(req.user));
      tally(input, outputPerCall, exact ? key : undefined);
      return { text: "", raw: "", usage: { input, output: outputPerCall }, seconds: 0 };
    },
  };
}
