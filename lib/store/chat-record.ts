/** One chat record of the store: a request and answer of the chat port, with its content address. */
import { createHash } from "node:crypto";
import type { ChatRequest, ChatResponse } from "../models/chat";
import type { RecordKind } from "./store";

export type ReplayRequest = ChatRequest;

export type ReplayResponse = Omit<ChatResponse, "replayed">;

/** One completed call: a chat record of the store, a line of an export or of v0.8's replay file. */
export interface ReplayRecord {
  /** `replayKey(provider:model, request, sample)`; checked on every write and read. */
  key: string;
  provider: string;
  model: string;
  request: ReplayRequest;
  sample: number;
  response: ReplayResponse;
  at: string;
}

/** A call's content address: sha256 of the JSON of its fields, unset as `null` (as v0.8); NaN throws (it hashes as unset). */
export function replayKey(modelId: string, req: ReplayRequest, sample = 0): string {
  checkSample(sample);
  const num = (name: string, v: number | undefined) => {
    if (v === undefined || v === null) return null;
    if (typeof v !== "number" || !Number.isFinite(v)) throw new TypeError(`replayKey: ${name} must be a finite number, got ${String(v)}`);
    return v;
  };
  const parts = [
    modelId,
    req.system,
    req.user,
    num("maxTokens", req.maxTokens),
    num("temperature", req.temperature),
    num("topP", req.topP),
    req.reasoningEffort ?? null,
    num("seed", req.seed),
    sample,
  ];
  return createHash("sha256").update(JSON.stringify(parts), "utf8").digest("hex");
}

export function checkSample(sample: number): void {
  if (!Number.isSafeInteger(sample) || sample < 0) throw new TypeError(`replay: sample must be a non-negative integer, got ${String(sample)}`);
}

/** The request fields copied one by one in a fixed order; nothing else (API key, client) reaches the store. */
export function pickRequest(req: ReplayRequest): ReplayRequest {
  const out: ReplayRequest = { system: req.system, user: req.user };
  for (const f of ["maxTokens", "temperature", "topP", "reasoningEffort", "seed"] as const) {
    if (req[f] !== undefined) Object.assign(out, { [f]: req[f] });
  }
  return out;
}

/** The recorded answer fields of a response, nothing else. */
export function copyResponse(r: ReplayResponse): ReplayResponse {
  return {
    text: r.text,
    raw: r.raw,
    usage: { input: r.usage?.input, output: r.usage?.output },
    seconds: r.seconds,
    ...(typeof r.servedModel === "string" && r.servedModel ? { servedModel: r.servedModel } : {}),
    ...(r.standIn === true ? { standIn: true } : {}),
  };
}

export const CHAT: RecordKind<ReplayRecord> = {
  name: "chat",
  // The model id split by splitModelId, joined back ("" provider: the bare model).
  keyOf: (r) => replayKey(r.provider === "" ? r.model : `${r.provider}:${r.model}`, r.request, r.sample),
  problem: recordProblem,
};

function recordProblem(v: unknown): string | undefined {
  if (typeof v !== "object" || v === null || Array.isArray(v)) return "not a JSON object";
  const r = v as Record<string, unknown>;
  if (typeof r.key !== "string" || !/^[0-9a-f]{64}$/.test(r.key)) return "no valid key";
  if (typeof r.provider !== "string" || typeof r.model !== "string") return "no provider/model";
  if (typeof r.sample !== "number" || !Number.isSafeInteger(r.sample) || r.sample < 0) return "no valid sample";
  if (typeof r.at !== "string") return "no date";
  const q = r.request as Record<string, unknown> | undefined;
  if (typeof q !== "object" || q === null || typeof q.system !== "string" || typeof q.user !== "string") return "no valid request";
  for (const f of ["maxTokens", "temperature", "topP", "seed"] as const) {
    if (q[f] !== undefined && (typeof q[f] !== "number" || !Number.isFinite(q[f]))) return `request.${f} is not a finite number`;
  }
  const effort = q.reasoningEffort as string | undefined;
  if (![undefined, "low", "medium", "high"].includes(effort)) return "request.reasoningEffort is not low/medium/high";
  const s = r.response as Record<string, unknown> | undefined;
  if (typeof s !== "object" || s === null || typeof s.text !== "string" || typeof s.raw !== "string") return "no valid response text";
  const u = s.usage as Record<string, unknown> | undefined;
  if (typeof u !== "object" || u === null || typeof u.input !== "number" || typeof u.output !== "number") return "no valid response usage";
  if (typeof s.seconds !== "number" || !Number.isFinite(s.seconds)) return "no valid response seconds";
  return undefined;
}
