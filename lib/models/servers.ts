/** What every model client (chat, embedding, rerank) may report of the servers behind it. */
import type { LimitRecord } from "../util/adaptive-limit";

/** One endpoint's requests so far, when a client spreads them over several (lib/providers/endpoints.ts). */
export type EndpointStats = { endpoint: string; sent: number; answered: number; failed: number; lastError?: string };

/** Optional reports of a client: its endpoints' counts, its adaptive in-flight limit and how many requests to keep going. */
export type ServerReports = { endpointStats?(): EndpointStats[]; limitState?(): LimitRecord; readonly capacity?: number };
