/** The one store of what must survive a run: chat answers and cross-encoder scores (shared as key-sorted JSONL), vectors. */
export { openStore, type RecordKind, type Store } from "./store";
export { openDataStore, openReplayCache } from "./data-store";
export { replayKey, CHAT, type ReplayRecord, type ReplayRequest } from "./chat-record";
export { exportReplay, mergeReplay, replayCache, ReplayMissError, withReplay, type ReplayCache } from "./chat";
export { openScoreCache, pairKey, type CachedScore, type ScoreCache } from "./rerank";
