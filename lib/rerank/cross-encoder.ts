/** Cross-encoder re-ranking of a first-stage run; each answered request's scores are cached at once (runs resume). */
import { DEFAULT_CONCURRENCY } from "../config";
import type { DocId, Query, Ranking, RerankRunInfo, Run, Work } from "../types";
import { GbrError } from "../util/errors";
import { addWork, zeroWork } from "../eval/run-cost";
import { dedupeCut } from "../eval/metrics";
import { createSemaphore } from "../util/semaphore";
import { AdaptiveLimit } from "../util/adaptive-limit";
import type { RerankClient } from "../models/rerank";
import { renderRerankDocument, renderRerankQuery, rerankFingerprint, type RerankPreset } from "./presets";
import { pairKey, type CachedScore, type ScoreCache } from "../store";

export interface CrossEncoderOptions {
  /** Articles of the first stage re-scored per query (default 100). */
  depth?: number;
  k?: number;
  cache?: ScoreCache;
  log?: (message: string) => void;
  onProgress?: (label: string, done: number, total: number) => void;
  /** Requests in flight (default: the client's capacity, else 4). */
  concurrency?: number;
  /** The run's retriever name (default "rerank:<preset>:<first stage's retriever>"). */
  name?: string;
}

/**
 * Scores descending, ties in first-stage order (common: repealed duplicates, saturated sigmoids), then the rest, cut to
 * `k`. Cost as made, cached or not (ceil(pairs / batchSize) calls a query); `scores` only if every article was scored.
 */
