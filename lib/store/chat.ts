/**
 * The chat records of the store as the chat layer uses them: `withReplay`, the wrapper every chat
 * call goes through (a recorded answer is replayed, a new one is made once and recorded), the
 * cache view it works on (`ReplayCache`), the error it raises offline when a call was never
 * recorded, and the export and import that share a run's answers.
 *
 * The store may not import lib/llm (DESIGN.md §3), so the model it wraps is described
 * structurally (`ReplayableModel`): lib/llm's ChatModel is one, and the wrapper it gets back is a
 * ChatModel again, so the chat layer passes its models through without adapters.
 */
import { splitModelId } from "../util/model-id";
import { GbrError } from "../util/errors";
import { readConfig } from "../config";
import { checkSample, cleanRecord, copyResponse, pickRequest, replayKey, CHAT, type ReplayRecord, type ReplayRequest, type ReplayResponse } from "./chat-record";
import { exportKind, importFile } from "./jsonl";
import type { Store } from "./store";
import fs from "node:fs";
import path from "node:path";

/**
 * The chat records of a store, by replay key.
 */
export interface ReplayCache {
  /** The store the records live in. */
  readonly store: Store;
  /** Whether a record file exists under `key` (`get` says whether it is valid). */
  has(key: string): boolean;
  /** The valid record under `key`, or undefined. */
  get(key: string): Promise<ReplayRecord | undefined>;
  /** Writes a record (validated, key checked against its content), durably. */
  put(record: ReplayRecord): Promise<void>;
  /** The record under `key`, made by `make` when missing, once across processes (Store.produce). */
  produce(key: string, make: () => Promise<ReplayRecord>): Promise<{ record: ReplayRecord; made: boolean }>;
  /** Every valid record, in key order. */
  records(): AsyncGenerator<ReplayRecord>;
}

/**
 * The chat view of a store.
 */
export function replayCache(store: Store): ReplayCache {
  return {
    store,
    has: (key) => store.has(CHAT, key),
    get: (key) => store.get(CHAT, key),
    put: (record) => store.put(CHAT, cleanRecord(record)),
    produce: (key, make) => store.produce(CHAT, key, async () => cleanRecord(await make())),
    records: () => store.records(CHAT),
  };
}

/**
 * An answer as the wrapper returns it: the recorded fields, and whether it came from the cache
 * (lib/llm's ChatResponse has exactly these fields).
 */
export interface ReplayAnswer extends ReplayResponse {
  /** True when served from the replay cache without a call to the wrapped model. */
  replayed?: boolean;
}

/**
 * What `withReplay` needs of a chat model: its id (part of every key), the endpoint it reports,
 * and `complete`. lib/llm's ChatModel is one.
 */
export interface ReplayableModel {
  /** "<provider>:<model>", e.g. "openai:openai/gpt-oss-120b". */
  readonly id: string;
  /** scheme://host:port of the server the model calls, when it calls one (passed through). */
  readonly endpoint?: string;
  complete(req: ReplayRequest): Promise<ReplayResponse>;
  /** Per-endpoint request counts of a model over several servers (passed through). */
  endpointStats?(): { endpoint: string; sent: number; answered: number; failed: number; lastError?: string }[];
  /** Requests it takes in flight in all (passed through). */
  readonly capacity?: number;
}

/**
 * What `withReplay` does with the cache.
 */
export type ReplayMode = "use" | "refresh" | "off";

/**
 * Options of `withReplay`.
 */
export interface WithReplayOptions {
  /**
   * "use" (default): answer from the cache when the call is recorded, else call and record.
   * "refresh" (the CLI's `--no-cache`): always call and record; the new record supersedes the old.
   * "off": neither read nor write the cache.
   */
  mode?: ReplayMode;
  /**
   * Sample index, part of the key. For `--repeat N --seed S`, repetition i (0-based) wraps the
   * model with `sample: i` and sends `seed: S + i`, so the N samples are cached separately even
   * with a provider that ignores seeds.
   */
  sample?: number;
  /**
   * Never call the wrapped model: a call not in the cache throws `ReplayMissError`.
   * Default: env `GBR_OFFLINE` is "1" or "true" (read at each call).
   */
  offline?: boolean;
}

/**
 * A model wrapped by `withReplay` (a ChatModel to lib/llm), which also knows the keys it served
 * or recorded.
 */
export interface ReplayingModel extends ReplayableModel {
  /** Keys of every call made through this wrapper (not in mode "off"): what `exportReplay` needs to share one run. */
  readonly keys: ReadonlySet<string>;
  complete(req: ReplayRequest): Promise<ReplayAnswer>;
}

/**
 * Raised in offline mode when a call has no recorded answer; names the key and the store so the
 * missing record can be found (or the run repeated online). Its `code` is always
 * "NOT_CONFIGURED", the value lib/llm's ChatError uses for a provider that is not configured, so
 * callers that switch on the code treat a missing record like a missing provider.
 */
