/**
 * Listwise LLM re-ranking over any first-stage run (`rerank:llm:<retriever>`), as RankGPT
 * (sunnweiwei/RankGPT) does it: the model sees the question and a window of numbered articles and
 * answers a permutation such as `[3] > [1] > [2]`; the window slides from the bottom of the
 * first stage's top `depth` up to the top, so a strong article low in the list can climb all
 * the way in one pass.
 *
 * The prompts are always the project's (RERANK_SYSTEM.txt, RERANK_USER.txt), whatever
 * `--prompts` says: the paper's authors have no re-ranking prompts, so there is nothing official
 * to reproduce, and the run records prompt set "project" with these two prompts' sha256.
 */
import { DEFAULT_CONCURRENCY } from "../config";
import { readFileSync } from "node:fs";
import path from "node:path";
import type { DocId, LlmRunInfo, Query, QueryId, Run, RunCost, RunInfo } from "../types";
import { DataError, GbrError, isUnavailable } from "../util/errors";
import { splitModelId } from "../util/model-id";
import { addCosts, zeroWork } from "../util/run-cost";
import { createSemaphore } from "../util/semaphore";
import { fillPrompt, loadPromptSet, PROJECT_PROMPTS_DIR, PromptError, sha256Text } from "./prompts";
import { llmRunInfo, llmWork, type RequestEntry } from "./run-info";
import { ChatError, chatParams, stripReasoning, type ChatModel, type ChatRequest, type ChatResponse, type ChatUsage } from "./types";

/**
 * Generation parameters of every re-ranking request. Temperature 0 and top_p 1 because a
 * re-ranker that answers differently on a rerun makes the ranking noise; reasoning effort "low"
 * and the 42,000-token cap as in the project's other calls (reformulate.ts), since gpt-oss spends
 * its output budget on reasoning first and a small cap would cut the permutation off.
 */
export const RERANK_PARAMS = {
  temperature: 0,
  topP: 1,
  reasoningEffort: "low",
  maxTokens: 42000,
} as const satisfies Partial<ChatRequest>;

/** The role the requests are recorded under in `info.llm.requests`. */
const ROLE = "rerank";

// ---------------------------------------------------------------------------------------------
// Reading the model's permutation
// ---------------------------------------------------------------------------------------------

/** A model's answer read as a permutation, and how many of its ids were usable. */
interface ReadPermutation {
  order: number[];
  /** Distinct ids in 1..size the answer named; 0 means the answer said nothing usable. */
  found: number;
}

/**
 * Numbers of a list the model numbered itself ("1. 3\n2. 1"): the leading 1., 2., … are
 * dropped only when every line carries them in sequence, so that "3. 1. 2." or a bare
 * "3\n1\n2" is never mistaken for numbering.
 */
function dropListNumbering(text: string): string {
  const lines = text.split("\n").filter((l) => l.trim() !== "");
  if (lines.length < 2) return text;
  const numbered = lines.map((l) => /^\s*(\d+)[.)]\s+(?=\S*\d)/.exec(l));
  if (!numbered.every((m, i) => m !== null && Number(m[1]) === i + 1)) return text;
  return lines.map((l, i) => l.slice(numbered[i]![0].length)).join("\n");
}

function readPermutation(answer: string, size: number): ReadPermutation {
  const text = stripReasoning(answer);
  // Bracketed ids are what the prompt asks for; when an answer has them, bare numbers around
  // them (an article's number in a remark, "Άρθρο 914") are prose, not ids.
  let ids = [...text.matchAll(/\[\s*(\d+)\s*\]/g)].map((m) => Number(m[1]));
  if (ids.length === 0) ids = [...dropListNumbering(text).matchAll(/\d+/g)].map((m) => Number(m[0]));
  const seen = new Set<number>();
  const order: number[] = [];
  for (const id of ids) {
    if (!Number.isSafeInteger(id) || id < 1 || id > size || seen.has(id)) continue;
    seen.add(id);
    order.push(id - 1);
  }
  const found = order.length;
  for (let i = 0; i < size; i++) if (!seen.has(i + 1)) order.push(i);
  return { order, found };
}

/**
 * A listwise answer as 0-based positions, always a permutation of 0..size-1. Reasoning blocks
 * are removed first; `[3] > [1]`, `[3], [1]`, `Passage [3]`, `3 > 1` and one id per line (also
 * numbered "1. 3") are read; ids outside 1..size are ignored, a repeated id counts at its first
 * place, and ids the answer left out follow in their original order (so an empty or unreadable
 * answer leaves the window as it was).
 */
