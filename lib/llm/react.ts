/** REACT-BM25 (DESIGN.md §6): a planner writes keyword queries, BM25 retrieves, an observer keeps; the loop. */
import { promises as fs } from "node:fs";
import path from "node:path";
import type { Doc, DocId, Query, QueryId, Run } from "../types";
import type { IndexedCorpus } from "../sparse/bm25-retriever";
import type { Bm25Scorer } from "../sparse/bm25";
import { compareCodePoints } from "../util/code-points";
import { untilFailure } from "../util/pool";
import { checkUniqueIds } from "./cached-calls";
import { readJsonIfAny } from "../util/safe-files";
import { OBSERVER_BUDGET_TOKENS, observerBatches, observerPromptTokens } from "./react-batches";
import { observerMessage, plannerMessage, PLANNER_KEPT_DOCS, reactParserFor, reactPromptsSha256, type ReactParser, type ReactPrompts } from "./react-prompts";
import { callRecord, callTotals, REACT_TRACE, sumTotals, traceKey, traceFileName, writeTrace, zeroTotals } from "./react-traces";
import { isCompleteTrace, type ReactRoundTrace, type ReactTotals, type ReactTrace } from "./react-traces";
import type { ChatModel, ChatRequest } from "../models/chat";
import type { Store } from "../store";

/** The paper's rounds per query; BM25's depth per round, and the cap of the final ranking. */
const REACT_ROUNDS = 10;
const REACT_DEPTH = 100;

/** A kept article: the rounds that kept it (ascending), the first, its best BM25 rank in them. */
export type KeptInfo = { rounds: number[]; first: number; bestRank: number };

/** Kept articles by rounds kept (most first), first round, best BM25 rank, id (code points); at most `limit`. */
export function reactRanking(kept: ReadonlyMap<DocId, KeptInfo>, limit = REACT_DEPTH): DocId[] {
  const order = ([ia, a]: [DocId, KeptInfo], [ib, b]: [DocId, KeptInfo]) =>
    b.rounds.length - a.rounds.length || a.first - b.first || a.bestRank - b.bestRank || compareCodePoints(ia, ib);
  return [...kept.entries()].sort(order).slice(0, limit).map(([id]) => id);
}

export interface ReactContext {
  /** BM25-GREEKSTEMMER, its scorer (the paper's k1, b) and articles in corpus order. */
  corpus: IndexedCorpus;
  scorer: Bm25Scorer;
  docs: readonly Doc[];
  planner: ChatModel;
  observer: ChatModel;
  prompts: ReactPrompts;
  parser?: ReactParser;
  rounds?: number;
  seed?: number;
  budgetTokens?: number;
  onRound?: (round: ReactRoundTrace, trace: ReactTrace) => void | Promise<void>;
}

/** The notebook's sampling settings and output limits (planner, observer), for every prompt set. */
const REACT_PARAMS = { temperature: 0.2, topP: 1, reasoningEffort: "low", maxTokens: 42_000, observerMaxTokens: 44_096 } as const;

/** What a trace records of its method (and a stored trace is keyed by): the settings a run uses, checked. */
function traceConfig(ctx: ReactContext): ReactTrace["config"] {
  const rounds = ctx.rounds ?? REACT_ROUNDS;
  if (!Number.isInteger(rounds) || rounds < 1) throw new RangeError(`rounds must be a positive integer, got ${rounds}`);
  if (ctx.docs.length !== ctx.corpus.docIds.length) {
    throw new RangeError(`REACT needs the corpus's articles in corpus order: got ${ctx.docs.length} for an index of ${ctx.corpus.docIds.length}`);
  }
  return {
    rounds,
    parser: (ctx.parser ?? reactParserFor("project")).name,
    promptsSha256: reactPromptsSha256(ctx.prompts),
    planner: ctx.planner.id,
    observer: ctx.observer.id,
    // In this order: the trace key hashes the config as written.
    ...REACT_PARAMS,
    budgetTokens: ctx.budgetTokens ?? OBSERVER_BUDGET_TOKENS,
  };
}

