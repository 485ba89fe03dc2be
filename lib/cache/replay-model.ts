/**
 * The chat model wrapper that sends every call through the replay cache (`withReplay`), and the
 * error it raises offline when a call was never recorded.
 *
 * The cache may not import lib/llm (DESIGN.md §3), so the model it wraps is described
 * structurally (`ReplayableModel`): lib/llm's ChatModel is one, and the wrapper it gets back is a
 * ChatModel again, so the chat layer passes its models through without adapters.
 */
import { splitModelId } from "../util/model-id";
import type { ReplayCache } from "./replay-file";
import { checkSample, copyResponse, pickRequest, replayKey, type ReplayRequest, type ReplayResponse } from "./replay-record";
import { GbrError } from "../util/errors";
import { readConfig } from "../config";

/**
 * An answer as the wrapper returns it: the recorded fields, and whether it came from the cache
 * (lib/llm's ChatResponse has exactly these fields).
 *
 * @example
 * const r: ReplayAnswer = await llm.complete(req);
 * if (r.replayed) console.log(`from the cache, originally ${r.seconds} s`);
 */
export interface ReplayAnswer extends ReplayResponse {
  /** True when served from the replay cache without a call to the wrapped model. */
  replayed?: boolean;
}

/**
 * What `withReplay` needs of a chat model: its id (part of every key), the endpoint it reports,
 * and `complete`. lib/llm's ChatModel is one.
 *
 * @example
 * const echo: ReplayableModel = {
 *   id: "test:echo",
 *   complete: async (req) => ({ text: req.user, raw: req.user, usage: { input: 1, output: 1 }, seconds: 0 }),
 * };
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
 *
 * @example
 * const mode: ReplayMode = flags.noCache ? "refresh" : "use";
 */
export type ReplayMode = "use" | "refresh" | "off";

/**
 * Options of `withReplay`.
 *
 * @example
 * withReplay(model, cache, { mode: "use", sample: 2, offline: false });
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
 *
 * @example
 * const llm: ReplayingModel = withReplay(chatModel, cache);
 * await exportReplay(cache, "run.replay.jsonl", llm.keys);
 */
export interface ReplayingModel extends ReplayableModel {
  /** Keys of every call made through this wrapper (not in mode "off"): what `exportReplay` needs to share one run. */
  readonly keys: ReadonlySet<string>;
  complete(req: ReplayRequest): Promise<ReplayAnswer>;
}

/**
 * Raised in offline mode when a call has no recorded answer; names the key and the file so the
 * missing record can be found (or the run repeated online). Its `code` is always
 * "NOT_CONFIGURED", the value lib/llm's ChatError uses for a provider that is not configured, so
 * callers that switch on the code treat a missing record like a missing provider.
 *
 * @example
 * try { await model.complete(req); } catch (e) { if (e instanceof ReplayMissError) console.log(e.code, e.key, e.file); }
 */
export class ReplayMissError extends GbrError {
  /** Stable, for callers to switch on: the answer is not here, as a provider not configured is not. */
  declare readonly code: "NOT_CONFIGURED";

  constructor(
    readonly key: string,
    readonly file: string,
    modelId: string,
    why = "no recorded answer",
  ) {
    super(
      `offline (GBR_OFFLINE): ${why} for a call to ${modelId}, replay key ${key}, in ${file}; ` +
        `point GBR_REPLAY_FILE at a file that holds it, or unset GBR_OFFLINE to call the provider`,
      "NOT_CONFIGURED",
      { unavailable: true },
    );
    this.name = "ReplayMissError";
  }
}

/**
 * Wraps a chat model so every call goes through the replay cache (see `WithReplayOptions` for the
 * modes). A replayed answer has `replayed: true` and the original call's text, raw text, usage
 * and seconds; a fresh answer is recorded (fsync'd) before it is returned, and is returned exactly
 * as recorded. In mode "use", identical calls in flight at once share one provider call (the
 * others get it with `replayed: true`, so costs are not counted twice), and so do identical calls
 * of two processes sharing the file: the call is made holding the key's lock
 * (`ReplayCache.withKeyLock`), and a process that had to wait reads the other's record instead.
 *
 * @example
 * const cache = await openReplayCache();
 * const llm = withReplay(chatModel, cache, { mode: flags.noCache ? "refresh" : "use" });
 * const r = await llm.complete({ system, user, temperature: 0.2, topP: 1 }); // second run: r.replayed === true
 * await exportReplay(cache, "outputs/run-42.replay.jsonl", llm.keys);
 */