export function parsePermutation(answer: string, size: number): number[] {
  return readPermutation(answer, size).order;
}

/**
 * The items in the order of a permutation: item `perm[i]` goes to place i.
 */
export function applyPermutation<T>(items: readonly T[], perm: readonly number[]): T[] {
  const seen = new Set(perm);
  if (perm.length !== items.length || seen.size !== perm.length || perm.some((p) => !Number.isInteger(p) || p < 0 || p >= items.length)) {
    throw new RangeError(`applyPermutation: [${perm.join(", ")}] is not a permutation of 0..${items.length - 1}`);
  }
  return perm.map((p) => items[p]);
}

// ---------------------------------------------------------------------------------------------
// The sliding window
// ---------------------------------------------------------------------------------------------

/**
 * One window of the sliding pass: positions start (inclusive) to end (exclusive), 0-based.
 */
export interface RerankWindow {
  start: number;
  end: number;
}

/**
 * The windows RankGPT's sliding pass re-orders over a list of `n` articles, in the order they are
 * sent: the first at the bottom (n−window..n), each next one `step` higher, the last at the top.
 * Where RankGPT's loop stops when the next start would be negative (leaving the top few articles
 * out when n−window is not a multiple of step), the last window here is cut at 0, as RankGPT's own
 * clamp intends, so the top of the list is always re-ranked. A window of fewer than two articles
 * needs no call and is left out. Calls per query: 1 when n ≤ window, else ⌈(n−window)/step⌉ + 1.
 */
export function slidingWindows(n: number, window: number, step: number): RerankWindow[] {
  checkWindow(window, step);
  if (n < 2) return [];
  if (n <= window) return [{ start: 0, end: n }];
  const out: RerankWindow[] = [];
  for (let start = n - window, end = n; end > 0; start -= step, end -= step) {
    const w = { start: Math.max(0, start), end };
    if (w.end - w.start >= 2) out.push(w);
    if (start <= 0) break;
  }
  return out;
}

function checkWindow(window: number, step: number): void {
  if (!(Number.isInteger(window) && window >= 2)) throw new GbrError(`re-ranking window must be an integer ≥ 2, got ${window}`, "USAGE");
  // A step larger than the window would jump over articles that no window ever shows the model.
  if (!(Number.isInteger(step) && step >= 1 && step <= window)) {
    throw new GbrError(`re-ranking step must be an integer from 1 to the window (${window}), got ${step}`, "USAGE");
  }
}

// ---------------------------------------------------------------------------------------------
// Prompts
// ---------------------------------------------------------------------------------------------

/**
 * The project's re-ranking prompts, as sent, with their sha256 (what `info.llm.prompts` records).
 */
export interface RerankPrompts {
  system: string;
  user: string;
  sha256: { RERANK_SYSTEM: string; RERANK_USER: string };
}

let loaded: RerankPrompts | undefined;

/** Strict UTF-8: a mis-encoded prompt file must fail, not send U+FFFD to the model. */
const UTF8 = new TextDecoder("utf-8", { fatal: true });

/** A prompt file as prompts.ts normalises the project's files: LF line ends, no final newline. */
function readPromptFile(name: string, placeholders: readonly string[]): string {
  const file = path.join(PROJECT_PROMPTS_DIR, `${name}.txt`);
  let text: string;
  try {
    text = UTF8.decode(readFileSync(file));
  } catch (err) {
    throw new PromptError(`${file}: unreadable (${(err as Error).message})`, "INVALID", { cause: err });
  }
  text = text.replace(/\r\n?/g, "\n").replace(/\n$/, "");
  const absent = placeholders.filter((p) => !text.includes(`{${p}}`));
  if (absent.length > 0) throw new PromptError(`${file}: lacks placeholder(s) ${absent.map((a) => `{${a}}`).join(", ")}`, "INVALID");
  return text;
}

/**
 * The project's listwise prompts (RERANK_SYSTEM.txt, RERANK_USER.txt) with their sha256, read
 * once per process.
 */
export function rerankPrompts(): RerankPrompts {
  if (!loaded) {
    const system = readPromptFile("RERANK_SYSTEM", []);
    const user = readPromptFile("RERANK_USER", ["query", "passages", "count", "chars"]);
    loaded = { system, user, sha256: { RERANK_SYSTEM: sha256Text(system), RERANK_USER: sha256Text(user) } };
  }
  return loaded;
}

/**
 * An article as the model sees it: whitespace runs made one space (line breaks inside an
 * article would blur where the next `[n]` starts), cut to `maxChars` characters with "…".
 */
