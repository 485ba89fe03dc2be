import { existsSync, promises as fs } from "node:fs";
import path from "node:path";
import { relevantCount, type Qrels, type QueryId, type Ranking, type Run } from "../types";
import { idProblem, readTextLines, readUtf8, type Warn } from "./beir";
import { DataError, parsedOr } from "../util/errors";
import { fileNameOf } from "../util/file-name";

/** A run file's formats: TREC (`qid Q0 docid rank score tag`), ranx's `{qid: {docid: score}}`, `{qid: [docid, …]}`. */
export type RunFormat = "trec" | "ranx" | "json";

/** Writes a run in `format`; without scores, the paper's `101 − rank` stands in. */
export async function writeRun(file: string, run: Run, format: RunFormat, tag: string): Promise<void> {
  await fs.mkdir(path.dirname(file), { recursive: true });
  await fs.writeFile(file, formatRun(run, format, tag));
}

/** A run as the text of a run file in `format`. */
export function formatRun(run: Run, format: RunFormat, tag: string): string {
  return format === "json" ? formatJsonRun(run) : format === "ranx" ? formatRanxRun(run) : formatTrec(run, tag);
}

export function formatTrec(run: Run, tag: string): string {
  if (/\s/.test(tag)) throw new Error(`run tag '${tag}' must not contain whitespace`);
  const parts: string[] = [];
  for (const [qid, ranking] of run.rankings) {
    const scores = scoresOf(run, qid);
    for (let i = 0; i < ranking.length; i++) {
      const score = scores ? pyRepr(scores[i]) : String(100 - i);
      parts.push(`${qid} Q0 ${ranking[i]} ${i + 1} ${score} ${tag}\n`);
    }
  }
  return parts.join("");
}

/** A query's scores, checked against its ranking; undefined when the run has none. */
function scoresOf(run: Run, qid: QueryId): number[] | undefined {
  const scores = run.scores?.get(qid);
  const n = run.rankings.get(qid)?.length ?? 0;
  if (scores && scores.length < n) throw new Error(`run has ${scores.length} scores for ${n} documents of query '${qid}'`);
  return scores;
}

/** Python's repr of a float for the magnitudes BM25 produces (shortest round-trip digits). */
function pyRepr(x: number): string {
  if (Number.isInteger(x) && Math.abs(x) < 1e16) return x.toFixed(1);
  return String(x);
}

