import { existsSync, promises as fs } from "node:fs";
import path from "node:path";
import type { Benchmark, Doc, DocId, Query, QueryId, QueryMeta } from "../types";
import { DataError, parsedOr } from "../util/errors";
import { linePieces, MAX_LINE_BYTES } from "../util/line-pieces";

export type Warn = (message: string) => void;

export type JsonlRecord = { line: number; value: Record<string, unknown> };

/** Reads a file as strict UTF-8 (see `decodeUtf8`), keeping any BOM. */
export async function readUtf8(file: string): Promise<string> {
  const bytes = await fs.readFile(file).catch((err: NodeJS.ErrnoException) => {
    throw new DataError(`cannot read file (${err.code ?? err.message})`, file);
  });
  return decodeUtf8(bytes, file);
}

// ignoreBOM keeps a leading BOM in the text, so readers can warn about it rather than lose it.
const STRICT_UTF8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

/** Where a piece of a file starts, so errors name the file's own position. */
type PieceStart = { offset: number; line: number };

/** UTF-8 to text; invalid bytes (not U+FFFD, which garbles Windows-1253) or past V8's string cap are a DataError. */
export function decodeUtf8(bytes: Uint8Array, file: string, from: PieceStart = { offset: 0, line: 1 }): string {
  try {
    return STRICT_UTF8.decode(bytes);
  } catch (err) {
    // The decoder throws a TypeError for bad bytes; anything else is V8's limit on a string's length.
    if (!(err instanceof TypeError)) {
      throw new DataError(
        `${bytes.length.toLocaleString("en-US")} bytes from line ${from.line} on are valid UTF-8 but too long for one JavaScript string ` +
          `(at most ${MAX_LINE_BYTES.toLocaleString("en-US")} characters; ${(err as Error).message}): split the text into lines or records`,
        file,
        from.line,
      );
    }
    const at = firstInvalidUtf8(bytes);
    // Up to 4 bytes, within the line (so a file read in pieces shows the same).
    const lineEnd = bytes.indexOf(0x0a, at);
    const shown = Array.from(bytes.subarray(at, Math.min(at + 4, lineEnd < 0 ? bytes.length : lineEnd)), (b) => `0x${b.toString(16).toUpperCase().padStart(2, "0")}`);
    throw new DataError(
      `invalid UTF-8 at byte offset ${from.offset + at} (bytes ${shown.join(" ")}); the file must be UTF-8: re-save it as UTF-8 or convert it (e.g. iconv -f WINDOWS-1253 -t UTF-8)`,
      file,
      // The bytes before `at` are valid; lines end at LF, CRLF or a lone CR, as readTextLines reads them.
      from.line - 1 + STRICT_UTF8.decode(bytes.subarray(0, at)).split(/\r\n?|\n/).length,
    );
  }
}

/** Offset of the first ill-formed sequence: where the lenient decoding, encoded again, parts from the bytes. */
function firstInvalidUtf8(bytes: Uint8Array): number {
  const again = Buffer.from(new TextDecoder("utf-8", { ignoreBOM: true }).decode(bytes));
  let i = 0;
  while (again[i] === bytes[i]) i++;
  // Back to the start of the U+FFFD that stands for the bad bytes (its first bytes may equal theirs).
  while ((again[i] & 0xc0) === 0x80) i--;
  return i;
}

const PIECE_BYTES = 64 << 20;