/** REACT-BM25 for one query; LLM errors propagate, an article too big for the observer is a "BUDGET" error. */
export async function runReact(query: Query, ctx: ReactContext): Promise<ReactTrace> {
  const s = traceConfig(ctx);
  const started = performance.now();
  const { corpus, scorer, docs, prompts } = ctx;
  const parser = ctx.parser ?? reactParserFor("project");
  // Corpus positions of the articles retrieved so far (the candidates): every kept one is among them.
  const pos = new Map<DocId, number>();
  const textOf = (id: DocId) => docs[pos.get(id)!].text;
  const count = observerPromptTokens(prompts, query.text);
  const { temperature, topP, reasoningEffort } = s;
  const base = { temperature, topP, reasoningEffort, ...(ctx.seed !== undefined ? { seed: ctx.seed } : {}) };

  const trace: ReactTrace = {
    version: 2,
    query: { id: query.id, text: query.text },
    config: s,
    rounds: [],
    complete: false,
    ranking: [],
    totals: zeroTotals(),
    wallSeconds: 0,
  };
  const kept = new Map<DocId, KeptInfo>();
  const history: string[] = [];
  // A round retrieving an earlier one's very articles reuses its batches and requests (counted, rendered once).
  const batchesOf = new Map<string, { batch: ReturnType<typeof observerBatches>[number]; req: ChatRequest }[]>();

  for (let round = 1; round <= s.rounds; round++) {
    const plannerUser = plannerMessage(prompts, {
      originalQuery: query.text,
      round,
      maxRounds: s.rounds,
      history,
      keptTexts: reactRanking(kept, PLANNER_KEPT_DOCS).map(textOf),
    });
    const plannerReq: ChatRequest = { ...base, system: prompts.PLANNER_SYSTEM, user: plannerUser, maxTokens: s.maxTokens };
    const p = await ctx.planner.complete(plannerReq);
    const plannerCall = callRecord(plannerReq, p);
    const plannerText = parser.text(p.raw);
    const keywordQuery = parser.planner(p.raw, query.text);
    history.push(keywordQuery);

    const top = scorer.searchIds(corpus.analyze(keywordQuery), REACT_DEPTH, { positiveOnly: true });
    const retrieved: ReactRoundTrace["retrieved"] = [];
    const newCandidates: DocId[] = [];
    for (let i = 0; i < top.docs.length; i++) {
      const id = corpus.docIds[top.docs[i]];
      retrieved.push({ id, rank: i + 1, score: top.scores[i] });
      if (!pos.has(id)) newCandidates.push(id);
      pos.set(id, top.docs[i]);
    }

    const retrievedDocs = Array.from(top.docs, (d) => ({ id: docs[d].id, text: docs[d].text }));
    const observerTraces: ReactRoundTrace["observer"] = [];
    const keptThisRound: { id: DocId; reason: string }[] = [];
    const retrievedIds = retrievedDocs.map((d) => d.id).join("\n");
    let batches = batchesOf.get(retrievedIds);
    if (!batches) {
      batches = observerBatches(retrievedDocs, s.budgetTokens, count).map((batch) => ({
        batch,
        req: { ...base, system: prompts.OBSERVER_SYSTEM, user: observerMessage(prompts, query.text, batch.docs), maxTokens: s.observerMaxTokens },
      }));
      batchesOf.set(retrievedIds, batches);
    }
    for (const { batch, req: observerReq } of batches) {
      const r = await ctx.observer.complete(observerReq);
      const call = callRecord(observerReq, r);
      const text = parser.text(r.raw);
      const ids = batch.docs.map((d) => d.id);
      const parsed = parser.observer(r.raw, new Set(ids));
      const batchKept = parsed.ids.map((id) => ({ id, reason: parsed.reasons.get(id) ?? "" }));
      observerTraces.push({ ...call, ids, promptTokens: batch.tokens, raw: r.raw, text, kept: batchKept, none: parsed.none, ignored: parsed.ignored });
      for (const k of batchKept) if (!keptThisRound.some((x) => x.id === k.id)) keptThisRound.push(k);
    }

    for (const { id } of keptThisRound) {
      const info = kept.get(id) ?? { rounds: [], first: round, bestRank: Infinity };
      info.rounds.push(round);
      info.bestRank = Math.min(info.bestRank, retrieved.findIndex((r) => r.id === id) + 1);
      kept.set(id, info);
    }
    const roundTrace: ReactRoundTrace = {
      round,
      planner: { ...plannerCall, raw: p.raw, text: plannerText, query: keywordQuery },
      retrieved,
      observer: observerTraces,
      kept: keptThisRound,
      ranking: reactRanking(kept),
      newCandidates,
      totals: callTotals([plannerCall, ...observerTraces]),
    };
    trace.rounds.push(roundTrace);
    trace.ranking = roundTrace.ranking;
    trace.totals = sumTotals(trace.rounds.map((r) => r.totals));
    trace.wallSeconds = (performance.now() - started) / 1000;
    await ctx.onRound?.(roundTrace, trace);
  }
  trace.complete = true;
  trace.wallSeconds = (performance.now() - started) / 1000;
  return trace;
}

export interface ReactRunOptions {
  /** One `<query id>.json` trace per query, written every round; complete ones are reused (also from `store`). */
  traceDir?: string;
  store?: Store;
  concurrency?: number;
  onQuery?: (e: { query: Query; index: number; total: number; trace: ReactTrace; resumed: boolean }) => void;
}