/** Reads a TREC run ordered by rank, then score descending, then file order; the tag is kept when all lines share it. */
export async function readTrec(file: string, warn?: Warn): Promise<Run> {
  const lines = await readTextLines(file, warn);
  const rows = new Map<QueryId, { doc: string; rank: number; score: number; line: number }[]>();
  const tags = new Set<string>();
  for (let i = 0; i < lines.length; i++) {
    const raw = lines[i].trim();
    if (raw === "") continue;
    const cols = raw.split(/\s+/);
    if (cols.length !== 6) throw new DataError(`expected 6 columns "qid Q0 docid rank score tag", found ${cols.length}`, file, i + 1);
    const [qid, , doc, rankText, scoreText, tag] = cols;
    const badId = idProblem("query id", qid) ?? idProblem("document id", doc);
    if (badId) throw new DataError(badId, file, i + 1);
    tags.add(tag);
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
  return { rankings, scores, ...(tags.size === 1 ? { tag: [...tags][0] } : {}) };
}

/** `{qid: [docid, …]}` in run order (which `JSON.stringify` would not keep for integer-like ids). */
export function formatJsonRun(run: Run): string {
  const entries = [...run.rankings].map(([q, r]) => `${JSON.stringify(q)}: ${JSON.stringify(r)}`);
  return `{\n${entries.join(",\n")}\n}\n`;
}

/** ranx's JSON run, `{qid: {docid: score}}`, in run order; without scores the paper's `101 − rank` stands in. */
export function formatRanxRun(run: Run): string {
  const entries = [...run.rankings].map(([q, ranking]) => {
    const scores = scoresOf(run, q);
    const docs = ranking.map((d, i) => {
      const score = scores ? scores[i] : 100 - i;
      if (!Number.isFinite(score)) throw new Error(`query '${q}': score ${score} of '${d}' cannot be written as JSON`);
      return `${JSON.stringify(d)}: ${JSON.stringify(score)}`;
    });
    return `${JSON.stringify(q)}: {${docs.join(", ")}}`;
  });
  return `{\n${entries.join(",\n")}\n}\n`;
}

/** Reads ranx's `{qid: {docid: score}}` (by score, ties in file order) or `{qid: [docid, …]}`; queries in file order. */
export async function readJsonRun(file: string): Promise<Run> {
  const text = await readUtf8(file);
  const parsed: unknown = parsedOr(() => JSON.parse(text), (why) => new DataError(`not a readable JSON run (${why})`, file));
  const expected = 'expected an object, ranx\'s {"qid": {"docid": score, …}} or {"qid": ["docid", …]}';
  if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed)) throw new DataError(expected, file);
  const obj = parsed as Record<string, unknown>;
  const rankings = new Map<QueryId, Ranking>();
  const scores = new Map<QueryId, number[]>();
  let shape: "ranx" | "json" | undefined;
  // Object key order puts integer-like ids first; the file's order is the one to keep (and breaks equal scores).
  for (const { key: qid, offset, children } of objectKeys(text)) {
    const value = obj[qid];
    const line = lineOf(text, offset);
    if (rankings.has(qid)) throw new DataError(`query '${qid}' appears twice`, file, line);
    const badQuery = idProblem("query id", qid);
    if (badQuery) throw new DataError(badQuery, file, line);
    const here: typeof shape = Array.isArray(value) ? "json" : value !== null && typeof value === "object" ? "ranx" : undefined;
    if (here === undefined || (shape !== undefined && here !== shape)) {
      const like = shape === "ranx" ? "an object {docid: score} like the queries before it" : shape === "json" ? "an array of doc ids like the queries before it" : expected;
      throw new DataError(`query '${qid}': expected ${like}`, file, line);
    }
    shape = here;
    let list: string[];
    if (here === "json") {
      if (!(value as unknown[]).every((x) => typeof x === "string")) throw new DataError(`query '${qid}': expected an array of doc ids`, file, line);
      list = value as string[];
    } else {
      const docScores = value as Record<string, unknown>;
      const order = children ?? [];
      const bad = order.find((d) => typeof docScores[d] !== "number" || !Number.isFinite(docScores[d]));
      if (bad !== undefined) throw new DataError(`query '${qid}': the score of '${bad}' is ${JSON.stringify(docScores[bad])}, not a number`, file, line);
      // Array.prototype.sort is stable: equal scores keep the file's order.
      list = [...order].sort((x, y) => (docScores[y] as number) - (docScores[x] as number));
      scores.set(qid, list.map((d) => docScores[d] as number));
    }
    const badDoc = list.map((d) => idProblem("document id", d)).find((p) => p !== undefined);
    if (badDoc) throw new DataError(`${badDoc} (in the ranking of query '${qid}')`, file, line);
    const dup = list.find((d, i) => list.indexOf(d) !== i);
    if (dup !== undefined) throw new DataError(`document '${dup}' listed twice for query '${qid}'`, file, line);
    rankings.set(qid, list);
  }
  return shape === "ranx" ? { rankings, scores } : { rankings };
}

function lineOf(text: string, offset: number): number {
  let line = 1;
  for (let i = text.indexOf("\n"); i !== -1 && i < offset; i = text.indexOf("\n", i + 1)) line++;
  return line;
}

