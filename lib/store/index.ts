/**
 * The one store of what must survive a run (store.ts): chat answers (chat.ts, chat-record.ts),
 * cross-encoder scores (rerank.ts), one JSON file per content-addressed record, written
 * atomically, made once across processes, validated on read; shared as key-sorted JSONL
 * (jsonl.ts); a v0.8 data folder's caches migrated on open (data-store.ts).
 */
export { openStore, diskFull, type RecordKind, type Store, type StoreOptions } from "./store";
export { openDataStore, openReplayCache, type DataStoreOptions } from "./data-store";
export { replayKey, CHAT, type ReplayRecord, type ReplayRequest, type ReplayResponse } from "./chat-record";
export {
  defaultReplayFile,
  exportReplay,
  mergeReplay,
  replayCache,
  ReplayMissError,
  withReplay,
  type ReplayableModel,
  type ReplayAnswer,
  type ReplayCache,
  type ReplayFilter,
  type ReplayingModel,
  type ReplayMode,
  type WithReplayOptions,
} from "./chat";
export { openScoreCache, pairKey, RERANK, type CachedScore, type ScoreCache } from "./rerank";
export { exportKind, importFile } from "./jsonl";
