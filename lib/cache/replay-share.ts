/**
 * Moving records between replay files: a standalone file of one run's calls to hand to another
 * researcher (`exportReplay`), and taking in such a file (`mergeReplay`).
 */
import fs from "node:fs";
import path from "node:path";
import { syncDir, writeAll } from "./line-file";
import { openReplayCache, type OpenReplayOptions, type ReplayCache } from "./replay-file";
import { encodeRecord, type ReplayRecord } from "./replay-record";

/**
 * Which records `exportReplay` writes: a set of keys (e.g. `model.keys`) or a predicate.
 *
 * @example
 * const one: ReplayFilter = llm.keys;
 * const greek: ReplayFilter = (r) => r.model === "openai/gpt-oss-120b";
 */
export type ReplayFilter = Iterable<string> | ((record: ReplayRecord) => boolean);

/**
 * Writes a standalone replay file of the newest record of each selected key (all when no filter),
 * in the cache's file order. Another researcher points `GBR_REPLAY_FILE` at it (with
 * `GBR_OFFLINE=1` to be sure nothing is called) and gets the same answers, hence the same numbers.
 * The file is written to a temporary name, fsync'd and renamed, so a crash never leaves half an
 * export under the real name. `missing` lists requested keys the cache does not hold (an export
 * with missing keys cannot reproduce the run by itself).
 *
 * @example
 * const { records, missing } = await exportReplay(cache, "outputs/reform-bm25.replay.jsonl", llm.keys);
 * const greekOnly = await exportReplay(cache, "x.jsonl", (r) => r.model === "openai/gpt-oss-120b");
 */
export async function exportReplay(
  cache: ReplayCache,
  outFile: string,
  filter?: ReplayFilter,
): Promise<{ file: string; records: number; missing: string[] }> {
  const out = path.resolve(outFile);
  if (out === path.resolve(cache.file)) throw new Error(`exportReplay: ${out} is the cache's own file; export to another file`);
  const wanted = filter === undefined || typeof filter === "function" ? undefined : new Set(filter);
  const keep = typeof filter === "function" ? filter : (r: ReplayRecord) => wanted === undefined || wanted.has(r.key);
  await fs.promises.mkdir(path.dirname(out), { recursive: true });
  const tmp = `${out}.${process.pid}.${Date.now()}.tmp`;
  const fh = await fs.promises.open(tmp, "w");
  let records = 0;
  const found = new Set<string>();
  try {
    for await (const r of cache.records()) {
      if (!keep(r)) continue;
      await writeAll(fh, encodeRecord(r));
      found.add(r.key);
      records++;
    }
    await fh.sync();
  } catch (err) {
    await fh.close();
    await fs.promises.rm(tmp, { force: true });
    throw err;
  }
  await fh.close();
  await fs.promises.rename(tmp, out);
  await syncDir(path.dirname(out));
  const missing = wanted ? [...wanted].filter((k) => !found.has(k)) : [];
  return { file: out, records, missing };
}

/**
 * Imports another replay file's records into `into`, skipping keys `into` already holds (its own
 * answers are never replaced). Each record's key is checked against its content; damaged lines
 * of the source are reported through `log` and skipped. The source file is only read.
 *
 * @example
 * const { added, skipped } = await mergeReplay(await openReplayCache(), "colleague.replay.jsonl");
 */
export async function mergeReplay(
  into: ReplayCache,
  fromFile: string,
  opts: OpenReplayOptions = {},
): Promise<{ added: number; skipped: number }> {
  const from = path.resolve(fromFile);
  if (from === path.resolve(into.file)) throw new Error(`mergeReplay: ${from} is the target cache's own file`);
  // A missing source is a mistake (a typo in a path), not an empty cache.
  await fs.promises.access(from, fs.constants.R_OK);
  const src = await openReplayCache(from, opts);
  let added = 0;
  let skipped = 0;
  for await (const r of src.records()) {
    if (into.has(r.key)) {
      skipped++;
      continue;
    }
    await into.put(r);
    added++;
  }
  return { added, skipped };
}
