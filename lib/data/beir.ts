import { promises as fs } from "node:fs";
import path from "node:path";
import type { Benchmark, Doc, DocId, Query, QueryId, QueryMeta } from "../types";
import { DataError } from "../util/errors";

/** Reports tolerated oddities (BOM, CRLF) without failing the load. */
export type Warn = (message: string) => void;

/** One parsed JSON line with the 1-based line number it came from. */
export interface JsonlRecord {
  line: number;
  value: Record<string, unknown>;
}

/**
 * Reads a text file, stripping a UTF-8 BOM and normalising CRLF line ends; both are reported
 * through `warn` because they usually mean the file passed through a spreadsheet or editor
 * that may have changed it in other ways too.
 *
 * @example
 * const lines = await readTextLines("data/sample/queries.jsonl");
 */
export async function readTextLines(file: string, warn?: Warn): Promise<string[]> {
  let text: string;
  try {
    // Decoding the whole buffer at once is several times faster than a streaming utf8 read.
    text = (await fs.readFile(file)).toString("utf8");
  } catch (err) {
    throw new DataError(`cannot read file (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`, file);
  }
  if (text.charCodeAt(0) === 0xfeff) {
    warn?.(`${file}: starts with a byte-order mark (BOM); ignored`);
    text = text.slice(1);
  }
  if (text.includes("\r")) {
    warn?.(`${file}: has CRLF or CR line ends; read as LF`);
    text = text.replace(/\r\n?/g, "\n");
  }
  const lines = text.split("\n");
  if (lines.length > 0 && lines[lines.length - 1] === "") lines.pop();
  return lines;
}

/**
 * Parses a JSON-lines file; every non-blank line must be a JSON object holding `required`
 * fields. Errors name the file and line.
 *
 * @example
 * const rows = await readJsonl("corpus.jsonl", ["id", "text"]);
 */
export async function readJsonl(file: string, required: string[] = [], warn?: Warn): Promise<JsonlRecord[]> {
  return parseJsonlLines(await readTextLines(file, warn), file, required);
}

/**
 * The parsing half of `readJsonl`, for text already split into lines (`file` only names the
 * source in errors).
 *
 * @example
 * parseJsonlLines(['{"id": "a", "text": "x"}'], "corpus.jsonl", ["id"]); // [{ line: 1, value: {…} }]
 */