/** UTF-8 lines (BOM, CRLF dropped with a warning), read in pieces cut at line ends so a corpus past V8's string cap reads. */
export async function readTextLines(file: string, warn?: Warn, pieceBytes = PIECE_BYTES, maxLineBytes = MAX_LINE_BYTES): Promise<string[]> {
  const lines: string[] = [];
  const at: PieceStart = { offset: 0, line: 1 };
  let sawCr = false;
  for await (const piece of linePieces(file, { pieceBytes, maxLineBytes, line: () => at.line })) {
    let text = decodeUtf8(piece, file, at);
    if (at.offset === 0 && text.charCodeAt(0) === 0xfeff) {
      warn?.(`${file}: starts with a byte-order mark (BOM); ignored`);
      text = text.slice(1);
    }
    if (text.includes("\r")) {
      if (!sawCr) warn?.(`${file}: has CRLF or CR line ends; read as LF`);
      sawCr = true;
      text = text.replace(/\r\n?/g, "\n");
    }
    const got = text.split("\n");
    // A piece ends with its line's LF (the last piece may not): the empty string after it is no line.
    if (got[got.length - 1] === "") got.pop();
    for (const line of got) lines.push(line);
    at.offset += piece.length;
    at.line += got.length;
  }
  return lines;
}

/** Parses a JSON-lines file of objects holding `required` fields; errors name the file and line. */
export async function readJsonl(file: string, required: string[] = [], warn?: Warn): Promise<JsonlRecord[]> {
  return parseJsonlLines(await readTextLines(file, warn), file, required);
}

/** The parsing half of `readJsonl`. */
export function parseJsonlLines(lines: readonly string[], file: string, required: readonly string[] = []): JsonlRecord[] {
  const out: JsonlRecord[] = [];
  for (let i = 0; i < lines.length; i++) {
    const raw = lines[i];
    if (raw.trim() === "") continue;
    const value: unknown = parsedOr(() => JSON.parse(raw), (why) => new DataError(`malformed JSON (${why})`, file, i + 1));
    if (value === null || typeof value !== "object" || Array.isArray(value)) {
      throw new DataError("expected a JSON object", file, i + 1);
    }
    const obj = value as Record<string, unknown>;
    for (const field of required) {
      if (obj[field] === undefined || obj[field] === null) throw new DataError(`missing field "${field}"`, file, i + 1);
    }
    out.push({ line: i + 1, value: obj });
  }
  return out;
}

/** C0 and C1 controls and DEL: `\s` misses U+001C–U+001F and U+0085, which Python's `str.split()` splits on. */
const ID_CONTROL = /[\u0000-\u001f\u007f-\u009f]/u;

/** Why `id` cannot be an id, or undefined: ids are compared untrimmed and go into whitespace-separated runs. */
export function idProblem(what: string, id: string): string | undefined {
  const head = `${what} '${id}' is empty or contains whitespace`;
  if (id === "") return `${head}: every ${what} needs at least one character`;
  if (id.trim() !== id) return `${head}: it has leading or trailing whitespace, which is not trimmed (ids are compared exactly); remove it`;
  if (/\s/.test(id)) return `${head}: ids end up in whitespace-separated run files; replace the whitespace (e.g. with '_')`;
  const control = ID_CONTROL.exec(id);
  if (control) {
    const code = `U+${control[0].codePointAt(0)!.toString(16).toUpperCase().padStart(4, "0")}`;
    return `${what} ${JSON.stringify(id)} contains the control character ${code}: ids end up in whitespace-separated run files, which some readers split there; remove it`;
  }
  return undefined;
}

/** An id as written: a JSON string; a number is refused, as JSON.parse has already made `1.0` 1 and rounded long ids. */
function stringId(raw: unknown, file: string, line: number): string {
  if (typeof raw === "string") return raw;
  if (typeof raw === "number") throw new DataError(`id ${raw} is a JSON number: write ids as strings ("id": "${raw}"), so that none is rounded or merged`, file, line);
  throw new DataError(`id ${JSON.stringify(raw)} is not a string`, file, line);
}