/** Keys of valid JSON's outermost object in file order, with their offsets and the keys of object values. */
function objectKeys(text: string): { key: string; offset: number; children?: string[] }[] {
  const keys: { key: string; offset: number; children?: string[] }[] = [];
  const open: string[] = [];
  let expectKey = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '"') {
      let j = i + 1;
      while (text[j] !== '"') j += text[j] === "\\" ? 2 : 1;
      if (expectKey) {
        const key = JSON.parse(text.slice(i, j + 1)) as string;
        if (open.length === 1) keys.push({ key, offset: i });
        else if (open.length === 2) (keys[keys.length - 1].children ??= []).push(key);
      }
      expectKey = false;
      i = j;
    } else if (c === "{" || c === "[") {
      open.push(c);
      expectKey = c === "{";
      if (c === "{" && open.length === 2) keys[keys.length - 1].children ??= [];
    } else if (c === "}" || c === "]") {
      open.pop();
      expectKey = false;
    } else if (c === ",") expectKey = open[open.length - 1] === "{";
  }
  return keys;
}

/** How a run covers the qrels' judged queries; `warning` when some have no ranking (they score 0). */
export type RunCoverage = { judged: number; ranked: number; unjudged: QueryId[]; warning?: string };

/** An empty run, or one sharing no query with the qrels, is a DataError (a silent 0); a partial overlap warns. */
export function checkRunCoverage(run: Run, qrels: Qrels, runFile: string, qrelsFile = "the qrels"): RunCoverage {
  let docs = 0;
  for (const r of run.rankings.values()) docs += r.length;
  if (docs === 0) {
    const queries = run.rankings.size === 0 ? "no query" : `${run.rankings.size} queries, each with an empty ranking`;
    throw new DataError(`the run is empty (${queries}): nothing to evaluate; check that the retriever wrote its output to this file`, runFile);
  }
  const judged = [...qrels].filter(([, j]) => relevantCount(j) > 0).map(([q]) => q);
  const ranked = judged.filter((q) => run.rankings.has(q)).length;
  const unjudged = [...run.rankings.keys()].filter((q) => relevantCount(qrels.get(q) ?? new Set()) === 0);
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

/** An experiment's run file in an outputs folder, without extension: runs/<fileNameOf(id)>[.s<sample>]. */
export function runFileBase(id: string, sample?: number): string {
  return `runs/${fileNameOf(id)}${sample === undefined ? "" : `.s${sample}`}`;
}

/** An experiment's run file: JSON before TREC, then sample 0's (`--repeat`), then older folders' names (the id itself). */
export function findRunFile(outDir: string, id: string): string {
  const base = path.join(outDir, runFileBase(id));
  const [json, trec] = [`${base}.json`, `${base}.trec`];
  const first = path.join(outDir, runFileBase(id, 0));
  const legacy = path.join(outDir, "runs", id);
  const found = [json, trec, `${first}.json`, `${first}.trec`, `${legacy}.json`, `${legacy}.trec`].find((f) => existsSync(f));
  if (!found) throw new DataError(`no run of experiment '${id}' (looked for ${path.basename(json)} and ${path.basename(trec)})`, path.join(outDir, "runs"));
  return found;
}

/** A run's name in `gbr compare`: its file name, or its TREC tag when the name is that tag made safe (`rrf__a+b`). */
export function runName(file: string, run: Run): string {
  const base = path.parse(file).name;
  return run.tag !== undefined && fileNameOf(run.tag) === base ? run.tag : base;
}

/**
 * Reads a run file (TREC, or JSON when the name ends in .json), or an outputs folder's run of an experiment id.
 *
 * @example
 * const run = await readRun("outputs/sample/runs/bm25-greekstemmer.trec");
 * const fused = await readRun("outputs/sample", "rrf:bm25-greekstemmer+lsi");
 */
export function readRun(file: string, experimentId?: string): Promise<Run> {
  if (experimentId !== undefined) return readRun(findRunFile(file, experimentId));
  return file.endsWith(".json") ? readJsonRun(file) : readTrec(file);
}
