/** Cross-encoder pair scores: a store record per rerank request (hundreds, not tens of thousands), pairs in memory. */
import { createHash } from "node:crypto";
import type { RecordKind, Store } from "./store";

/** A pair's score, its share of the request's seconds, and whether the test double scored it. */
export type CachedScore = { score: number; seconds?: number; standIn: boolean };

/** A CachedScore as stored, in short names: k key, s score, t seconds, d stand-in. */
type StoredPair = { k: string; s: number; t?: number; d?: boolean };

export type RerankRecord = { key: string; scores: StoredPair[] };

/** The content address of a group of pairs (a request): sha256 of the JSON array of their keys. */
function groupKey(pairKeys: readonly string[]): string {
  return createHash("sha256").update(JSON.stringify(pairKeys)).digest("hex");
}

export const RERANK: RecordKind<RerankRecord> = {
  name: "rerank",
  keyOf: (r) => groupKey(r.scores.map((p) => p.k)),
  problem(v) {
    const r = v as RerankRecord | null;
    if (!r || typeof r !== "object" || typeof r.key !== "string" || !Array.isArray(r.scores)) return 'expected {"key", "scores": [...]}';
    for (const p of r.scores) {
      if (!p || typeof p.k !== "string" || !/^[0-9a-f]{64}$/.test(p.k)) return "a pair without a valid key";
      if (typeof p.s !== "number" || !Number.isFinite(p.s)) return `the score of ${p.k} is not a finite number`;
      if (p.t !== undefined && !(typeof p.t === "number" && Number.isFinite(p.t) && p.t >= 0)) return `the seconds of ${p.k} are not a number >= 0`;
      if (p.d !== undefined && typeof p.d !== "boolean") return `the stand-in mark of ${p.k} is not true or false`;
    }
    return undefined;
  },
};

/** One pair's key: sha256 of JSON [preset fingerprint, query, whole article], so texts cannot forge a separator. */
export function pairKey(fingerprint: string, query: string, article: string): string {
  return createHash("sha256").update(JSON.stringify([fingerprint, query, article])).digest("hex");
}

/** The pair scores of a store: lookups in memory, and requests made once. */
export type ScoreCache = Awaited<ReturnType<typeof openScoreCache>>;
type Keyed = CachedScore & { key: string };

/** Opens the pair scores of a store; with `readOnly` (the plan) nothing is written and `produce` just scores. */
export async function openScoreCache(store: Store, opts: { readOnly?: boolean } = {}) {
  const scores = new Map<string, CachedScore>();
  const learn = (r: RerankRecord) => {
    for (const p of r.scores) scores.set(p.k, fromStored(p));
  };
  for await (const r of store.records(RERANK)) learn(r);
  return {
    get size() {
      return scores.size;
    },
    get: (key: string) => scores.get(key),
    /** A request's scores: stored ones if any process made it, else `score`'s (once across processes), then stored. */
    async produce(keys: readonly string[], score: () => Promise<Keyed[]>): Promise<{ entries: Keyed[]; made: boolean }> {
      if (opts.readOnly) return { entries: await score(), made: true };
      const { record, made } = await store.produce(RERANK, groupKey(keys), async () => {
        const entries = await score();
        return { key: groupKey(entries.map((e) => e.key)), scores: entries.map(toStored) };
      });
      learn(record);
      return { entries: record.scores.map((p) => ({ key: p.k, ...fromStored(p) })), made };
    },
  };
}

function toStored(e: Keyed): StoredPair {
  // Microseconds are plenty for a share of an HTTP request's time, and keep records short.
  return { k: e.key, s: e.score, ...(e.seconds !== undefined ? { t: Math.round(e.seconds * 1e6) / 1e6 } : {}), ...(e.standIn ? { d: true } : {}) };
}

function fromStored(p: StoredPair): CachedScore {
  return { score: p.s, standIn: p.d === true, ...(p.t !== undefined ? { seconds: p.t } : {}) };
}

/** v0.8 score-cache pair lines as rerank records of up to 500 pairs (lookups are by pair, so grouping is free). */
export async function* pairLinesToRecords(lines: AsyncIterable<unknown>): AsyncGenerator<RerankRecord> {
  let group: StoredPair[] = [];
  const flush = (): RerankRecord => {
    const r = { key: groupKey(group.map((p) => p.k)), scores: group };
    group = [];
    return r;
  };
  for await (const v of lines) {
    const p = v as StoredPair;
    if (RERANK.problem({ key: "", scores: [p] }) !== undefined) continue;
    group.push({ k: p.k, s: p.s, ...(p.t !== undefined ? { t: p.t } : {}), ...(p.d ? { d: true } : {}) });
    if (group.length === 500) yield flush();
  }
  if (group.length) yield flush();
}
