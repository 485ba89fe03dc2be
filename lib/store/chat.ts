/** The store's chat records as the chat layer uses them: `withReplay`, offline misses, export, import. */
import { splitModelId } from "../util/model-id";
import { GbrError } from "../util/errors";
import { checkSample, copyResponse, pickRequest, replayKey, CHAT, type ReplayRecord, type ReplayRequest } from "./chat-record";
import { exportKind, importFile } from "./jsonl";
import type { Store } from "./store";
import type { ChatModel, ChatRequest, ChatResponse } from "../models/chat";
import path from "node:path";

export type ReplayCache = ReturnType<typeof replayCache>;

export function replayCache(store: Store) {
  return {
    store,
    has: (key: string) => store.has(CHAT, key),
    get: (key: string) => store.get(CHAT, key),
    put: (record: ReplayRecord) => store.put(CHAT, record),
    produce: (key: string, make: () => Promise<ReplayRecord>) => store.produce(CHAT, key, make),
    records: () => store.records(CHAT),
  };
}

export type ReplayMode = "use" | "refresh" | "off";

/** Modes: "use" (default) replays, else calls and records; "refresh" (`--no-cache`) calls and supersedes; "off". */
export interface WithReplayOptions {
  mode?: ReplayMode;
  /** Part of the key, so `--repeat` samples are cached apart even where a provider ignores seeds. */
  sample?: number;
  /** GBR_OFFLINE: never call the model (a miss throws `ReplayMissError`). */
  offline?: boolean;
}

/** A call with no recorded answer offline. */
export class ReplayMissError extends GbrError {
  /** ChatError's code for a provider not configured: callers treat a miss like one. */
  declare readonly code: "NOT_CONFIGURED";

  constructor(readonly key: string, readonly file: string, modelId: string, why = "no recorded answer") {
    super(
      `offline (GBR_OFFLINE): ${why} for a call to ${modelId}, replay key ${key}, in the store ${file}; ` +
        `import a file that holds it (GBR_REPLAY_FILE, or gbr replay import FILE), or unset GBR_OFFLINE to call the provider`,
      "NOT_CONFIGURED",
      { unavailable: true },
    );
    this.name = "ReplayMissError";
  }
}

/** A chat model whose calls go through the store: recorded before they return, claimed so identical calls wait and replay. */
export function withReplay(model: ChatModel, cache: ReplayCache, opts: WithReplayOptions = {}): ChatModel {
  const mode = opts.mode ?? "use";
  const sample = opts.sample ?? 0;
  checkSample(sample);
  const { provider, model: modelName } = splitModelId(model.id);
  const where = cache.store.dir;
  const offline = opts.offline ?? false;

  const call = async (key: string, req: ReplayRequest): Promise<ReplayRecord> => {
    const response = copyResponse(await model.complete(req));
    return { key, provider, model: modelName, request: pickRequest(req), sample, response, at: new Date().toISOString() };
  };

  return {
    id: model.id,
    endpoint: model.endpoint,
    ...(model.endpointStats ? { endpointStats: () => model.endpointStats!() } : {}),
    ...(model.capacity !== undefined ? { capacity: model.capacity } : {}),
    async complete(req: ChatRequest): Promise<ChatResponse> {
      const key = replayKey(model.id, req, sample);
      if (mode === "off") {
        if (offline) throw new ReplayMissError(key, where, model.id, "the replay cache is off");
        return model.complete(req);
      }
      if (mode === "refresh") {
        // A new answer whatever is recorded: neither waits for nor replays another process's.
        if (offline) throw new ReplayMissError(key, where, model.id, "refresh (--no-cache) needs the provider");
        const record = await call(key, req);
        await cache.put(record);
        return { ...copyResponse(record.response), replayed: false };
      }
      if (offline) {
        const hit = await cache.get(key);
        if (!hit) throw new ReplayMissError(key, where, model.id);
        return { ...copyResponse(hit.response), replayed: true };
      }
      const { record, made } = await cache.produce(key, () => call(key, req));
      return { ...copyResponse(record.response), replayed: !made };
    },
  };
}

/** The chat records `keep` selects (all by default) as key-sorted JSONL. */
export function exportReplay(cache: ReplayCache, outFile: string, keep?: (record: ReplayRecord) => boolean): Promise<{ file: string; records: number }> {
  return exportKind(cache.store, CHAT, outFile, keep);
}

/** Imports a chat-record JSONL (an export or a v0.8 replay file) keeping the store's own; damaged lines skipped. */
export async function mergeReplay(into: ReplayCache, fromFile: string, opts: { log?: (m: string) => void } = {}): Promise<{ added: number; skipped: number }> {
  // A missing file fails on its first read, naming it (not read as empty).
  const { added, skipped } = await importFile(into.store, CHAT, path.resolve(fromFile), opts);
  return { added, skipped };
}