export class ReplayMissError extends GbrError {
  /** Stable, for callers to switch on: the answer is not here, as a provider not configured is not. */
  declare readonly code: "NOT_CONFIGURED";

  constructor(
    readonly key: string,
    /** The store folder that was asked. */
    readonly file: string,
    modelId: string,
    why = "no recorded answer",
  ) {
    super(
      `offline (GBR_OFFLINE): ${why} for a call to ${modelId}, replay key ${key}, in the store ${file}; ` +
        `import a file that holds it (GBR_REPLAY_FILE, or gbr replay import FILE), or unset GBR_OFFLINE to call the provider`,
      "NOT_CONFIGURED",
      { unavailable: true },
    );
    this.name = "ReplayMissError";
  }
}

/**
 * Wraps a chat model so every call goes through the store's chat records (see
 * `WithReplayOptions` for the modes). A replayed answer has `replayed: true` and the original
 * call's text, raw text, usage and seconds; a fresh answer is recorded (fsynced) before it is
 * returned, and is returned exactly as recorded. In mode "use" a new call is claimed first
 * (`Store.produce`): identical calls of this process or of another sharing the data folder wait
 * for the one being made and replay its record (`replayed: true`, so costs are not counted twice).
 */
export function withReplay(model: ReplayableModel, cache: ReplayCache, opts: WithReplayOptions = {}): ReplayingModel {
  const mode = opts.mode ?? "use";
  const sample = opts.sample ?? 0;
  checkSample(sample);
  if (mode !== "use" && mode !== "refresh" && mode !== "off") throw new TypeError(`withReplay: unknown mode '${String(mode)}'`);
  const keys = new Set<string>();
  const { provider, model: modelName } = splitModelId(model.id);
  const where = cache.store.dir;
  const offline = opts.offline ?? offlineFromEnv();

  const call = async (key: string, req: ReplayRequest): Promise<ReplayRecord> => {
    const response = copyResponse(await model.complete(req));
    return { key, provider, model: modelName, request: pickRequest(req), sample, response, at: new Date().toISOString() };
  };

  return {
    id: model.id,
    endpoint: model.endpoint,
    ...(model.endpointStats ? { endpointStats: () => model.endpointStats!() } : {}),
    ...(model.capacity !== undefined ? { capacity: model.capacity } : {}),
    keys,
    async complete(req: ReplayRequest): Promise<ReplayAnswer> {
      const key = replayKey(model.id, req, sample);
      if (mode === "off") {
        if (offline) throw new ReplayMissError(key, where, model.id, "the replay cache is off");
        return model.complete(req);
      }
      keys.add(key);
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

/**
 * The JSONL file of chat records a run replays from, when one is set: `GBR_REPLAY_FILE`
 * (an export, or a v0.8 replay file), imported into the store when the run opens it.
 */
export function defaultReplayFile(): string | undefined {
  return readConfig().replayFile;
}

/**
 * Which records `exportReplay` writes: a set of keys (e.g. `model.keys`) or a predicate.
 */
export type ReplayFilter = Iterable<string> | ((record: ReplayRecord) => boolean);

/**
 * Writes the selected chat records (all when no filter) as one key-sorted JSONL file, to hand to
 * another researcher: they import it (`gbr replay import FILE`, or `GBR_REPLAY_FILE=FILE`, with
 * `GBR_OFFLINE=1` to be sure nothing is called) and get the same answers, hence the same
 * numbers. `missing` lists requested keys the store does not hold.
 */
export async function exportReplay(cache: ReplayCache, outFile: string, filter?: ReplayFilter): Promise<{ file: string; records: number; missing: string[] }> {
  const wanted = filter === undefined || typeof filter === "function" ? undefined : new Set(filter);
  const keep = typeof filter === "function" ? filter : (r: ReplayRecord) => wanted === undefined || wanted.has(r.key);
  const found = new Set<string>();
  const { file, records } = await exportKind(cache.store, CHAT, outFile, (r) => keep(r) && (found.add(r.key), true));
  return { file, records, missing: wanted ? [...wanted].filter((k) => !found.has(k)) : [] };
}

/**
 * Imports a JSONL file of chat records (an export, or a v0.8 replay file) into the store, keeping
 * the store's own records; damaged lines are reported through `log` and skipped.
 */
export async function mergeReplay(into: ReplayCache, fromFile: string, opts: { log?: (m: string) => void } = {}): Promise<{ added: number; skipped: number }> {
  const from = path.resolve(fromFile);
  // A missing source is a mistake (a typo in a path), not an empty file.
  await fs.promises.access(from, fs.constants.R_OK);
  const { added, skipped } = await importFile(into.store, CHAT, from, opts);
  return { added, skipped };
}

function offlineFromEnv(): boolean {
  return readConfig().offline;
}
