/**
 * One-shot LLM query reformulation (the paper's "Reform-" runs): one chat call per query and
 * kind, turning a bar-exam case (facts + question) into
 * - sparse: a comma-separated list of 20–30 Greek legal keywords for BM25, or
 * - dense: one paragraph of Greek legal prose for an embedding model.
 *
 * Calls are expensive (a 120B model, 283 queries × 2 kinds), so every finished rewrite is
 * appended to a JSONL file at once and a rerun only asks for what is missing. The same
 * machinery (`runCachedCalls`) serves translation (translate.ts).
 */
import { createHash } from "node:crypto";
import { existsSync, promises as fs, readFileSync } from "node:fs";
import path from "node:path";
import { parseRewriteOfficial } from "./official-parsers";
import { fillPrompt, parserFor, PROJECT_PROMPTS_DIR, PromptError, type PromptSet } from "./prompts";
import { ChatError, stripReasoning, type ChatModel, type ChatRequest, type ChatResponse, type ChatUsage, type ParserName } from "./types";

/**
 * Which retriever the rewrite is for.
 *
 * @example
 * const kind: RewriteKind = retriever.startsWith("dense:") ? "dense" : "sparse";
 */
export type RewriteKind = "sparse" | "dense";

/**
 * Sampling settings of the paper's reformulation calls (DESIGN.md §6, the notebook's chat()).
 *
 * @example
 * await model.complete({ system, user, ...REFORMULATION_PARAMS });
 */
export const REFORMULATION_PARAMS = {
  temperature: 0.2,
  topP: 1,
  reasoningEffort: "low",
  maxTokens: 42000,
} as const satisfies Partial<ChatRequest>;

// ---------------------------------------------------------------------------------------------
// Resumable JSONL-backed calls (shared with translate.ts)
// ---------------------------------------------------------------------------------------------

/**
 * Options of every cached LLM batch (reformulation, translation).
 *
 * @example
 * const opts: CachedCallOptions = { outFile: "outputs/llm/sparse.jsonl", concurrency: 8, log: console.error };
 */
export interface CachedCallOptions {
  /** JSONL file: read first (unless resume is false), one line appended per finished item. */
  outFile?: string;
  /** Reuse the records already in outFile (default true); false starts the file afresh. */
  resume?: boolean;
  /** Calls in flight at once (default 4). */
  concurrency?: number;
  /** Progress and fallback reports (default: silent). */
  log?: (msg: string) => void;
  /**
   * Receives every item's outcome at the end, reused or new, in item order: the cost table counts
   * the usage recorded with reused answers too (a resumed run stands for the same work), and runs
   * record the parameters of the requests behind the answers.
   */
  onRecords?: (outcomes: CachedOutcome[]) => void;
}

/**
 * One item of a cached batch: its record, the request its answer belongs to (the stored answer
 * of a reused record was made by an identical request: its sha256 matched), and whether the
 * answer came from a saved file or the replay cache rather than a call made now.
 *
 * @example
 * opts.onRecords = (outcomes) => console.log(outcomes.filter((o) => o.reused).length, "reused");
 */
export interface CachedOutcome<R extends CachedRecord = CachedRecord> {
  record: R;
  request: ChatRequest;
  reused: boolean;
}

/**
 * Fields every cached record carries, whatever it holds.
 *
 * @example
 * const { records } = await readCacheFile(file);
 * const tokens = records.reduce((n, r) => n + (r as unknown as CachedRecord).usage.output, 0);
 */
