/** REACT-BM25's per-query trace (JSON, rewritten every round), its files, and the store kind reruns take it from. */
import path from "node:path";
import { digestOf, writeAtomically } from "../util/safe-files";
import type { DocId, QueryId } from "../types";
import type { RecordKind } from "../store";
import { chatParams, type ChatParams, type ChatRequest, type ChatResponse } from "../models/chat";
import type { PromptSetName } from "./prompts";

/** One call as a trace records it: what the answer says of itself, and the parameters of the request sent. */
export interface ReactCall extends Pick<ChatResponse, "usage" | "seconds" | "replayed" | "servedModel" | "standIn"> {
  params: ChatParams;
}

/** Calls, tokens and the calls' wall times (a replayed call counts its original time). */
export type ReactTotals = { calls: number; input: number; output: number; seconds: number };

/** One observer batch of one round: ids in rank order, counted prompt tokens, the answer (`text`: as parsed). */
export interface ReactObserverTrace extends ReactCall {
  ids: DocId[];
  promptTokens: number;
  raw: string;
  text: string;
  kept: { id: DocId; reason: string }[];
  none: boolean;
  ignored: string[];
}

export interface ReactRoundTrace {
  round: number;
  planner: ReactCall & { raw: string; text: string; query: string };
  retrieved: { id: DocId; rank: number; score: number }[];
  observer: ReactObserverTrace[];
  /** Kept in this round (over all batches, first mention wins); `ranking`: the kept ranking after it. */
  kept: { id: DocId; reason: string }[];
  ranking: DocId[];
  /** Ids first retrieved this round, in rank order; concatenated over rounds 1..r they are the pool after r. */
  newCandidates: DocId[];
  totals: ReactTotals;
}

/** One query's REACT run, as written to `<traceDir>/<id>.json`; traces of an older version are run again. */
export interface ReactTrace {
  version: 2;
  query: { id: QueryId; text: string };
  config: {
    rounds: number;
    parser: PromptSetName;
    promptsSha256: string;
    planner: string;
    observer: string;
    temperature: number;
    topP: number;
    reasoningEffort: "low" | "medium" | "high";
    maxTokens: number;
    observerMaxTokens: number;
    budgetTokens: number;
  };
  rounds: ReactRoundTrace[];
  /** False while the query is running (a trace written after each round) or after a failure (`error`). */
  complete: boolean;
  error?: string;
  ranking: DocId[];
  totals: ReactTotals;
  wallSeconds: number;
}

export const zeroTotals = (): ReactTotals => ({ calls: 0, input: 0, output: 0, seconds: 0 });

export const callTotals = (calls: readonly ReactCall[]): ReactTotals =>
  sumTotals(calls.map((c) => ({ calls: 1, input: c.usage.input, output: c.usage.output, seconds: c.seconds })));

export function sumTotals(list: readonly ReactTotals[]): ReactTotals {
  const t = zeroTotals();
  for (const x of list) {
    t.calls += x.calls;
    t.input += x.input;
    t.output += x.output;
    t.seconds += x.seconds;
  }
  return t;
}

export function callRecord(req: ChatRequest, r: ChatResponse): ReactCall {
  const c: ReactCall = { usage: { input: r.usage.input, output: r.usage.output }, seconds: r.seconds, params: chatParams(req) };
  if (r.replayed) c.replayed = true;
  if (r.servedModel) c.servedModel = r.servedModel;
  if (r.standIn) c.standIn = true;
  return c;
}

/** The id when it is a safe file name, else a sanitised id plus a short hash so two ids never share a file. */
export function traceFileName(queryId: QueryId): string {
  const safe = queryId.replace(/[^A-Za-z0-9_.-]/g, "_");
  if (safe === queryId && safe.length > 0 && safe.length <= 120 && !safe.startsWith(".")) return `${safe}.json`;
  const hash = digestOf(queryId).slice(0, 10);
  return `${safe.replace(/^\.+/, "_").slice(0, 80)}.${hash}.json`;
}

/** Atomic: a reader (or a resumed run) never sees half a file. */
export function writeTrace(file: string, trace: ReactTrace): Promise<void> {
  return writeAtomically(file, (fh) => fh.writeFile(JSON.stringify(trace)), path.dirname(file));
}

/** A complete trace in the store, with the seed its requests were sent with (in its key). */
export type StoredTrace = { key: string; seed: number | null; trace: ReactTrace };

/** sha256 of the query (id and text), the method's config and the seed, which is all `usable` checks. */
export function traceKey(query: { id: QueryId; text: string }, config: ReactTrace["config"], seed: number | undefined | null): string {
  return digestOf(JSON.stringify(["react-trace", 2, query.id, query.text, config, seed ?? null]));
}

export const REACT_TRACE: RecordKind<StoredTrace> = {
  name: "react",
  keyOf: (r) => traceKey(r.trace.query, r.trace.config, r.seed),
  problem(v) {
    const r = v as StoredTrace | null;
    if (!r || typeof r !== "object" || typeof r.key !== "string" || !(r.seed === null || typeof r.seed === "number")) return "not a stored trace";
    return isCompleteTrace(r.trace) ? undefined : "not a complete trace";
  },
};

/** A finished trace of this version, as a rerun may take it (JSON read back may hold anything). */
export function isCompleteTrace(t: ReactTrace | undefined): t is ReactTrace {
  return t?.version === 2 && t.complete === true && typeof t.query?.id === "string" && !!t.config && Array.isArray(t.rounds);
}
