/**
 * The chat model of `gbr reproduce --plan`: it sends nothing. A request the replay cache holds is
 * answered from it (as a real run would be); any other is counted — its input tokens exactly,
 * o200k tokens of the system and user messages as rendered — and answered with an empty text,
 * which every method reads as "nothing new" (a rewrite falls back to the input, REACT's planner
 * searches the question itself, the observer keeps nothing). Nothing is written anywhere.
 */
import { replayKey, type ReplayCache } from "../store";
import { countTokens } from "../util/tokens";
import type { ChatModel, ChatRequest, ChatResponse } from "../llm/types";

/**
 * Output tokens assumed per new call: the mean of the answers the replay cache holds for the
 * model, when it holds some, else `fallback`.
 */
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

/**
 * A chat model that answers from the replay cache or counts the request and answers "".
 */
export function planChatModel(
  modelId: string,
  cache: ReplayCache | undefined,
  outputPerCall: number,
  sample = 0,
  tally: (input: number, output: number) => void = () => {},
): ChatModel {
  return {
    id: modelId,
    endpoint: "plan",
    async complete(req: ChatRequest): Promise<ChatResponse> {
      if (cache) {
        const key = replayKey(modelId, req, sample);
        if (cache.has(key)) {
          const hit = await cache.get(key);
          // Cached calls cost nothing: their usage is left out of the plan's token counts.
          if (hit) return { text: hit.response.text, raw: hit.response.raw, usage: { input: 0, output: 0 }, seconds: 0, replayed: true };
        }
      }
      const input = countTokens(req.system) + countTokens(req.user);
      tally(input, outputPerCall);
      return { text: "", raw: "", usage: { input, output: outputPerCall }, seconds: 0 };
    },
  };
}