export async function crossEncoderRerankRun(
  preset: RerankPreset,
  client: RerankClient,
  queries: readonly Query[],
  firstStage: Run,
  docText: ReadonlyMap<DocId, string>,
  opts: CrossEncoderOptions = {},
): Promise<Run> {
  const depth = opts.depth ?? 100;
  const k = opts.k ?? 100;
  const concurrency = opts.concurrency ?? client.capacity ?? DEFAULT_CONCURRENCY.rerank;
  const batchSize = preset.batchSize;
  const fingerprint = rerankFingerprint(preset);
  const label = `rerank ${preset.name}`;

  // Plan: every query's head, its pair keys, and the batches of pairs nobody has scored yet.
  const plans: { query: Query; head: DocId[]; tail: DocId[]; keys: string[] }[] = [];
  const known = new Map<string, CachedScore>();
  const planned = new Set<string>();
  const batches: { query: string; documents: string[]; keys: string[] }[] = [];
  const cut = new Set<DocId>();
  let pairs = 0;
  let rerankCalls = 0;
  for (const query of queries) {
    const ranking = firstStage.rankings.get(query.id);
    if (!ranking) throw new GbrError(`${label}: the first stage (${firstStage.info?.retriever ?? "unnamed"}) has no ranking for query '${query.id}'`, "RERANK_INPUT");
    const unique = dedupeCut(ranking, Infinity);
    const head = unique.slice(0, depth);
    const keys: string[] = [];
    let pending: (typeof batches)[number] | undefined;
    for (const id of head) {
      const article = docText.get(id);
      if (article === undefined) throw new GbrError(`${label}: article '${id}' (ranked for query '${query.id}') is not in the corpus given`, "RERANK_INPUT");
      const key = pairKey(fingerprint, query.text, article);
      keys.push(key);
      if (article.length > preset.maxDocumentChars) cut.add(id);
      if (known.has(key) || planned.has(key)) continue;
      const cached = opts.cache?.get(key);
      if (cached) {
        known.set(key, cached);
        continue;
      }
      planned.add(key);
      if (!pending || pending.keys.length === batchSize) {
        pending = { query: renderRerankQuery(preset, query.text), documents: [], keys: [] };
        batches.push(pending);
      }
      pending.documents.push(renderRerankDocument(preset, article));
      pending.keys.push(key);
    }
    plans.push({ query, head, tail: unique.slice(depth), keys });
    pairs += head.length;
    rerankCalls += Math.ceil(head.length / batchSize);
  }

  // A failure stops new requests, lets those in flight land in the cache, and is then thrown.
  const limit = createSemaphore(concurrency);
  // A 429 or 503 halves the requests in flight, a run of successes adds one back.
  const adaptive = new AdaptiveLimit(limit, concurrency);
  const stopObserving = client.onStatus?.((status) => adaptive.observe(status));
  const servedModels = new Set<string>();
  let failure: { err: unknown } | undefined;
  let calls = 0;
  let standInNow = false;
  let overLimit = 0;
  // Pairs another process scored while this one planned (their request was claimed there).
  let reusedNow = 0;
  const sent = batches.reduce((n, b) => n + b.keys.length, 0);
  let done = pairs - sent;
  opts.onProgress?.(label, done, pairs);
  await Promise.all(
    batches.map((batch) =>
      limit.run(async () => {
        if (failure) return;
        try {
          const score = async () => {
            const t0 = performance.now();
            const res = await client.rerank(preset.model, batch.query, batch.documents);
            const seconds = (performance.now() - t0) / 1000;
            calls++;
            if (res.servedModel) servedModels.add(res.servedModel);
            if (res.standIn) standInNow = true;
            overLimit += res.truncated ?? 0;
            if (res.scores.length !== batch.keys.length) throw new GbrError(`${label}: ${client.id} returned ${res.scores.length} scores for ${batch.keys.length} documents`, "RERANK_ANSWER");
            // Rounded as the store keeps it, so a run from the store adds up the very same numbers.
            const share = Math.round((seconds / batch.keys.length) * 1e6) / 1e6;
            return batch.keys.map((key, i) => ({ key, score: res.scores[i], seconds: share, standIn: res.standIn }));
          };
          // Claimed first: a process sharing the data folder that makes this very request waits and reads its scores.
          const { entries, made } = opts.cache ? await opts.cache.produce(batch.keys, score) : { entries: await score(), made: true };
          if (!made) reusedNow += entries.length;
          for (const e of entries) known.set(e.key, e);
          done += batch.keys.length;
          opts.onProgress?.(label, done, pairs);
        } catch (err) {
          failure ??= { err };
        }
      }),
    ),
  ).finally(() => stopObserving?.());
  if (failure) throw failure.err;

  const rankings = new Map<string, Ranking>();
  const scores = new Map<string, number[]>();
  for (const { query, head, tail, keys } of plans) {
    const s = keys.map((key) => known.get(key)!.score);
    // Explicit tie-break on position, not trust in sort stability: equal scores keep the first stage's order.
    const order = head.map((_, i) => i).sort((a, b) => s[b] - s[a] || a - b);
    const ranked = [...order.map((i) => head[i]), ...tail].slice(0, k);
    rankings.set(query.id, ranked);
    if (ranked.length <= head.length) scores.set(query.id, order.slice(0, ranked.length).map((i) => s[i]));
  }

  // Time and stand-in mark over the distinct pairs used, each counted once, in plan order.
  let seconds = 0;
  let standIn = standInNow;
  for (const key of new Set(plans.flatMap((plan) => plan.keys))) {
    const c = known.get(key)!;
    seconds += c.seconds ?? 0;
    if (c.standIn) standIn = true;
  }

  const rerank: RerankRunInfo = {
    reranker: preset.name,
    kind: "cross-encoder",
    model: preset.model,
    endpoint: client.endpoint,
    ...(client.runtime ? { runtime: client.runtime } : {}),
    depth,
    pairs,
    reusedPairs: pairs - sent + reusedNow,
    truncated: cut.size,
    ...(overLimit ? { truncatedPairs: overLimit } : {}),
    calls,
    servedModels: [...servedModels],
    standIn,
    ...(client.endpointStats ? { endpoints: client.endpointStats() } : {}),
  };
  opts.log?.(
    `${label}: ${pairs} pairs, ${pairs - sent + reusedNow} from the store, ${calls} requests to ${client.endpoint}` +
      (cut.size ? `; ${cut.size} articles cut to ${preset.maxDocumentChars} characters` : ""),
  );
  const retriever = opts.name ?? `rerank:${preset.name}:${firstStage.info?.retriever ?? "first-stage"}`;
  const first = firstStage.cost;
  const mine: Work = { ...zeroWork(), seconds, rerankCalls, rerankPairs: pairs };
  return {
    rankings,
    scores,
    info: { retriever, rerank, ...(firstStage.info ? { parts: [firstStage.info] } : {}) },
    cost: first
      ? { ...first, online: addWork(first.online, mine), corpus: { ...first.corpus } }
      : { online: mine, corpus: zeroWork() },
  };
}