/** A record's id: BEIR's `_id` or this project's older `id`; a line with both must give one id. */
function recordId(value: Record<string, unknown>, file: string, line: number): string {
  const has = (k: string) => value[k] !== undefined && value[k] !== null;
  if (!has("_id") && !has("id")) throw new DataError('missing field "_id" (BEIR\'s id field; "id" is read too)', file, line);
  const ids = ["_id", "id"].filter(has).map((k) => stringId(value[k], file, line));
  if (ids.length === 2 && ids[0] !== ids[1]) throw new DataError(`"_id" '${ids[0]}' and "id" '${ids[1]}' disagree; keep one id field`, file, line);
  return ids[0];
}

function toItems(records: JsonlRecord[], file: string): { id: string; text: string }[] {
  const seen = new Map<string, number>();
  return records.map(({ line, value }) => {
    const id = recordId(value, file, line);
    if (typeof value.text !== "string") throw new DataError(`field "text" of id '${id}' is not a string`, file, line);
    const bad = idProblem("id", id);
    if (bad) throw new DataError(bad, file, line);
    if (value.text.trim() === "") throw new DataError(`empty text for id '${id}'`, file, line);
    const first = seen.get(id);
    if (first !== undefined) throw new DataError(`duplicate id '${id}' (first on line ${first})`, file, line);
    seen.set(id, line);
    return { id, text: value.text };
  });
}

/** One qrels line, with its 1-based line number. */
export type Judgment = { query: QueryId; doc: DocId; score: number; line: number };

/** A qrels score, plain decimal integers only (Number() reads "" as 0, "0x10" as 16), or the error detail. */
export function parseScore(text: string, what: string): number | string {
  if (/^-?[0-9]+$/.test(text) && Number.isSafeInteger(Number(text))) return Number(text);
  const fix = "write relevance as a plain integer such as 0, 1 or 2 (0 or a negative integer means not relevant)";
  if (text === "") return `${what} is empty; ${fix}`;
  const kind = text.trim() !== "" && Number.isFinite(Number(text)) ? "is not a plain integer" : "is not a number";
  return `${what} '${text}' ${kind}; ${fix}`;
}

/** Every judgment of a qrels TSV in file order, scores <= 0 included; header, ids and scores checked strictly. */
export function parseJudgmentsTsv(lines: readonly string[], file: string): Judgment[] {
  const header = (lines[0] ?? "").split("\t").map((h) => h.trim());
  if (header.join("\t") !== "query-id\tcorpus-id\tscore") {
    throw new DataError(`wrong header ${JSON.stringify(lines[0] ?? "")}: expected "query-id<TAB>corpus-id<TAB>score"`, file, 1);
  }
  const out: Judgment[] = [];
  for (let i = 1; i < lines.length; i++) {
    if (lines[i].trim() === "") continue;
    const cols = lines[i].split("\t");
    if (cols.length !== 3) throw new DataError(`expected 3 tab-separated columns, found ${cols.length}`, file, i + 1);
    const [query, doc, scoreText] = cols;
    const bad = idProblem("query id", query) ?? idProblem("corpus id", doc);
    if (bad) throw new DataError(bad, file, i + 1);
    const score = parseScore(scoreText, "score");
    if (typeof score === "string") throw new DataError(score, file, i + 1);
    out.push({ query, doc, score, line: i + 1 });
  }
  if (out.length === 0) throw new DataError('no judgments: the file has no "query-id<TAB>corpus-id<TAB>score" line after the header', file);
  return out;
}

/**
 * Each query's judged articles with their grades (<= 0 kept). Queries in the order of their first relevant judgment (it
 * decides which query meets which random flip in `gbr compare`), those without one after.
 */
