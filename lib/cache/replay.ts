/**
 * The replay cache every chat (LLM) call goes through. Chat calls are the slow, paid and
 * non-deterministic part of the paper's methods (reformulation, translation, REACT-BM25), so each
 * completed call is recorded once, content-addressed by everything that determines its answer,
 * and a later run with the same inputs reads the recorded answer instead of calling the provider.
 * The file is also the unit of sharing: give another researcher the records of a run
 * (`exportReplay`) and they reproduce its numbers bit for bit with `GBR_REPLAY_FILE` pointing at it
 * and no provider at all (`GBR_OFFLINE=1`). Embedding vectors are cached elsewhere (the LanceDB
 * vector store, see lib/dense/vector-store.ts).
 *
 * This module is the cache's one entry point; the parts live in files named for what they do:
 * - replay-record.ts: the request/answer/record types, the key, the line format and its checks;
 * - replay-file.ts: an opened file (index of the newest record per key, durable appends, crash repair);
 * - line-file.ts: streaming a file's lines and the writes and syncs that make a line durable;
 * - replay-model.ts: `withReplay`, the chat model wrapper, and `ReplayMissError`;
 * - replay-share.ts: `exportReplay` and `mergeReplay`, to hand one run's calls to someone else;
 * - file-lock.ts: the cross-process locks (one per key here, one per table in the vector store)
 *   that let several processes share one data folder without repeating a call.
 *
 * The cache imports nothing from lib/llm: its types are structural, and lib/llm's ChatRequest,
 * ChatResponse and ChatModel satisfy them as they are.
 */
export { replayKey, type ReplayRecord, type ReplayRequest, type ReplayResponse } from "./replay-record";
export { defaultReplayFile, openReplayCache, type OpenReplayOptions, type ReplayCache } from "./replay-file";
export {
  ReplayMissError,
  withReplay,
  type ReplayableModel,
  type ReplayAnswer,
  type ReplayingModel,
  type ReplayMode,
  type WithReplayOptions,
} from "./replay-model";
export { exportReplay, mergeReplay, type ReplayFilter } from "./replay-share";
