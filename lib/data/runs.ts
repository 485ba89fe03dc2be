import { promises as fs } from "node:fs";
import path from "node:path";
import type { QueryId, Ranking, Run } from "../types";
import { readTextLines, type Warn } from "./beir";
import { DataError } from "../util/errors";

/**
 * Serialises a run in TREC format (`qid Q0 docid rank score tag`). Scores are the run's own
 * when it has them, printed at full precision; otherwise `101 − rank`, the paper's convention,
 * which keeps the order unambiguous for tools that re-sort by score.
 *
 * @example
 * await writeTrec("outputs/sample/runs/bm25.trec", run, "bm25-greekstemmer");
 */
export async function writeTrec(file: string, run: Run, tag: string): Promise<void> {
  await fs.mkdir(path.dirname(file), { recursive: true });
  await fs.writeFile(file, formatTrec(run, tag));
}

/**
 * The TREC text of a run (see `writeTrec`).
 *
 * @example
 * formatTrec({ rankings: new Map([["q1", ["d1"]]]) }, "x"); // "q1 Q0 d1 1 100 x\n"
 */
export function formatTrec(run: Run, tag: string): string {
  if (/\s/.test(tag)) throw new Error(`run tag '${tag}' must not contain whitespace`);
  const parts: string[] = [];
  for (const [qid, ranking] of run.rankings) {
    const scores = run.scores?.get(qid);
    if (scores && scores.length < ranking.length) throw new Error(`run has ${scores.length} scores for ${ranking.length} documents of query '${qid}'`);
    for (let i = 0; i < ranking.length; i++) {
      const score = scores ? pyRepr(scores[i]) : String(101 - (i + 1));
      parts.push(`${qid} Q0 ${ranking[i]} ${i + 1} ${score} ${tag}\n`);
    }
  }
  return parts.join("");
}

/** Python's repr of a float for the magnitudes BM25 produces (shortest round-trip digits). */
function pyRepr(x: number): string {
  if (Number.isInteger(x) && Math.abs(x) < 1e16) return x.toFixed(1);
  return String(x);
}

/**
 * Reads a TREC run; each query's documents are ordered by the rank column (ties in rank, or
 * a file without meaningful ranks, fall back to score descending, then file order). A
 * document listed twice for a query is an error naming the line.
 *
 * @example
 * const run = await readTrec("../shared/oracles/greeklaws-2021/bm25-greekstemmer-sample.trec");
 */
export async function readTrec(file: string, warn?: Warn): Promise<Run> {
  const lines = await readTextLines(file, warn);
  const rows = new Map<QueryId, { doc: string; rank: number; score: number; line: number }[]>();
  for (let i = 0; i < lines.length; i++) {
    const raw = lines[i].trim();
    if (raw === "") continue;
    const cols = raw.split(/\s+/);
    if (cols.length !== 6) throw new DataError(`expected 6 columns "qid Q0 docid rank score tag", found ${cols.length}`, file, i + 1);
    const [qid, , doc, rankText, scoreText] = cols;
    const rank = Number(rankText);
    const score = Number(scoreText);
    if (!Number.isFinite(rank) || !Number.isFinite(score)) throw new DataError("rank and score must be numbers", file, i + 1);
    let list = rows.get(qid);
    if (!list) rows.set(qid, (list = []));
    list.push({ doc, rank, score, line: i + 1 });
  }
  const rankings = new Map<QueryId, Ranking>();
  const scores = new Map<QueryId, number[]>();
  for (const [qid, list] of rows) {
    list.sort((a, b) => a.rank - b.rank || b.score - a.score || a.line - b.line);
    const seen = new Map<string, number>();
    for (const r of list) {
      const prev = seen.get(r.doc);
      if (prev !== undefined) throw new DataError(`document '${r.doc}' listed twice for query '${qid}' (first on line ${prev})`, file, r.line);
      seen.set(r.doc, r.line);
    }
    rankings.set(qid, list.map((r) => r.doc));
    scores.set(qid, list.map((r) => r.score));
  }
  return { rankings, scores };
}

/**
 * Writes `{qid: [docid, …]}` with one query per line, so diffs between runs stay readable.
 *
 * @example
 * await writeJsonRun("outputs/sample/runs/bm25.json", run);
 */
export async function writeJsonRun(file: string, run: Run): Promise<void> {
  await fs.mkdir(path.dirname(file), { recursive: true });
  await fs.writeFile(file, formatJsonRun(run));
}

/**
 * The JSON text of a run, queries in run order (which `JSON.stringify` of an object would not
 * keep for integer-like ids), one query per line.
 *
 * @example
 * formatJsonRun({ rankings: new Map([["q1", ["d1", "d2"]]]) }); // '{\n"q1": ["d1","d2"]\n}\n'
 */
export function formatJsonRun(run: Run): string {
  const entries = [...run.rankings].map(([q, r]) => `${JSON.stringify(q)}: ${JSON.stringify(r)}`);
  return `{\n${entries.join(",\n")}\n}\n`;
}

/**
 * Reads a JSON run `{qid: [docid, …]}` (best first).
 *
 * @example
 * const run = await readJsonRun("outputs/sample/runs/bm25.json");
 */
export async function readJsonRun(file: string): Promise<Run> {
  let text: string;
  let parsed: unknown;
  try {
    text = await fs.readFile(file, "utf8");
    parsed = JSON.parse(text);
  } catch (err) {
    throw new DataError(`not a readable JSON run (${(err as Error).message})`, file);
  }
  if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed)) throw new DataError('expected an object {"qid": ["docid", …]}', file);
  const obj = parsed as Record<string, unknown>;
  const rankings = new Map<QueryId, Ranking>();
  // Object key order puts integer-like ids first; the file's order is the one to keep.
  for (const qid of topLevelKeys(text)) {
    const list = obj[qid];
    if (rankings.has(qid)) throw new DataError(`query '${qid}' appears twice`, file);
    if (!Array.isArray(list) || !list.every((x) => typeof x === "string")) throw new DataError(`query '${qid}': expected an array of doc ids`, file);
    const dup = list.find((d, i) => list.indexOf(d) !== i);
    if (dup !== undefined) throw new DataError(`document '${dup}' listed twice for query '${qid}'`, file);
    rankings.set(qid, list as string[]);
  }
  return { rankings };
}

/** Keys of the outermost JSON object, in file order (the text is known to be valid JSON). */
function topLevelKeys(text: string): string[] {
  const keys: string[] = [];
  let depth = 0;
  let expectKey = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '"') {
      let j = i + 1;
      while (text[j] !== '"') j += text[j] === "\\" ? 2 : 1;
      if (depth === 1 && expectKey) keys.push(JSON.parse(text.slice(i, j + 1)) as string);
      expectKey = false;
      i = j;
    } else if (c === "{" || c === "[") {
      depth++;
      expectKey = c === "{" && depth === 1;
    } else if (c === "}" || c === "]") depth--;
    else if (c === "," && depth === 1) expectKey = true;
  }
  return keys;
}

/**
 * Reads a run in either format, chosen by extension (`.json` or anything else as TREC).
 *
 * @example
 * const run = await readRun("outputs/sample/runs/bm25-greekstemmer.trec");
 */
export function readRun(file: string): Promise<Run> {
  return file.endsWith(".json") ? readJsonRun(file) : readTrec(file);
}
