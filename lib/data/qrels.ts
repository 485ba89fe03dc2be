import path from "node:path";
import type { DocId, QueryId } from "../types";
import { gradesOf, parseJudgmentsTsv, parseScore, readTextLines, relevantOf, type Judgment } from "./beir";
import { DataError } from "../util/errors";
import { writeAtomically } from "../util/safe-files";

/** Every judgment of a qrels file, BEIR TSV or TREC (`qid 0 docid rel`), told apart by the first line. */
export async function readJudgments(file: string): Promise<Judgment[]> {
  const lines = await readTextLines(file);
  return (lines[0] ?? "").startsWith("query-id") ? parseJudgmentsTsv(lines, file) : parseTrecJudgments(lines, file);
}

/** Reads qrels (BEIR TSV or TREC) as binary relevance: the articles with grade >= 1. */
export async function readQrels(file: string): Promise<Map<QueryId, Set<DocId>>> {
  return relevantOf(await readJudgments(file), file);
}

/** Reads qrels (BEIR TSV or TREC) with their grades, as trec_eval scores them (nDCG's gain is the grade). */
export async function readGradedQrels(file: string): Promise<Map<QueryId, Map<DocId, number>>> {
  return gradesOf(await readJudgments(file), file);
}

/** Every judgment of TREC qrels (whitespace separated) in file order, scores <= 0 included. */
export function parseTrecJudgments(lines: readonly string[], file: string): Judgment[] {
  const out: Judgment[] = [];
  for (let i = 0; i < lines.length; i++) {
    const raw = lines[i].trim();
    if (raw === "") continue;
    const cols = raw.split(/\s+/);
    if (cols.length !== 4) {
      throw new DataError(
        `expected TREC qrels "qid 0 docid rel" (4 columns) or a BEIR TSV with header "query-id<TAB>corpus-id<TAB>score", found ${cols.length} columns`,
        file,
        i + 1,
      );
    }
    const score = parseScore(cols[3], "relevance");
    if (typeof score === "string") throw new DataError(score, file, i + 1);
    out.push({ query: cols[0], doc: cols[2], score, line: i + 1 });
  }
  if (out.length === 0) {
    throw new DataError('no judgments: the file is empty; qrels need "qid 0 docid rel" lines or a BEIR TSV "query-id<TAB>corpus-id<TAB>score"', file);
  }
  return out;
}

/** Writes binary qrels in TREC form (`qid 0 docid 1`), whole or not at all. */
export async function writeTrecQrels(file: string, qrels: ReadonlyMap<QueryId, ReadonlySet<DocId>>): Promise<void> {
  const lines: string[] = [];
  for (const [q, judged] of qrels) for (const d of judged) lines.push(`${q} 0 ${d} 1`);
  await writeAtomically(file, (fh) => fh.writeFile(lines.join("\n") + (lines.length ? "\n" : "")), path.dirname(file), "--out");
}