export function withReplay(model: ReplayableModel, cache: ReplayCache, opts: WithReplayOptions = {}): ReplayingModel {
  const mode = opts.mode ?? "use";
  const sample = opts.sample ?? 0;
  checkSample(sample);
  if (mode !== "use" && mode !== "refresh" && mode !== "off") throw new TypeError(`withReplay: unknown mode '${String(mode)}'`);
  const keys = new Set<string>();
  const { provider, model: modelName } = splitModelId(model.id);

  const callAndStore = async (key: string, req: ReplayRequest): Promise<ReplayResponse> => {
    const res = await model.complete(req);
    const response = copyResponse(res);
    await cache.put({ key, provider, model: modelName, request: pickRequest(req), sample, response, at: new Date().toISOString() });
    return response;
  };
  // Under the key's cross-process lock: another process may have recorded the answer while this
  // one waited for the lock (or before it looked), so the file is read again first.
  const sharedCall = (key: string, req: ReplayRequest): Promise<Flight> =>
    cache.withKeyLock(key, async () => {
      await cache.refresh();
      if (cache.has(key)) {
        const hit = await cache.get(key);
        if (hit) return { response: copyResponse(hit.response), replayed: true };
      }
      return { response: await callAndStore(key, req), replayed: false };
    });

  return {
    id: model.id,
    endpoint: model.endpoint,
    ...(model.endpointStats ? { endpointStats: () => model.endpointStats!() } : {}),
    ...(model.capacity !== undefined ? { capacity: model.capacity } : {}),
    keys,
    async complete(req: ReplayRequest): Promise<ReplayAnswer> {
      const offline = opts.offline ?? offlineFromEnv();
      const key = replayKey(model.id, req, sample);
      if (mode === "off") {
        if (offline) throw new ReplayMissError(key, cache.file, model.id, "the replay cache is off");
        return model.complete(req);
      }
      keys.add(key);
      const flights = inflightFor(cache);
      if (mode === "use") {
        // Checked synchronously before any await, with the in-flight table, so two identical calls
        // can never both miss: a record is indexed before its flight is removed.
        if (cache.has(key)) {
          const hit = await cache.get(key);
          if (hit) return { ...copyResponse(hit.response), replayed: true };
        }
        const flying = flights.get(key);
        if (flying) return { ...copyResponse((await flying).response), replayed: true };
      }
      if (offline) throw new ReplayMissError(key, cache.file, model.id, mode === "refresh" ? "refresh (--no-cache) needs the provider" : "no recorded answer");
      // "refresh" asks for a new answer whatever is recorded, so it neither waits for nor replays another process's.
      const flight = mode === "use" ? sharedCall(key, req) : callAndStore(key, req).then((response) => ({ response, replayed: false }));
      if (mode === "use") flights.set(key, flight);
      try {
        const { response, replayed } = await flight;
        return { ...copyResponse(response), replayed };
      } finally {
        if (flights.get(key) === flight) flights.delete(key);
      }
    },
  };
}

/** A call's answer, and whether it came from the file (recorded by another process meanwhile). */
interface Flight {
  response: ReplayResponse;
  replayed: boolean;
}

/** Cache -> calls in flight, shared by every wrapper over the same cache. */
const inflight = new WeakMap<ReplayCache, Map<string, Promise<Flight>>>();
function inflightFor(cache: ReplayCache): Map<string, Promise<Flight>> {
  let m = inflight.get(cache);
  if (!m) inflight.set(cache, (m = new Map()));
  return m;
}

function offlineFromEnv(): boolean {
  return readConfig().offline;
}