export function gradesOf(judgments: readonly Judgment[], file: string): Map<QueryId, Map<DocId, number>> {
  const grades = new Map<QueryId, Map<DocId, number>>();
  const lineOf = new Map<string, number>();
  const firstRelevant = new Set<QueryId>();
  for (const j of judgments) {
    let docs = grades.get(j.query);
    if (!docs) grades.set(j.query, (docs = new Map()));
    const prev = docs.get(j.doc);
    if (prev !== undefined && prev !== j.score) {
      throw new DataError(`query '${j.query}' judges article '${j.doc}' twice, ${prev} on line ${lineOf.get(`${j.query}\t${j.doc}`)} and ${j.score} here; keep one grade`, file, j.line);
    }
    if (prev === undefined) lineOf.set(`${j.query}\t${j.doc}`, j.line);
    docs.set(j.doc, j.score);
    if (j.score >= 1) firstRelevant.add(j.query);
  }
  if (firstRelevant.size === 0) {
    throw new DataError(`no relevant judgment: all ${judgments.length} judgments have a score <= 0 (a relevant article has score >= 1)`, file);
  }
  const ordered = new Map([...firstRelevant].map((q) => [q, grades.get(q)!]));
  for (const [q, docs] of grades) if (!ordered.has(q)) ordered.set(q, docs);
  return ordered;
}

/** Relevant articles per query (grade >= 1), in first-seen order; none at all is an error. */
export function relevantOf(judgments: readonly Judgment[], file: string): Map<QueryId, Set<DocId>> {
  const qrels = new Map<QueryId, Set<DocId>>();
  for (const [query, docs] of gradesOf(judgments, file)) {
    const relevant = [...docs].filter(([, g]) => g >= 1).map(([d]) => d);
    if (relevant.length) qrels.set(query, new Set(relevant));
  }
  return qrels;
}

/** `queriesFile` replaces the folder's queries (qrels are then restricted to them). */
export type ReadBeirOptions = { queriesFile?: string; qrelsFile?: string; name?: string; warn?: Warn };

/** Loads and cross-validates a BEIR-layout folder (corpus, queries, qrels/test.tsv, optional meta.jsonl). */
export async function readBeir(dir: string, opts: ReadBeirOptions = {}): Promise<Benchmark> {
  const corpusFile = path.join(dir, "corpus.jsonl");
  const queriesFile = opts.queriesFile ?? path.join(dir, "queries.jsonl");
  const qrelsFile = opts.qrelsFile ?? path.join(dir, "qrels", "test.tsv");
  const docs: Doc[] = toItems(await readJsonl(corpusFile, ["text"], opts.warn), corpusFile);
  if (docs.length === 0) throw new DataError("the corpus is empty (no article); a corpus.jsonl needs one {\"_id\", \"title\", \"text\"} line per article", corpusFile);
  const queries: Query[] = toItems(await readJsonl(queriesFile, ["text"], opts.warn), queriesFile);
  if (queries.length === 0) throw new DataError("no queries (the file has no record); a queries file needs one {\"_id\", \"text\"} line per query", queriesFile);
  const judgments = parseJudgmentsTsv(await readTextLines(qrelsFile, opts.warn), qrelsFile);
  const allQrels = relevantOf(judgments, qrelsFile);
  const top = judgments.reduce((m, j) => Math.max(m, j.score), -Infinity);
  // The experiments score binary relevance; said once, since nDCG on the grades would differ.
  if (top > 1) opts.warn?.(`${qrelsFile}: graded judgments (grades up to ${top}): retrieval experiments count grade >= 1 as relevant; 'gbr eval --qrels ${qrelsFile}' scores with the grades`);

  const docIds = new Set(docs.map((d) => d.id));
  const queryIds = new Set(queries.map((q) => q.id));
  const restricted = opts.queriesFile !== undefined;
  for (const j of judgments) {
    if (!queryIds.has(j.query) && !restricted) {
      throw new DataError(`qrels name query '${j.query}', which is not in ${queriesFile} (line ${j.line})`, qrelsFile);
    }
    if (!docIds.has(j.doc)) {
      throw new DataError(`qrels name article '${j.doc}' (query '${j.query}'), which is not in ${corpusFile} (line ${j.line})`, qrelsFile);
    }
  }
  const qrels = new Map<QueryId, Set<DocId>>();
  for (const [qid, rel] of allQrels) if (queryIds.has(qid)) qrels.set(qid, rel);

  const metaFile = path.join(dir, "meta.jsonl");
  const meta = existsSync(metaFile) ? await readMeta(metaFile, { queryIds, queriesFile, skipUnknown: restricted, warn: opts.warn }) : new Map<QueryId, QueryMeta>();
  return { name: opts.name ?? path.basename(path.resolve(dir)), docs, queries, qrels, meta };
}