export interface CachedRecord {
  id: string;
  /** The batch kind ("sparse"/"dense" for rewrites, "article"/"query" for translations). */
  kind: string;
  /** The answer exactly as the provider returned it (reasoning included), so parsing can be redone. */
  raw: string;
  usage: ChatUsage;
  seconds: number;
  /** True when the parsed answer was empty and the input text was used instead. */
  fallback?: boolean;
  /** ChatModel.id that answered. */
  model?: string;
  /** The answer came from the replay cache (recorded earlier), not from a call made for this record. */
  replayed?: boolean;
  /** The parser that made the stored text (`parser` of the prompt set); the text is re-parsed from `raw` on reuse. */
  parser?: ParserName;
  /**
   * sha256 of the exact request (system, user, sampling settings). A record is reused only for
   * the same request, so a changed prompt set, query text or setting is asked again instead of
   * silently served from an older run.
   */
  requestSha256?: string;
}

/**
 * What a batch must say about itself to run through `runCachedCalls`.
 *
 * @example
 * const spec: CachedCallSpec<Query, CachedRecord & { answer: string }> = {
 *   label: "demo", kind: "demo", request: (q) => ({ system: "…", user: q.text }),
 *   toRecord: (q, res, base) => ({ ...base, answer: res.text }),
 * };
 */
export interface CachedCallSpec<T extends { id: string }, R extends CachedRecord> {
  /** Names the batch in logs and errors, e.g. "reformulate sparse". */
  label: string;
  kind: string;
  request(item: T): ChatRequest;
  /** Is a stored line complete enough to reuse (e.g. has its text field)? Default: yes. */
  isValid?(rec: Record<string, unknown>): boolean;
  /** Builds the record to store from the model's answer (parsing, fallback). */
  toRecord(item: T, res: ChatResponse, base: Omit<CachedRecord, "fallback">): R;
}

/**
 * sha256 of a chat request, fields in a fixed order so the hash does not depend on how the
 * object was built.
 *
 * @example
 * requestSha256({ system: "s", user: "u", temperature: 0.2 }) === requestSha256({ temperature: 0.2, user: "u", system: "s" }); // true
 */
export function requestSha256(req: ChatRequest): string {
  const canonical = JSON.stringify([
    req.system,
    req.user,
    req.maxTokens ?? null,
    req.temperature ?? null,
    req.topP ?? null,
    req.reasoningEffort ?? null,
    req.seed ?? null,
  ]);
  return createHash("sha256").update(canonical, "utf8").digest("hex");
}

/**
 * Reads a JSONL cache, tolerating what a crash can leave: a torn last line, blank lines. Lines
 * that are not JSON objects with a string `id` are skipped and counted (a cache is worth
 * reading even if one line is damaged; the item is simply asked again).
 *
 * @example
 * const { records, skipped } = await readCacheFile("outputs/sparse-rewrites.jsonl");
 */
export async function readCacheFile(file: string): Promise<{ records: Record<string, unknown>[]; skipped: number }> {
  let text: string;
  try {
    text = await fs.readFile(file, "utf8");
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return { records: [], skipped: 0 };
    throw err;
  }
  const records: Record<string, unknown>[] = [];
  let skipped = 0;
  for (const line of text.split("\n")) {
    if (line.trim() === "") continue;
    try {
      const v = JSON.parse(line) as unknown;
      if (v && typeof v === "object" && !Array.isArray(v) && typeof (v as { id?: unknown }).id === "string") {
        records.push(v as Record<string, unknown>);
      } else skipped++;
    } catch {
      skipped++;
    }
  }
  return { records, skipped };
}

/**
 * An appender for one JSONL file: each record becomes one `appendFile` call of one complete line
 * (O_APPEND, a single write), and calls are chained so concurrent workers never interleave. A
 * file whose last line was torn by a crash gets a newline first, so the next record starts on a
 * line of its own.
 */
async function openAppender(file: string, fresh: boolean): Promise<(rec: object) => Promise<void>> {
  await fs.mkdir(path.dirname(path.resolve(file)), { recursive: true });
  if (fresh) await fs.writeFile(file, "");
  else if (existsSync(file)) {
    const handle = await fs.open(file, "r");
    try {
      const { size } = await handle.stat();
      if (size > 0) {
        const last = Buffer.alloc(1);
        await handle.read(last, 0, 1, size - 1);
        if (last[0] !== 0x0a) await fs.appendFile(file, "\n");
      }
    } finally {
      await handle.close();
    }
  }
  let chain: Promise<void> = Promise.resolve();
  return (rec: object) => {
    const line = JSON.stringify(rec) + "\n";
    chain = chain.then(() => fs.appendFile(file, line, "utf8"));
    return chain;
  };
}