export function excerpt(text: string, maxChars: number): string {
  const flat = text.replace(/\s+/g, " ").trim();
  const chars = Array.from(flat); // code points, so a cut never splits a surrogate pair
  return chars.length <= maxChars ? flat : `${chars.slice(0, maxChars).join("").trimEnd()}…`;
}

/**
 * The exact request for one window: the project's system prompt, and the question followed by
 * the articles numbered [1]…[n] (each cut to `maxChars`), with RERANK_PARAMS.
 */
export function buildRerankRequest(queryText: string, passages: readonly string[], maxChars: number): ChatRequest {
  const p = rerankPrompts();
  const block = passages.map((t, i) => `[${i + 1}] ${excerpt(t, maxChars)}`).join("\n\n");
  return {
    system: p.system,
    user: fillPrompt(p.user, { query: queryText, passages: block, count: passages.length, chars: maxChars }),
    ...RERANK_PARAMS,
  };
}

// ---------------------------------------------------------------------------------------------
// The re-ranked run
// ---------------------------------------------------------------------------------------------

/**
 * Options of `listwiseRerankRun`.
 */
export interface ListwiseRerankOptions {
  /** The run's retriever name (default "rerank:llm:" + the first stage's). */
  name?: string;
  /** How many of the first stage's articles per query are re-ranked (default 100). */
  depth?: number;
  /** Articles per call (default 20) and how far the window moves up each time (default 10). */
  window?: number;
  step?: number;
  /** Length of the returned rankings (default 100). */
  k?: number;
  /** Characters of each article shown to the model (default 1,500). */
  maxChars?: number;
  /** Queries re-ranked at once (default 4); the windows of one query go one after another. */
  concurrency?: number;
  log?: (message: string) => void;
  onProgress?: (label: string, done: number, total: number) => void;
}

/** One answered call, for the record and the cost. */
interface Call {
  entry: RequestEntry;
  usage: ChatUsage;
  seconds: number;
  found: number;
  size: number;
  raw: string;
}

/** Dedupes a ranking (a repeated id counts at its first place), as the evaluation does. */
function dedupe(ranking: readonly DocId[]): DocId[] {
  return [...new Set(ranking)];
}

/** A failed call as the run's failure: what failed, where, and the provider's reason. */
function callFailure(err: unknown, qid: QueryId, w: RerankWindow, n: number): GbrError {
  const reason = err instanceof Error ? err.message : String(err);
  const code = err instanceof ChatError ? err.code : err instanceof GbrError && err.code === "NOT_CONFIGURED" ? "NOT_CONFIGURED" : "PROVIDER";
  return new ChatError(`rerank:llm: query ${qid}, articles ${w.start + 1}–${w.end} of ${n}: ${reason}`, code, {
    cause: err,
    // An offline replay miss stays "cannot run here", so reproduce skips rather than fails.
    unavailable: isUnavailable(err),
    ...(err instanceof GbrError && err.hint !== undefined ? { hint: err.hint } : {}),
  });
}

/**
 * Re-ranks the first stage's top `depth` articles of every query with RankGPT's sliding window
 * (see `slidingWindows`), then appends the first stage's remainder and cuts to `k`. Every call
 * goes through `model` (pass `chatForMethod(opts)`, the replay cache, so a rerun calls nothing).
 * A failed call fails the run with its reason; an answer with no usable id keeps the window's
 * order and is counted (`info.rerank.unparsed`). The run records the requests as sent (role
 * "rerank"), the project's two prompts' sha256, and costs the first stage's work plus every
 * call's recorded usage (replayed ones too, so a rerun reports the same cost).
 */
