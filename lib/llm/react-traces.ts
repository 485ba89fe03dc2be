/**
 * The record REACT-BM25 keeps of every query (one JSON file per query in the trace folder,
 * written after every round): what each call cost and was sent with, what was retrieved and
 * kept, the ranking after each round; the file handling of the trace folder; and the store kind
 * complete traces are kept in, so a rerun (or another process) takes a finished query from there.
 */
import { createHash } from "node:crypto";
import { promises as fs } from "node:fs";
import type { DocId, QueryId } from "../types";
import type { RecordKind } from "../store";
import { chatParams, type ChatParams, type ChatRequest, type ChatResponse, type ChatUsage, type ParserName } from "./types";


/** One LLM call as the trace records it. */
export interface ReactCall {
  usage: ChatUsage;
  seconds: number;
  /** Served from the replay cache. */
  replayed?: boolean;
  /** The generation parameters of the request that was sent (what runs record as their settings). */
  params: ChatParams;
  /** The model the server said answered, when it said. */
  servedModel?: string;
  /** Answered by the project's test double: a stand-in. */
  standIn?: boolean;
}

/** Calls, tokens and time, summed. */
export interface ReactTotals {
  calls: number;
  input: number;
  output: number;
  /** Sum of the calls' wall times (a replayed call counts its original time). */
  seconds: number;
}

/** One observer batch of one round. */
export interface ReactObserverTrace extends ReactCall {
  /** The batch's article ids in BM25 rank order. */
  ids: DocId[];
  /** Counted prompt tokens (o200k, chat overhead included). */
  promptTokens: number;
  raw: string;
  /** The answer without reasoning blocks (what was parsed). */
  text: string;
  kept: { id: DocId; reason: string }[];
  none: boolean;
  /** Ids the observer named that were not in this batch. */
  ignored: string[];
}

/** Everything one REACT round did. */
export interface ReactRoundTrace {
  round: number;
  planner: ReactCall & { raw: string; text: string; query: string };
  /** BM25 results of the planner's query: ids with 1-based ranks and scores. */
  retrieved: { id: DocId; rank: number; score: number }[];
  observer: ReactObserverTrace[];
  /** Articles kept in this round (over all batches, first mention wins). */
  kept: { id: DocId; reason: string }[];
  /** The kept ranking after this round (the snapshot). */
  ranking: DocId[];
  /** Ids retrieved for the first time in this round, in rank order; the candidate pool after
   * round r is the concatenation of this list over rounds 1..r. */
  newCandidates: DocId[];
  /** This round's calls. */
  totals: ReactTotals;
}

/** The JSON-serialisable record of one query's REACT run, as written to `<traceDir>/<id>.json`. */
export interface ReactTrace {
  /** 2 since the authors' rendering of documents, history and kept texts (v0.5); older traces are run again. */
  version: 2;
  query: { id: QueryId; text: string };
  config: {
    rounds: number;
    /** The parser that read the answers. */
    parser: ParserName;
    /** sha256 of the five prompt templates (`reactPromptsSha256`): a trace is reused only for the same prompts. */
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
  /** False while the query is running (a trace written after each round) or after a failure. */
  complete: boolean;
  /** Set when the query failed. */
  error?: string;
  /** The final ranking (the last round's snapshot). */
  ranking: DocId[];
  totals: ReactTotals;
  /** Wall time of the whole query, BM25 and token counting included. */
  wallSeconds: number;
}

/**
 * No calls yet.
 */
export const zeroTotals = (): ReactTotals => ({ calls: 0, input: 0, output: 0, seconds: 0 });

/**
 * Counts one call into running totals.
 */
export function addCall(t: ReactTotals, c: ReactCall): void {
  t.calls += 1;
  t.input += c.usage.input;
  t.output += c.usage.output;
  t.seconds += c.seconds;
}

/**
 * The sum of some totals.
 */
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

/**
 * A call as the trace records it: usage, time, whether it was replayed, and the parameters of the
 * request that was sent.
 */
export function callRecord(req: ChatRequest, r: ChatResponse): ReactCall {
  const c: ReactCall = { usage: { input: r.usage.input, output: r.usage.output }, seconds: r.seconds, params: chatParams(req) };
  if (r.replayed) c.replayed = true;
  if (r.servedModel) c.servedModel = r.servedModel;
  if (r.standIn) c.standIn = true;
  return c;
}

/**
 * The trace file name of a query id: the id itself when it is a safe file name, otherwise its
 * letters, digits, `_`, `.` and `-` with the rest as `_`, plus a short hash of the id so two ids
 * never share a file.
 */
export function traceFileName(queryId: QueryId): string {
  const safe = queryId.replace(/[^A-Za-z0-9_.-]/g, "_");
  if (safe === queryId && safe.length > 0 && safe.length <= 120 && !safe.startsWith(".")) return `${safe}.json`;
  const hash = createHash("sha256").update(queryId).digest("hex").slice(0, 10);
  return `${safe.replace(/^\.+/, "_").slice(0, 80)}.${hash}.json`;
}

/**
 * Writes a file so that a reader (or a resumed run) never sees half of it: a temp file in the
 * same folder, then a rename.
 */
export async function writeAtomic(file: string, data: string): Promise<void> {
  // Rename within one folder is atomic, so a reader (or a resumed run) never sees half a file.
  const tmp = `${file}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`;
  await fs.writeFile(tmp, data);
  await fs.rename(tmp, file);
}

/**
 * A saved trace, or undefined when it is missing or unreadable (the query then runs again).
 */
export async function readTrace(file: string): Promise<ReactTrace | undefined> {
  try {
    return JSON.parse(await fs.readFile(file, "utf8")) as ReactTrace;
  } catch {
    return undefined; // missing or unreadable: run the query again
  }
}

/** A complete trace in the store, with the seed its requests were sent with (part of its key). */
export interface StoredTrace {
  key: string;
  seed: number | null;
  trace: ReactTrace;
}

/**
 * The content address of a query's trace: sha256 of the query (id and text), the method's
 * config (models, parser, prompts, settings, rounds) and the seed, which is all `usable` checks.
 */
export function traceKey(query: { id: QueryId; text: string }, config: ReactTrace["config"], seed: number | undefined | null): string {
  return createHash("sha256").update(JSON.stringify(["react-trace", 2, query.id, query.text, config, seed ?? null])).digest("hex");
}

/**
 * The store kind of complete REACT traces.
 */
export const REACT_TRACE: RecordKind<StoredTrace> = {
  name: "react",
  keyOf: (r) => traceKey(r.trace.query, r.trace.config, r.seed),
  problem(v) {
    const r = v as StoredTrace | null;
    if (!r || typeof r !== "object" || typeof r.key !== "string" || !(r.seed === null || typeof r.seed === "number")) return "not a stored trace";
    const t = r.trace;
    if (!t || t.version !== 2 || t.complete !== true || !t.query || typeof t.query.id !== "string" || !t.config || !Array.isArray(t.rounds)) return "not a complete trace";
    return undefined;
  },
};