/**
 * Runs one chat call per item through `model`, resumably: records already in `opts.outFile`
 * for the same id, kind, request and model are reused; every new answer is appended as soon as
 * it arrives. On a failed call no new calls start, the calls in flight finish and are saved, and
 * the error is raised (so a rerun continues where this one stopped). Returns the records by id,
 * in the order of `items`.
 *
 * @example
 * const recs = await runCachedCalls(queries, model, { outFile: "x.jsonl" }, {
 *   label: "demo", kind: "demo",
 *   request: (q) => ({ system: "…", user: q.text }),
 *   toRecord: (q, res, base) => ({ ...base, answer: res.text }),
 * });
 */
export async function runCachedCalls<T extends { id: string }, R extends CachedRecord>(
  items: readonly T[],
  model: ChatModel,
  opts: CachedCallOptions,
  spec: CachedCallSpec<T, R>,
): Promise<Map<string, R>> {
  const log = opts.log ?? (() => {});
  const seen = new Set<string>();
  for (const it of items) {
    if (seen.has(it.id)) throw new Error(`${spec.label}: duplicate id '${it.id}'`);
    seen.add(it.id);
  }
  const requests = new Map(items.map((it) => [it.id, spec.request(it)] as const));
  const shas = new Map([...requests].map(([id, req]) => [id, requestSha256(req)] as const));

  const done = new Map<string, R>();
  const fromFile = new Set<string>();
  const resume = opts.resume ?? true;
  if (opts.outFile && resume) {
    const { records, skipped } = await readCacheFile(opts.outFile);
    const mismatched = new Set<string>();
    for (const rec of records) {
      const id = rec.id as string;
      if (!requests.has(id) || rec.kind !== spec.kind) continue; // another batch's line
      if (spec.isValid && !spec.isValid(rec)) continue; // damaged: ask again
      const fits =
        (rec.requestSha256 === undefined || rec.requestSha256 === shas.get(id)) &&
        (rec.model === undefined || rec.model === model.id);
      if (fits) done.set(id, rec as unknown as R); // the last fitting line wins
      else mismatched.add(id);
    }
    const stale = [...mismatched].filter((id) => !done.has(id)).length;
    if (skipped > 0) log(`${spec.label}: ${skipped} unreadable line(s) in ${opts.outFile} ignored`);
    if (stale > 0) log(`${spec.label}: ${stale} cached record(s) were made with another prompt, input or model; asking again`);
    for (const id of done.keys()) fromFile.add(id);
  }
  const todo = items.filter((it) => !done.has(it.id));
  log(`${spec.label}: ${items.length} item(s), ${items.length - todo.length} cached, ${todo.length} to ask ${model.id}`);

  const append = opts.outFile ? await openAppender(opts.outFile, !resume) : undefined;
  let failure: { error: unknown; id: string } | undefined;
  let next = 0;
  let finished = 0;
  const worker = async () => {
    while (failure === undefined && next < todo.length) {
      const item = todo[next++];
      const req = requests.get(item.id)!;
      try {
        const res = await model.complete(req);
        const rec = spec.toRecord(item, res, {
          id: item.id,
          kind: spec.kind,
          raw: res.raw,
          usage: res.usage,
          seconds: res.seconds,
          model: model.id,
          requestSha256: shas.get(item.id),
          ...(res.replayed ? { replayed: true } : {}),
        });
        if (rec.fallback) log(`${spec.label}: ${item.id}: the answer was empty after parsing; using the original text`);
        if (append) await append(rec);
        done.set(item.id, rec);
        finished++;
      } catch (error) {
        if (failure === undefined) failure = { error, id: item.id };
      }
    }
  };
  const width = Math.max(1, Math.min(opts.concurrency ?? 4, todo.length));
  await Promise.all(Array.from({ length: width }, worker));
  if (failure !== undefined) {
    const { error, id } = failure;
    const saved = opts.outFile ? `; ${finished} new answer(s) saved in ${opts.outFile}, rerun to continue` : "";
    const msg = `${spec.label}: ${id}: ${(error as Error)?.message ?? String(error)}${saved}`;
    // Keep a provider failure a ChatError with its code (callers switch on it); anything else
    // (a full disk, a bug) stays a plain Error, with the same context.
    if (error instanceof ChatError) throw new ChatError(msg, error.code, { cause: error });
    throw new Error(msg, { cause: error });
  }
  const fallbacks = [...done.values()].filter((r) => r.fallback).length;
  if (fallbacks > 0) log(`${spec.label}: ${fallbacks} item(s) fell back to the original text (empty answers)`);
  const result = new Map(items.map((it) => [it.id, done.get(it.id)!] as const));
  opts.onRecords?.(
    items.map((it) => {
      const record = result.get(it.id)!;
      return { record, request: requests.get(it.id)!, reused: fromFile.has(it.id) || record.replayed === true };
    }),
  );
  return result;
}

