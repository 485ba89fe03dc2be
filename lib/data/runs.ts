import { promises as fs } from "node:fs";
import path from "node:path";
import type { DocId, QueryId, Ranking, Run } from "../types";
import { idProblem, readTextLines, readUtf8, type Warn } from "./beir";
import { DataError } from "../util/errors";

/** Writes a TREC run (`qid Q0 docid rank score tag`); without scores, the paper's `101 − rank` stands in. */
export async function writeTrec(file: string, run: Run, tag: string): Promise<void> {
  await fs.mkdir(path.dirname(file), { recursive: true });
  await fs.writeFile(file, formatTrec(run, tag));
}

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

/** Reads a TREC run ordered by rank, then score descending, then file order; a duplicate document is an error. */
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

/** Writes `{qid: [docid, …]}`, one query per line so diffs between runs stay readable. */
export async function writeJsonRun(file: string, run: Run): Promise<void> {
  await fs.mkdir(path.dirname(file), { recursive: true });
  await fs.writeFile(file, formatJsonRun(run));
}

/** The JSON text of a run, in run order (which `JSON.stringify` would not keep for integer-like ids). */
export function formatJsonRun(run: Run): string {
  const entries = [...run.rankings].map(([q, r]) => `${JSON.stringify(q)}: ${JSON.stringify(r)}`);
  return `{\n${entries.join(",\n")}\n}\n`;
}

/** Reads a JSON run `{qid: [docid, …]}` (best first) as strict UTF-8, ids verbatim (see `idProblem`). */
export async function readJsonRun(file: string): Promise<Run> {
  const text = await readUtf8(file);
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    throw new DataError(`not a readable JSON run (${(err as Error).message})`, file);
  }
  if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed)) throw new DataError('expected an object {"qid": ["docid", …]}', file);
  const obj = parsed as Record<string, unknown>;
  const rankings = new Map<QueryId, Ranking>();
  // Object key order puts integer-like ids first; the file's order is the one to keep.
  for (const { key: qid, offset } of topLevelKeys(text)) {
    const list = obj[qid];
    if (rankings.has(qid)) throw new DataError(`query '${qid}' appears twice`, file);
    if (!Array.isArray(list) || !list.every((x) => typeof x === "string")) throw new DataError(`query '${qid}': expected an array of doc ids`, file);
    const badQuery = idProblem("query id", qid);
    if (badQuery) throw new DataError(badQuery, file, lineOf(text, offset));
    const badDoc = list.map((d) => idProblem("document id", d)).find((p) => p !== undefined);
    if (badDoc) throw new DataError(`${badDoc} (in the ranking of query '${qid}')`, file, lineOf(text, offset));
    const dup = list.find((d, i) => list.indexOf(d) !== i);
    if (dup !== undefined) throw new DataError(`document '${dup}' listed twice for query '${qid}'`, file);
    rankings.set(qid, list as string[]);
  }
  return { rankings };
}

function lineOf(text: string, offset: number): number {
  let line = 1;
  for (let i = text.indexOf("\n"); i !== -1 && i < offset; i = text.indexOf("\n", i + 1)) line++;
  return line;
}

/** Keys of the outermost JSON object and where each starts, in file order (the text is valid JSON). */
function topLevelKeys(text: string): { key: string; offset: number }[] {
  const keys: { key: string; offset: number }[] = [];
  let depth = 0;
  let expectKey = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '"') {
      let j = i + 1;
      while (text[j] !== '"') j += text[j] === "\\" ? 2 : 1;
      if (depth === 1 && expectKey) keys.push({ key: JSON.parse(text.slice(i, j + 1)) as string, offset: i });
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

/** How a run covers the queries of the qrels it is scored against. */
export interface RunCoverage {
  /** Queries with at least one relevant article in the qrels: what the metrics average over. */
  judged: number;
  /** Of those, the ones the run has a ranking for. */
  ranked: number;
  /** Run queries the qrels do not judge (the metrics ignore them), in run order. */
  unjudged: QueryId[];
  /** Set when some judged queries have no ranking: they score 0, which lowers every mean. */
  warning?: string;
}

/** An empty run, or one sharing no query with the qrels, is a DataError (a silent 0); a partial overlap warns. */
export function checkRunCoverage(
  run: Run,
  qrels: ReadonlyMap<QueryId, ReadonlySet<DocId>>,
  runFile: string,
  qrelsFile = "the qrels",
): RunCoverage {
  let docs = 0;
  for (const r of run.rankings.values()) docs += r.length;
  if (docs === 0) {
    const queries = run.rankings.size === 0 ? "no query" : `${run.rankings.size} queries, each with an empty ranking`;
    throw new DataError(`the run is empty (${queries}): nothing to evaluate; check that the retriever wrote its output to this file`, runFile);
  }
  const judged = [...qrels.keys()].filter((q) => (qrels.get(q)?.size ?? 0) > 0);
  const ranked = judged.filter((q) => run.rankings.has(q)).length;
  const unjudged = [...run.rankings.keys()].filter((q) => !qrels.has(q));
  if (ranked === 0) {
    throw new DataError(
      `the run shares no query with ${qrelsFile}: its ${run.rankings.size} queries (e.g. '${unjudged[0]}') are none of the qrels' ${judged.length} (e.g. '${judged[0]}'); check that run and qrels come from the same query set`,
      runFile,
    );
  }
  const coverage: RunCoverage = { judged: judged.length, ranked, unjudged };
  if (ranked < judged.length) {
    coverage.warning = `${runFile}: ${ranked} of the qrels' ${judged.length} queries are in the run; the ${judged.length - ranked} missing score 0`;
  }
  return coverage;
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
