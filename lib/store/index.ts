/** The one store of what must survive a run: chat answers and cross-encoder scores (shared as key-sorted JSONL), vectors. */
export { openStore, type RecordKind, type Store, type StoreOptions } from "./store";
export { openDataStore, openReplayCache, type DataStoreOptions } from "./data-store";
export { replayKey, CHAT, type ReplayRecord, type ReplayRequest, type ReplayResponse } from "./chat-record";
export {
  exportReplay,
  mergeReplay,
  replayCache,
  ReplayMissError,
  withReplay,
  type ReplayCache,
  type ReplayFilter,
  type ReplayingModel,
  type ReplayMode,
  type WithReplayOptions,
} from "./chat";
export { openScoreCache, pairKey, RERANK, type CachedScore, type ScoreCache } from "./rerank";
export { exportKind, importFile } from "./jsonl";
export { openVectorStore, VectorStoreError, type VectorRow, type VectorStore } from "./vector-store";
