/** What an LLM run records, built from the requests made (not intended settings): a recorded parameter was sent. */
import type { LlmRunInfo, RunCost, Work } from "../types";
import { splitModelId } from "../util/model-id";
import { zeroWork } from "../eval/run-cost";
import { type ExtraPromptName, type PromptName, type PromptSet } from "./prompts";
import { digestOf } from "../util/safe-files";
import type { ChatModel, ChatParams, ChatUsage } from "../models/chat";

/** One request a method made (`reused`: or whose saved answer it took); `role`: planner, rewrite-sparse, … */
export type RequestEntry = { role: string; params: ChatParams; reused: boolean; servedModel?: string; standIn?: boolean };

/** Distinct generation parameters per role with request counts (first-seen order), and how many were reused. */
function tallyRequests(entries: readonly RequestEntry[]): Pick<LlmRunInfo, "requests" | "reused" | "servedModels" | "standIn"> {
  const requests: LlmRunInfo["requests"] = {};
  const rows = new Map<string, Record<string, string | number> & { calls: number }>();
  for (const e of entries) {
    // Keys in a fixed order, so equal parameters always meet whatever order they were set in.
    const fields = Object.entries(e.params).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    const key = JSON.stringify([e.role, fields]);
    const row = rows.get(key);
    if (row) row.calls++;
    else {
      const fresh = { ...Object.fromEntries(fields), calls: 1 };
      rows.set(key, fresh);
      (requests[e.role] ??= []).push(fresh);
    }
  }
  const servedModels = [...new Set(entries.flatMap((e) => (e.servedModel ? [e.servedModel] : [])))];
  return { requests, reused: entries.filter((e) => e.reused).length, servedModels, standIn: entries.some((e) => e.standIn) };
}

export function llmRunInfo(model: ChatModel, set: PromptSet, used: readonly string[], entries: readonly RequestEntry[]): LlmRunInfo {
  const { provider, model: name } = splitModelId(model.id);
  const sha256: Record<string, string> = {};
  for (const name of used) {
    const text = set.texts[name as PromptName] ?? set.extras[name as ExtraPromptName];
    if (text !== undefined) sha256[name] = digestOf(text);
  }
  return {
    model: name,
    provider: provider || "unknown",
    endpoint: model.endpoint ?? "(none)",
    prompts: { name: set.name, commit: set.commit ?? null, sha256 },
    parser: set.name,
    ...tallyRequests(entries),
    ...(model.endpointStats ? { endpoints: model.endpointStats() } : {}),
  };
}

export function llmWork(usages: Iterable<ChatUsage>): Work {
  const w = zeroWork();
  for (const u of usages) {
    w.llmCalls++;
    w.llmInput += u.input;
    w.llmOutput += u.output;
  }
  return w;
}

/**
 * A chat method's work: its calls online in `seconds`, and the one-time `corpus` work (translated articles).
 *
 * @example
 * llmCost(model.id, responses.map((r) => r.usage), seconds);
 */
export function llmCost(modelId: string, usages: Iterable<ChatUsage>, seconds: number, corpus: Work = zeroWork()): RunCost {
  return { online: { ...llmWork(usages), seconds }, corpus, llmModel: splitModelId(modelId).model };
}