const jsonl = (rows: unknown[]) => rows.map((r) => JSON.stringify(r)).join("\n") + (rows.length ? "\n" : "");

/** Writes a BEIR folder as beir's GenericDataLoader reads it; the title stays empty (the heading is part of the text). */
export async function writeBeir(dir: string, b: Benchmark): Promise<void> {
  await fs.mkdir(path.join(dir, "qrels"), { recursive: true });
  await fs.writeFile(path.join(dir, "corpus.jsonl"), jsonl(b.docs.map((d) => ({ _id: d.id, title: "", text: d.text }))));
  await fs.writeFile(path.join(dir, "queries.jsonl"), jsonl(b.queries.map((q) => ({ _id: q.id, text: q.text }))));
  const lines = ["query-id\tcorpus-id\tscore"];
  for (const q of b.queries) for (const d of b.qrels.get(q.id) ?? []) lines.push(`${q.id}\t${d}\t1`);
  await fs.writeFile(path.join(dir, "qrels", "test.tsv"), lines.join("\n") + "\n");
  if (b.meta.size > 0) {
    const rows = b.queries.filter((q) => b.meta.has(q.id)).map((q) => ({ id: q.id, ...b.meta.get(q.id) }));
    await fs.writeFile(path.join(dir, "meta.jsonl"), jsonl(rows));
  }
}

/** Reads a meta.jsonl with `readBeir`'s checks; a query outside `queryIds` fails, or is skipped with `skipUnknown`. */
export async function readMeta(
  metaFile: string,
  opts: { queryIds?: ReadonlySet<QueryId>; queriesFile?: string; skipUnknown?: boolean; warn?: (message: string) => void } = {},
): Promise<Map<QueryId, QueryMeta>> {
  const meta = new Map<QueryId, QueryMeta>();
  for (const { line, value } of await readJsonl(metaFile, [], opts.warn)) {
    const id = recordId(value, metaFile, line);
    const bad = idProblem("id", id);
    if (bad) throw new DataError(bad, metaFile, line);
    if (meta.has(id)) throw new DataError(`duplicate metadata for query '${id}'`, metaFile, line);
    if (opts.queryIds && !opts.queryIds.has(id)) {
      if (opts.skipUnknown) continue;
      throw new DataError(`meta names query '${id}', which is not in ${opts.queriesFile ?? "the queries"}`, metaFile, line);
    }
    const m: QueryMeta = {};
    const area = areaOf(value.area);
    if (typeof area === "object") throw new DataError(`"area" of query '${id}' ${area.problem}`, metaFile, line);
    if (area !== undefined) m.area = area;
    if (value.date !== undefined && value.date !== null) m.date = String(value.date);
    if (value.number !== undefined && value.number !== null) {
      m.number = Number(value.number);
      if (!Number.isFinite(m.number)) throw new DataError(`"number" of query '${id}' is not a number: ${JSON.stringify(value.number)}`, metaFile, line);
    }
    meta.set(id, m);
  }
  return meta;
}

/** A query's legal area, trimmed: `areaOf(" Civil law ")` is "Civil law", blank or null none, a non-string a problem. */
export function areaOf(raw: unknown): string | undefined | { problem: string } {
  if (raw === undefined || raw === null) return undefined;
  if (typeof raw !== "string") return { problem: `is ${JSON.stringify(raw)}, not a string: write the area as text, or leave it out for none` };
  return raw.trim() || undefined;
}