export function parseJsonlLines(lines: readonly string[], file: string, required: readonly string[] = []): JsonlRecord[] {
  const out: JsonlRecord[] = [];
  for (let i = 0; i < lines.length; i++) {
    const raw = lines[i];
    if (raw.trim() === "") continue;
    let value: unknown;
    try {
      value = JSON.parse(raw);
    } catch (err) {
      throw new DataError(`malformed JSON (${(err as Error).message})`, file, i + 1);
    }
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

/** Converts id/text records to docs or queries, rejecting duplicate ids and empty texts. */
function toItems(records: JsonlRecord[], file: string): { id: string; text: string }[] {
  const seen = new Map<string, number>();
  return records.map(({ line, value }) => {
    const rawId = value.id ?? value._id;
    if (rawId === undefined || rawId === null) throw new DataError('missing field "id"', file, line);
    const id = String(rawId);
    if (typeof value.text !== "string") throw new DataError(`field "text" of id '${id}' is not a string`, file, line);
    if (/\s/.test(id) || id === "") throw new DataError(`id '${id}' is empty or contains whitespace`, file, line);
    if (value.text.trim() === "") throw new DataError(`empty text for id '${id}'`, file, line);
    const first = seen.get(id);
    if (first !== undefined) throw new DataError(`duplicate id '${id}' (first on line ${first})`, file, line);
    seen.set(id, line);
    return { id, text: value.text };
  });
}

/**
 * Reads a BEIR qrels TSV (`query-id corpus-id score` header, tab separated); pairs with
 * score <= 0 are not relevant and are dropped.
 *
 * @example
 * const qrels = await readQrelsTsv("data/sample/qrels/test.tsv");
 * qrels.get("Q01"); // Set { "ΑΚ::914", ... }
 */
export async function readQrelsTsv(file: string, warn?: Warn): Promise<Map<QueryId, Set<DocId>>> {
  return parseQrelsTsv(await readTextLines(file, warn), file);
}

/**
 * The parsing half of `readQrelsTsv`, for lines already read (`file` names the source in errors).
 *
 * @example
 * parseQrelsTsv(["query-id\tcorpus-id\tscore", "q1\td1\t1"], "test.tsv"); // Map { "q1" => Set { "d1" } }
 */
export function parseQrelsTsv(lines: readonly string[], file: string): Map<QueryId, Set<DocId>> {
  const header = (lines[0] ?? "").split("\t").map((h) => h.trim());
  if (header.join("\t") !== "query-id\tcorpus-id\tscore") {
    throw new DataError(
      `wrong header ${JSON.stringify(lines[0] ?? "")}: expected "query-id<TAB>corpus-id<TAB>score"`,
      file,
      1,
    );
  }
  const qrels = new Map<QueryId, Set<DocId>>();
  for (let i = 1; i < lines.length; i++) {
    if (lines[i].trim() === "") continue;
    const cols = lines[i].split("\t");
    if (cols.length !== 3) throw new DataError(`expected 3 tab-separated columns, found ${cols.length}`, file, i + 1);
    const [qid, did, scoreText] = cols.map((c) => c.trim());
    const score = Number(scoreText);
    if (!Number.isFinite(score)) throw new DataError(`score '${scoreText}' is not a number`, file, i + 1);
    if (score <= 0) continue;
    let set = qrels.get(qid);
    if (!set) qrels.set(qid, (set = new Set()));
    set.add(did);
  }
  return qrels;
}

export interface ReadBeirOptions {
  /** A queries.jsonl that replaces the folder's own (qrels are then restricted to its queries). */
  queriesFile?: string;
  /** Qrels file; default `<dir>/qrels/test.tsv`. */
  qrelsFile?: string;
  name?: string;
  warn?: Warn;
}

/**
 * Loads a benchmark folder in BEIR layout: corpus.jsonl, queries.jsonl, qrels/test.tsv and
 * optional meta.jsonl. Validates ids, texts and the qrels against both sides, naming the
 * file and line of the first problem.
 *
 * @example
 * const bench = await readBeir("data/sample");
 * bench.docs.length; // 100-odd articles
 */
export async function readBeir(dir: string, opts: ReadBeirOptions = {}): Promise<Benchmark> {
  const corpusFile = path.join(dir, "corpus.jsonl");
  const queriesFile = opts.queriesFile ?? path.join(dir, "queries.jsonl");
  const qrelsFile = opts.qrelsFile ?? path.join(dir, "qrels", "test.tsv");
  const docs: Doc[] = toItems(await readJsonl(corpusFile, ["text"], opts.warn), corpusFile);
  const queries: Query[] = toItems(await readJsonl(queriesFile, ["text"], opts.warn), queriesFile);
  const allQrels = await readQrelsTsv(qrelsFile, opts.warn);

  const docIds = new Set(docs.map((d) => d.id));
  const queryIds = new Set(queries.map((q) => q.id));
  const restricted = opts.queriesFile !== undefined;
  const qrels = new Map<QueryId, Set<DocId>>();
  for (const [qid, rel] of allQrels) {
    if (!queryIds.has(qid)) {
      if (restricted) continue;
      throw new DataError(`qrels name query '${qid}', which is not in ${queriesFile}`, qrelsFile);
    }
    for (const did of rel) {
      if (!docIds.has(did)) throw new DataError(`qrels name article '${did}' (query '${qid}'), which is not in ${corpusFile}`, qrelsFile);
    }
    qrels.set(qid, rel);
  }
  for (const q of queries) {
    if (!qrels.has(q.id)) throw new DataError(`query '${q.id}' has no relevant article in ${qrelsFile}`, queriesFile);
  }

  const meta = new Map<QueryId, QueryMeta>();
  const metaFile = path.join(dir, "meta.jsonl");
  if (await exists(metaFile)) {
    for (const { line, value } of await readJsonl(metaFile, ["id"], opts.warn)) {
      const id = String(value.id);
      if (meta.has(id)) throw new DataError(`duplicate metadata for query '${id}'`, metaFile, line);
      if (!queryIds.has(id)) {
        if (restricted) continue;
        throw new DataError(`meta names query '${id}', which is not in ${queriesFile}`, metaFile, line);
      }
      const m: QueryMeta = {};
      if (value.area !== undefined && value.area !== null) m.area = String(value.area);
      if (value.date !== undefined && value.date !== null) m.date = String(value.date);
      if (value.number !== undefined && value.number !== null) {
        m.number = Number(value.number);
        if (!Number.isFinite(m.number)) throw new DataError(`"number" of query '${id}' is not a number: ${JSON.stringify(value.number)}`, metaFile, line);
      }
      meta.set(id, m);
    }
  }
  return { name: opts.name ?? path.basename(path.resolve(dir)), docs, queries, qrels, meta };
}

async function exists(file: string): Promise<boolean> {
  try {
    await fs.access(file);
    return true;
  } catch {
    return false;
  }
}

const jsonl = (rows: unknown[]) => rows.map((r) => JSON.stringify(r)).join("\n") + (rows.length ? "\n" : "");

/**
 * Writes a benchmark as a BEIR folder that `readBeir` reads back unchanged (corpus order kept).
 *
 * @example
 * await writeBeir("/tmp/my-bench", bench);
 */
export async function writeBeir(dir: string, b: Benchmark): Promise<void> {
  await fs.mkdir(path.join(dir, "qrels"), { recursive: true });
  await fs.writeFile(path.join(dir, "corpus.jsonl"), jsonl(b.docs.map((d) => ({ id: d.id, text: d.text }))));
  await fs.writeFile(path.join(dir, "queries.jsonl"), jsonl(b.queries.map((q) => ({ id: q.id, text: q.text }))));
  const lines = ["query-id\tcorpus-id\tscore"];
  for (const q of b.queries) for (const d of b.qrels.get(q.id) ?? []) lines.push(`${q.id}\t${d}\t1`);
  await fs.writeFile(path.join(dir, "qrels", "test.tsv"), lines.join("\n") + "\n");
  if (b.meta.size > 0) {
    const rows = b.queries.filter((q) => b.meta.has(q.id)).map((q) => ({ id: q.id, ...b.meta.get(q.id) }));
    await fs.writeFile(path.join(dir, "meta.jsonl"), jsonl(rows));
  }
}