export async function listwiseRerankRun(
  model: ChatModel,
  queries: Query[],
  firstStage: Run,
  docText: ReadonlyMap<DocId, string>,
  opts: ListwiseRerankOptions = {},
): Promise<Run> {
  const depth = opts.depth ?? 100;
  const window = opts.window ?? 20;
  const step = opts.step ?? 10;
  const k = opts.k ?? 100;
  const maxChars = opts.maxChars ?? 1500;
  if (!(Number.isInteger(depth) && depth >= 1)) throw new GbrError(`re-ranking depth must be a positive integer, got ${depth}`, "USAGE");
  if (!(Number.isInteger(k) && k >= 1)) throw new GbrError(`k must be a positive integer, got ${k}`, "USAGE");
  if (!(Number.isInteger(maxChars) && maxChars >= 1)) throw new GbrError(`article budget must be a positive integer, got ${maxChars}`, "USAGE");
  checkWindow(window, step);
  const prompts = rerankPrompts();
  const limit = createSemaphore(opts.concurrency ?? model.capacity ?? DEFAULT_CONCURRENCY.chat);
  const name = opts.name ?? `rerank:llm:${firstStage.info?.retriever ?? "(unknown)"}`;

  // A failure stops queries that have not made their next call yet, instead of paying for a
  // run that is already lost.
  let failed = false;
  let done = 0;
  const rerankOne = async (q: Query): Promise<{ ranking: DocId[]; calls: Call[] }> => {
    const all = dedupe(firstStage.rankings.get(q.id) ?? []);
    let top = all.slice(0, depth);
    const calls: Call[] = [];
    for (const w of slidingWindows(top.length, window, step)) {
      if (failed) break;
      const ids = top.slice(w.start, w.end);
      const texts = ids.map((id) => {
        const t = docText.get(id);
        if (t === undefined) throw new DataError(`rerank:llm: the first stage ranks '${id}' for query ${q.id}, but the corpus has no such article`);
        return t;
      });
      const req = buildRerankRequest(q.text, texts, maxChars);
      let res: ChatResponse;
      try {
        res = await model.complete(req);
      } catch (err) {
        throw callFailure(err, q.id, w, top.length);
      }
      const { order, found } = readPermutation(res.raw, ids.length);
      top = [...top.slice(0, w.start), ...applyPermutation(ids, order), ...top.slice(w.end)];
      calls.push({
        entry: {
          role: ROLE,
          params: chatParams(req),
          reused: res.replayed === true,
          ...(res.servedModel ? { servedModel: res.servedModel } : {}),
          ...(res.standIn ? { standIn: true } : {}),
        },
        usage: res.usage,
        seconds: res.seconds,
        found,
        size: ids.length,
        raw: res.raw,
      });
    }
    opts.onProgress?.("rerank:llm", ++done, queries.length);
    return { ranking: [...top, ...all.slice(depth)].slice(0, k), calls };
  };

  const results = await Promise.all(
    queries.map((q) =>
      limit.run(async () => {
        if (failed) return { ranking: [], calls: [] };
        try {
          return await rerankOne(q);
        } catch (err) {
          failed = true;
          throw err;
        }
      }),
    ),
  );

  const rankings = new Map<QueryId, DocId[]>();
  const calls: Call[] = [];
  queries.forEach((q, i) => {
    rankings.set(q.id, results[i].ranking);
    calls.push(...results[i].calls);
  });
  const entries = calls.map((c) => c.entry);
  const unparsed = calls.filter((c) => c.found === 0);
  const incomplete = calls.filter((c) => c.found > 0 && c.found < c.size).length;
  const made = entries.filter((e) => !e.reused).length;
  for (const c of unparsed.slice(0, 3)) opts.log?.(`rerank:llm: no usable id in an answer, window order kept: ${JSON.stringify(c.raw.slice(0, 120))}`);
  opts.log?.(
    `rerank:llm: ${calls.length} call(s) for ${queries.length} quer${queries.length === 1 ? "y" : "ies"} (${made} made now, ${calls.length - made} from the replay cache); ` +
      `${unparsed.length} answer(s) without a usable id (window order kept), ${incomplete} incomplete (missing ids kept in their order)`,
  );

  const llm: LlmRunInfo = {
    // The project set stands for the prompt set's name and parser only; the prompts used are the
    // two re-ranking files, which belong to no prompt set (see the file header).
    ...llmRunInfo(model, loadPromptSet("project"), [], entries),
    prompts: { name: "project", commit: null, sha256: { ...prompts.sha256 } },
    parser: "project",
  };
  const modelName = splitModelId(model.id).model;
  const info: RunInfo = {
    retriever: name,
    llm,
    rerank: {
      reranker: "llm",
      kind: "listwise-llm",
      model: modelName,
      endpoint: model.endpoint ?? "(none)",
      depth,
      window,
      step,
      calls: made,
      servedModels: llm.servedModels,
      standIn: llm.standIn,
      unparsed: unparsed.length,
    },
    parts: firstStage.info ? [firstStage.info] : [],
  };
  // Seconds are the calls' own (recorded ones for replayed answers): the windows of a query run
  // one after another, so their sum is the query's latency, and a rerun reports the same.
  const own: RunCost = {
    online: { ...llmWork(calls.map((c) => c.usage)), seconds: calls.reduce((s, c) => s + c.seconds, 0) },
    corpus: zeroWork(),
    llmModel: modelName,
  };
  return { rankings, info, cost: addCosts(own, firstStage.cost)! };
}