// ---------------------------------------------------------------------------------------------
// Parsing the answers
// ---------------------------------------------------------------------------------------------

/** `LABEL:` with optional markdown emphasis around the label and/or the colon; case-insensitive. */
function labelPattern(labels: readonly string[]): RegExp {
  return new RegExp(`(?:\\*\\*|__)?\\b(?:${labels.join("|")})\\b(?:\\*\\*|__)?[ \\t]*[:：][ \\t]*(?:\\*\\*|__)?`, "i");
}

/** The start of another labelled section (REASON:, NOTE:, …): the answer's part we want ends there. */
const NEXT_SECTION = /\n[ \t>#*_-]*(?:\*\*|__)?[A-Z][A-Z_ ]{2,}(?:\*\*|__)?[ \t]*:/;

/** The text after the first of `labels`, up to the next labelled section; the whole text when there is no label. */
function afterLabel(text: string, labels: readonly string[]): string {
  const m = labelPattern(labels).exec(text);
  if (!m) return text;
  const rest = text.slice(m.index + m[0].length);
  const end = NEXT_SECTION.exec(rest);
  return end ? rest.slice(0, end.index) : rest;
}

/** Markdown and punctuation a model wraps around an item: emphasis, code ticks, quotes, a final full stop. */
function unwrap(s: string): string {
  let t = s.trim();
  for (let guard = 0; guard < 4; guard++) {
    const before = t;
    t = t.replace(/^(\*\*|__|\*|_|`)+|(\*\*|__|\*|_|`)+$/g, "").trim();
    t = t.replace(/^["'«“‘]+|["'»”’]+$/g, "").trim();
    t = t.replace(/\.$/, "").trim();
    if (t === before) break;
  }
  return t;
}

/**
 * The keyword list of a sparse rewrite, as one comma-separated string: the text after the
 * `KEYWORDS:` label when there is one (also `**KEYWORDS**:`, `**KEYWORDS:**`, any case), else
 * the whole answer; reasoning blocks removed; items split on commas and line breaks, bullets
 * (`-`, `*`, `•`) and numbering (`1.`, `2)`) dropped, then joined with ", ". "" when nothing is
 * left (the caller falls back to the original query).
 *
 * @example
 * parseSparseRewrite("**KEYWORDS**:\n1. μίσθωση\n2. καταγγελία, ΑΚ 597"); // "μίσθωση, καταγγελία, ΑΚ 597"
 * parseSparseRewrite("<think>…</think>KEYWORDS: έγκληση");              // "έγκληση"
 */
export function parseSparseRewrite(text: string): string {
  const body = afterLabel(stripReasoning(text), ["KEYWORDS"]);
  return body
    .split(/[,\n，]/)
    .map((item) => item.replace(/^\s*(?:[-*•▪●–—]+\s*|\d{1,2}[.)]\s+)/, ""))
    .map(unwrap)
    .filter((item) => item !== "")
    .join(", ");
}

/**
 * The paragraph of a dense rewrite: the text after the `QUERY:` label (also `**QUERY**:`,
 * `REWRITTEN_QUERY:`), else the whole answer; reasoning removed, whitespace collapsed into one
 * paragraph, wrapping quotes and emphasis dropped. "" when nothing is left.
 *
 * @example
 * parseDenseRewrite("QUERY:\nΑστική ευθύνη οδηγού\nαπό αδικοπραξία."); // "Αστική ευθύνη οδηγού από αδικοπραξία."
 */
export function parseDenseRewrite(text: string): string {
  const body = afterLabel(stripReasoning(text), ["QUERY", "REWRITTEN_QUERY"]);
  const para = body.replace(/\s+/g, " ").trim();
  // Only wrapping marks: the full stop that ends the paragraph is part of the prose.
  return para.replace(/^(\*\*|__|["«“])+|(\*\*|__|["»”])+$/g, "").trim();
}

// ---------------------------------------------------------------------------------------------
// Reformulation
// ---------------------------------------------------------------------------------------------

/**
 * One stored rewrite (a line of the JSONL outFile).
 *
 * @example
 * const recs = (await readCacheFile(file)).records as unknown as RewriteRecord[];
 * recs.filter((r) => r.fallback).map((r) => r.id); // queries whose answer was empty
 */
export interface RewriteRecord extends CachedRecord {
  kind: RewriteKind;
  /** The text to search with: the parsed answer, or the original query on fallback. */
  rewrite: string;
}

let projectRewriteSystem: string | undefined;

/**
 * The system message sent with the rewrite prompts: the set's REWRITE_SYSTEM when it has one;
 * else the project's for the project set, and an error for the official set (the notebook writes
 * it inline in the rewrite call, which `gbr prompts pull` reads; a notebook where it is not found
 * cannot be reproduced request for request).
 *
 * @example
 * rewriteSystemFor(loadPromptSet()); // "Είσαι βοηθός που αναδιατυπώνει …"
 */
export function rewriteSystemFor(prompts: PromptSet): string {
  if (prompts.extras.REWRITE_SYSTEM !== undefined) return prompts.extras.REWRITE_SYSTEM;
  // With the official prompts a stand-in system message would make every request differ from
  // the authors' and nothing would show it: refuse instead.
  if (prompts.name === "official") {
    throw new PromptError(
      `the official prompt set has no REWRITE_SYSTEM (the system message the notebook passes to its rewrite calls was not found in ${prompts.source}); ` +
        "run `gbr prompts pull` again, or use the project prompts",
      "MISSING_CONSTANTS",
    );
  }
  if (projectRewriteSystem === undefined) {
    const file = path.join(PROJECT_PROMPTS_DIR, "REWRITE_SYSTEM.txt");
    projectRewriteSystem = readFileSync(file, "utf8").replace(/\r\n?/g, "\n").replace(/\n$/, "");
  }
  return projectRewriteSystem;
}

/**
 * The exact chat request for one query: the set's rewrite system message, the sparse or dense
 * prompt with {original_query} filled by the query text verbatim, and the paper's settings.
 *
 * @example
 * const req = buildRewriteRequest("Ο Α μίσθωσε …", "sparse", loadPromptSet());
 * req.user.endsWith("Απάντησε τώρα μόνο με τη γραμμή KEYWORDS:."); // true
 */
export function buildRewriteRequest(queryText: string, kind: RewriteKind, prompts: PromptSet): ChatRequest {
  const template = kind === "sparse" ? prompts.texts.SPARSE_REWRITE_PROMPT : prompts.texts.DENSE_REWRITE_PROMPT;
  return {
    system: rewriteSystemFor(prompts),
    user: fillPrompt(template, { original_query: queryText }),
    ...REFORMULATION_PARAMS,
  };
}

/**
 * The text to search with for one rewrite answer, as the prompt set's parser reads it:
 * - "project": the lenient parser of the kind (`parseSparseRewrite`/`parseDenseRewrite`), and the
 *   original query when that is empty (`fallback`);
 * - "official": the authors' `parseRewriteOfficial`, and an empty result stays empty, as the
 *   notebook searches with it (`empty`).
 *
 * @example
 * rewriteOf("KEYWORDS: α, β", "sparse", "official", "Ερώτημα;"); // { text: "α, β", fallback: false, empty: false }
 * rewriteOf("", "sparse", "project", "Ερώτημα;");                // { text: "Ερώτημα;", fallback: true, empty: false }
 */
export function rewriteOf(raw: string, kind: RewriteKind, parser: ParserName, original: string): { text: string; fallback: boolean; empty: boolean } {
  if (parser === "official") {
    const text = parseRewriteOfficial(raw);
    return { text, fallback: false, empty: text === "" };
  }
  // stripReasoning here too: a provider's `text` is clean already, but a replayed or raw answer
  // may not be, and a think block must never reach BM25.
  const parsed = (kind === "sparse" ? parseSparseRewrite : parseDenseRewrite)(stripReasoning(raw));
  return parsed === "" ? { text: original, fallback: true, empty: false } : { text: parsed, fallback: false, empty: false };
}

/**
 * Rewrites every query for sparse or dense retrieval; returns the rewrite per query id, in the
 * order of `queries`. Answers are read by the prompt set's parser (`parserFor`): with the project
 * prompts an answer that parses to nothing falls back to the original query (logged, stored with
 * `fallback: true`); with the official prompts it is parsed exactly as the authors' notebook does,
 * and an empty rewrite stays empty (logged). A reused record is parsed again from its raw answer,
 * so the parser in force always decides. With `outFile`, resumable: records there are reused and
 * each new rewrite is appended as one JSON line `{id, kind, rewrite, raw, usage, seconds, …}`.
 *
 * @example
 * const rewrites = await reformulate(benchmark.queries, "sparse", model, loadPromptSet(), {
 *   outFile: "outputs/llm/sparse-rewrites.jsonl", concurrency: 8, log: console.error,
 * });
 * bm25.retrieve(benchmark.queries.map((q) => ({ id: q.id, text: rewrites.get(q.id)! })), 100);
 */
export async function reformulate(
  queries: readonly { id: string; text: string }[],
  kind: RewriteKind,
  model: ChatModel,
  prompts: PromptSet,
  opts: CachedCallOptions = {},
): Promise<Map<string, string>> {
  const parser = parserFor(prompts);
  const original = new Map(queries.map((q) => [q.id, q.text] as const));
  const records = await runCachedCalls<{ id: string; text: string }, RewriteRecord>(queries, model, opts, {
    label: `reformulate ${kind}`,
    kind,
    request: (q) => buildRewriteRequest(q.text, kind, prompts),
    isValid: (rec) => typeof rec.raw === "string",
    toRecord: (q, res, base) => {
      const r = rewriteOf(res.raw, kind, parser, q.text);
      return { ...base, kind, rewrite: r.text, parser, ...(r.fallback ? { fallback: true } : {}) };
    },
  });
  const out = new Map<string, string>();
  let empty = 0;
  for (const [id, rec] of records) {
    const r = rewriteOf(rec.raw, kind, parser, original.get(id)!);
    if (r.empty) empty++;
    out.set(id, r.text);
  }
  if (empty > 0) opts.log?.(`reformulate ${kind}: ${empty} rewrite(s) are empty after the authors' parsing; as in their notebook, they are searched as they are`);
  return out;
}
