import { promises as fs } from "node:fs";
import path from "node:path";
import type { DocId, QueryId } from "../types";
import { parseQrelsTsv, readTextLines } from "./beir";
import { DataError } from "../util/errors";

/**
 * Reads qrels in either BEIR TSV form (header `query-id corpus-id score`) or TREC form
 * (`qid 0 docid rel`, no header), told apart by the first line. Relevance > 0 counts.
 *
 * @example
 * const qrels = await readQrels("../shared/data/greeklaws-2021/qrels/sample.tsv");
 */
export async function readQrels(file: string): Promise<Map<QueryId, Set<DocId>>> {
  const lines = await readTextLines(file);
  if ((lines[0] ?? "").startsWith("query-id")) return parseQrelsTsv(lines, file);
  const qrels = new Map<QueryId, Set<DocId>>();
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
    const rel = Number(cols[3]);
    if (!Number.isFinite(rel)) throw new DataError(`relevance '${cols[3]}' is not a number`, file, i + 1);
    if (rel <= 0) continue;
    let set = qrels.get(cols[0]);
    if (!set) qrels.set(cols[0], (set = new Set()));
    set.add(cols[2]);
  }
  return qrels;
}

/**
 * Writes qrels in TREC form (`qid 0 docid 1`), the input trec_eval expects.
 *
 * @example
 * await writeTrecQrels("outputs/sample/qrels.txt", bench.qrels);
 */
export async function writeTrecQrels(file: string, qrels: ReadonlyMap<QueryId, ReadonlySet<DocId>>): Promise<void> {
  await fs.mkdir(path.dirname(file), { recursive: true });
  const lines: string[] = [];
  for (const [q, docs] of qrels) for (const d of docs) lines.push(`${q} 0 ${d} 1`);
  await fs.writeFile(file, lines.join("\n") + (lines.length ? "\n" : ""));
}
