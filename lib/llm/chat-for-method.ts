/** The chat model a method is handed: the run's model behind the store, or the plan's stand-in that sends nothing. */
import { replayCache, replayKey, withReplay, type ReplayCache } from "../store";
import { countTokensJoined } from "../text/tokens";
import type { ChatModel, ChatRequest, ChatResponse } from "../models/chat";
import type { PlanMode, RetrieverOptions, RunContext } from "../registry";
import { splitModelId } from "../util/model-id";

/**
 * `--llm` behind the store (`ctx.replay`), or the plan's stand-in; a `--repeat` seed is added outside the store, so it
 * is in the key. `inputs`: the items requests are made from; a plan counts such a request once when they are the benchmark's.
 */
export async function chatForMethod(opts: Pick<RetrieverOptions, "llm" | "sample" | "seed">, ctx: RunContext, inputs?: readonly object[]): Promise<ChatModel> {
  const cache = async () => replayCache(await ctx.store());
  let model: ChatModel;
  if (ctx.plan) {
    const id = ctx.providers.chatId(opts.llm);
    const held = ctx.replay === "off" ? undefined : await cache();
    const guess = await ctx.plan.outputGuess(id, held);
    const exact = inputs !== undefined && ctx.plan.given(inputs);
    model = planChatModel(id, ctx.plan, guess, opts.sample ?? 0, exact, ctx.replay === "refresh" ? undefined : held);
  } else {
    const server = ctx.providers.chat(opts.llm);
    model = ctx.replay === "off" ? server : withReplay(server, await cache(), { mode: ctx.replay, sample: opts.sample, offline: ctx.providers.config.offline });
  }
  if (opts.seed === undefined) return model;
  const inner = model;
  return { ...inner, complete: (req) => inner.complete({ ...req, seed: req.seed ?? opts.seed }) };
}

/** Output tokens assumed per new call: the mean of the model's cached answers, else 1,000. */
export async function outputGuess(cache: ReplayCache | undefined, modelId: string): Promise<{ perCall: number; basis: string }> {
  if (cache) {
    const { provider, model } = splitModelId(modelId);
    let n = 0;
    let sum = 0;
    for await (const r of cache.records()) {
      if (r.provider !== provider || r.model !== model) continue;
      n++;
      sum += r.response.usage?.output ?? 0;
    }
    if (n > 0) return { perCall: Math.round(sum / n), basis: `the mean of the ${n} answers of ${model} in the replay cache` };
  }
  return { perCall: 1000, basis: `assumed: the replay cache holds no answer of this model` };
}

/** o200k tokens, paragraphs counted apart and remembered (the same articles fill thousands of prompts; "[3]" apart too). */
function messageTokens(text: string): number {
  return countTokensJoined(text.split(/(?<=\n\n)|(?<=(?:^|\n)\[\d{1,4}\])(?= )/));
}

/** Answers "" (or the store's answer) and tallies the call's o200k input tokens, with the store's key when `exact`. */
function planChatModel(id: string, plan: PlanMode, perCall: number, sample: number, exact: boolean, cache?: ReplayCache): ChatModel {
  // A request sent again as the same object (REACT's rounds retrieving the same articles) is keyed once.
  const keys = new WeakMap<ChatRequest, string>();
  return {
    id,
    endpoint: "plan",
    async complete(req: ChatRequest): Promise<ChatResponse> {
      let key = keys.get(req);
      if (key === undefined) keys.set(req, (key = replayKey(id, req, sample)));
      if (cache?.has(key)) {
        const hit = await cache.get(key);
        if (hit) return { text: hit.response.text, raw: hit.response.raw, usage: { input: 0, output: 0 }, seconds: 0, replayed: true };
      }
      const input = plan.tokensOf(key, () => messageTokens(req.system) + messageTokens(req.user));
      plan.tally("chat", id, 1, input, perCall, exact ? key : undefined);
      return { text: "", raw: "", usage: { input, output: perCall }, seconds: 0 };
    },
  };
}