/** Rankings, candidate pools and costs of a REACT run, per round (`kept.get(rounds)` is REACT-BM25). */
export interface ReactRunResult {
  rounds: number;
  queryIds: QueryId[];
  kept: Map<number, Run>;
  /** round r -> every article retrieved in rounds 1..r (by first round, rank): not a ranking, for pool recall. */
  candidates: Map<number, Run>;
  /** Per query: calls, tokens and seconds of rounds 1..r, cumulative (index r − 1). */
  perRound: Map<QueryId, ReactTotals[]>;
  traces: Map<QueryId, ReactTrace>;
  resumed: QueryId[];
}

/** A REACT-BM25 run: the final kept rankings plus all the run produced, for the round table and appendix C.4. */
export interface ReactRun extends Run {
  react: ReactRunResult;
}

export function isReactRun(run: Run): run is ReactRun {
  return (run as Partial<ReactRun>).react !== undefined;
}

/** A complete saved trace serves only the same method, query and rounds (each planner prompt says "round i of N"). */
function usable(t: ReactTrace | undefined, q: Query, want: ReactTrace["config"]): t is ReactTrace {
  if (!isCompleteTrace(t)) return false;
  const config = t.config as unknown as Record<string, unknown>;
  return t.query?.id === q.id && t.query.text === q.text && Object.entries(want).every(([k, v]) => config[k] === v) && t.rounds.length === want.rounds;
}

/** REACT-BM25 over many queries; complete traces in `traceDir` are reused, so a crash repeats no finished query. */
export async function reactRun(queries: readonly Query[], ctx: ReactContext, opts: ReactRunOptions = {}): Promise<ReactRunResult> {
  const config = traceConfig(ctx);
  const { rounds } = config;
  checkUniqueIds(queries, "react-bm25");
  if (opts.traceDir) await fs.mkdir(opts.traceDir, { recursive: true });

  const done: { trace: ReactTrace; resumed: boolean }[] = [];

  const one = async (i: number) => {
    const q = queries[i];
    const file = opts.traceDir ? path.join(opts.traceDir, traceFileName(q.id)) : undefined;
    const save = (t: ReactTrace) => (file ? writeTrace(file, t) : Promise.resolve());
    const key = traceKey(q, config, ctx.seed);
    const finish = (trace: ReactTrace, resumed: boolean) => {
      done[i] = { trace, resumed };
      opts.onQuery?.({ query: q, index: i, total: queries.length, trace, resumed });
    };
    if (file) {
      // Missing or unreadable: the query runs again.
      const saved = await readJsonIfAny<ReactTrace>(file);
      if (usable(saved, q, config)) {
        // A folder-only trace goes into the store too.
        if (opts.store && !(await opts.store.get(REACT_TRACE, key))) await opts.store.put(REACT_TRACE, { key, seed: ctx.seed ?? null, trace: saved });
        return finish(saved, true);
      }
    }
    const run = async (): Promise<ReactTrace> => {
      let last: ReactTrace | undefined;
      try {
        const trace = await runReact(q, {
          ...ctx,
          onRound: async (r, t) => {
            last = t;
            await save(t);
            await ctx.onRound?.(r, t);
          },
        });
        await save(trace);
        return trace;
      } catch (error) {
        if (last) await save({ ...last, complete: false, error: error instanceof Error ? error.message : String(error) }).catch(() => {});
        throw error;
      }
    };
    if (!opts.store) return finish(await run(), false);
    const { record, made } = await opts.store.produce(REACT_TRACE, key, async () => ({ key, seed: ctx.seed ?? null, trace: await run() }));
    if (!made) await save(record.trace);
    finish(record.trace, !made);
  };

  const failure = await untilFailure(queries.length, opts.concurrency ?? 1, one);
  if (failure) throw failure.error;

  const traces = new Map(queries.map((q, i) => [q.id, done[i].trace]));
  const everyRound = <T,>(f: (t: ReactTrace, r: number) => T) =>
    new Map([...traces].map(([q, t]) => [q, Array.from({ length: rounds }, (_, i) => f(t, i + 1))]));
  const ranked = everyRound((t, r) => ({ kept: t.rounds[r - 1].ranking.slice(), pool: t.rounds.slice(0, r).flatMap((x) => x.newCandidates) }));
  // Round r's run over every query, of the kept rankings or of the pools.
  const runOf = (which: "kept" | "pool") =>
    new Map(Array.from({ length: rounds }, (_, i) => [i + 1, { rankings: new Map([...ranked].map(([q, rs]) => [q, rs[i][which]])) }]));
  return {
    rounds,
    queryIds: queries.map((q) => q.id),
    kept: runOf("kept"),
    candidates: runOf("pool"),
    perRound: everyRound((t, r) => sumTotals(t.rounds.slice(0, r).map((x) => x.totals))),
    traces,
    resumed: queries.filter((_, i) => done[i].resumed).map((q) => q.id),
  };
}
