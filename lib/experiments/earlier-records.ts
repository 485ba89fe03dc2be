/**
 * The records an earlier `gbr reproduce` left in an outputs folder, read back so that a partial rerun (`--only`)
 * merges with them instead of replacing the tables with its own rows. Each experiment's record
 * (experiments/<id>.json) names its run files; the metrics are computed again from those runs.
 */
import { existsSync, promises as fs } from "node:fs";
import path from "node:path";
import type { LoadedBenchmark } from "../data/source";
import { readQrels, writeTrecQrels } from "../data/qrels";
import { writeAtomically } from "../store/store";
import { readTrec } from "../data/runs";
import { evaluate } from "../eval/metrics";
import type { DocId, QueryId, RunCost, RunInfo } from "../types";
import { GbrError, writeFault } from "../util/errors";
import type { Experiment } from "./experiment";
import type { ExperimentRecord, SampleRecord } from "./run-experiments";

/** experiments/<id>.json as written by `writeExperimentOutputs` (files, cost, details and ranAt since 0.9). */
export interface RecordFile {
  id: string;
  status: ExperimentRecord["status"];
  reason: string | null;
  seconds: number;
  ranAt?: string;
  details?: Record<string, unknown> | null;
  samples: { mean: unknown; seconds: number; info: RunInfo | null; cost?: RunCost | null; files?: string[] }[];
}

/** An outputs folder's earlier records, checked to be on the judgments loaded now, and what of them is unreadable. */
export interface EarlierRun {
  /** The latest record of each experiment. */
  saved: SavedRecord[];
  notes: string[];
  /** Older records of the same experiments (an older version's file names): their files go when it runs again. */
  replaced: SavedRecord[];
}

/**
 * Reads the experiment records an earlier run left in `outDir`. A folder holding results on other judgments is a usage
 * error (its numbers cannot share a table with these).
 */
export async function earlierRun(outDir: string, loaded: LoadedBenchmark): Promise<EarlierRun> {
  const all = await recordFiles(outDir);
  if (all.length) await checkSameJudgments(outDir, loaded.benchmark.qrels);
  // One record per experiment: a folder written by an older version may hold one under an older file name too.
  const latest = new Map<string, SavedRecord>();
  for (const r of all) if (!r.unreadable && !(r.ranAt < (latest.get(r.id)?.ranAt ?? ""))) latest.set(r.id, r);
  return {
    saved: [...latest.values()],
    notes: all.flatMap((r) => (r.unreadable ? [`${r.file}: unreadable (${r.unreadable}); left out of the tables`] : [])),
    replaced: all.filter((r) => !r.unreadable && latest.get(r.id) !== r),
  };
}

/** The mark of a run that has not finished (it is removed when the tables are written): `unfinished.json`. */
export const UNFINISHED = "unfinished.json";

interface UnfinishedMark {
  startedAt: string;
  /** What decides the results (options, models, samples): a run with other settings does not continue this one. */
  settings: unknown;
}

/**
 * Marks `outDir` as holding a run in progress, its judgments recorded first (qrels.txt), so that the same command
 * continues it after Ctrl-C, kill -9 or a full disk. When the folder holds an unfinished run with the same
 * `settings`, that run is continued: the result lists its experiments that ended ok with their files complete
 * (they are not run again).
 *
 * @example
 * const { done } = await startRun(outDir, loaded, { repeat: 1 }, await earlierRun(outDir, loaded));
 */
export async function startRun(outDir: string, loaded: LoadedBenchmark, settings: unknown, earlier: EarlierRun): Promise<{ done: Set<string>; startedAt: string }> {
  const file = path.join(outDir, UNFINISHED);
  let mark: UnfinishedMark | undefined;
  try {
    mark = JSON.parse(await fs.readFile(file, "utf8")) as UnfinishedMark;
  } catch {
    mark = undefined;
  }
  if (mark && typeof mark.startedAt === "string" && JSON.stringify(mark.settings) === JSON.stringify(settings)) {
    const since = mark.startedAt;
    const complete = (r: SavedRecord) => r.status === "ok" && r.ranAt >= since && filesOf(r).every((f) => existsSync(path.join(outDir, f)));
    return { done: new Set(earlier.saved.filter(complete).map((r) => r.id)), startedAt: since };
  }
  if (mark) earlier.notes.push(`${file}: an unfinished run with other settings; not continued (its experiments run again)`);
  const startedAt = new Date().toISOString();
  try {
    // With records present the judgments were checked against qrels.txt; otherwise they are recorded now.
    if (!earlier.saved.length) await writeTrecQrels(path.join(outDir, "qrels.txt"), loaded.benchmark.qrels);
    await writeAtomically(file, (fh) => fh.writeFile(JSON.stringify({ startedAt, settings } satisfies UnfinishedMark, null, 2) + "\n"), outDir, "--out");
  } catch (err) {
    throw writeFault(err, outDir, "--out");
  }
  return { done: new Set(), startedAt };
}

/**
 * The ids of the experiments an unfinished run of `outDir` finished (what its rerun keeps); none when it finished.
 *
 * @example
 * process.on("SIGINT", async () => console.error(`kept: ${(await finishedSoFar("outputs/sample")).join(", ")}`));
 */
export async function finishedSoFar(outDir: string): Promise<string[]> {
  let since: string;
  try {
    since = (JSON.parse(await fs.readFile(path.join(outDir, UNFINISHED), "utf8")) as UnfinishedMark).startedAt;
  } catch {
    return [];
  }
  return (await recordFiles(outDir)).filter((r) => !r.unreadable && r.status === "ok" && r.ranAt >= since).map((r) => r.id);
}

/** Whether this run's record leaves an earlier result in place: it could not run (skipped) or broke (failed). */
export function keepsEarlier(earlier: EarlierRun, r: ExperimentRecord): boolean {
  return r.status !== "ok" && earlier.saved.some((s) => s.id === r.experiment.id && s.status === "ok");
}

/**
 * Removes what an experiment's earlier records left (their run files and the records themselves) that its new files
 * did not overwrite, so no file of a replaced result stays behind unlisted (an older version named files otherwise).
 */
export async function dropReplaced(outDir: string, earlier: EarlierRun, id: string, written: readonly string[]): Promise<void> {
  const keep = new Set(written);
  for (const r of [...earlier.saved, ...earlier.replaced].filter((s) => s.id === id)) {
    for (const f of [...filesOf(r), path.relative(outDir, r.file)]) if (!keep.has(f)) await fs.rm(path.join(outDir, f), { force: true });
  }
}

/** The run files a record names; one written before 0.9 names none, and its were runs/<id>(.s<n>).trec and .json. */
function filesOf(r: RecordFile): string[] {
  return r.samples.flatMap((s, i) => {
    if (s.files) return s.files;
    const base = `runs/${r.samples.length > 1 ? `${r.id}.s${i}` : r.id}`;
    return [`${base}.trec`, `${base}.json`];
  });
}

/**
 * This run's records with the earlier ones it did not replace, in the experiment list's order. An experiment that
 * could not run now (skipped) or broke (failed) keeps an earlier result, marked `now`: a run without a server does not
 * erase what one made. What cannot be kept is added to `notes`.
 */
export async function mergeRecords(
  outDir: string,
  loaded: LoadedBenchmark,
  list: readonly Experiment[],
  ran: readonly ExperimentRecord[],
  earlier: EarlierRun,
): Promise<ExperimentRecord[]> {
  const now = new Map(ran.map((r) => [r.experiment.id, r]));
  const listed = new Set(list.map((e) => e.id));
  for (const r of earlier.saved) {
    if (!listed.has(r.id)) earlier.notes.push(`${r.id} (ran ${r.ranAt}) is not in this run's experiment list; left out of the tables, its files kept`);
  }
  const before = new Map(earlier.saved.map((r) => [r.id, r]));
  const records: ExperimentRecord[] = [];
  for (const e of list) {
    const [n, b] = [now.get(e.id), before.get(e.id)];
    if (n && !keepsEarlier(earlier, n)) {
      records.push(n);
      continue;
    }
    if (!b) continue;
    try {
      const kept = await restore(outDir, loaded, e, b);
      records.push(n ? { ...kept, now: { status: n.status as "skipped" | "failed", reason: n.brief ?? n.reason ?? n.status } } : kept);
    } catch (err) {
      earlier.notes.push(`${b.id}: its earlier results cannot be read (${(err as Error).message}); left out of the tables`);
      if (n) records.push(n);
    }
  }
  return records;
}

/** A record file as read: its record with `ranAt` filled in, or why it could not be read. */
export type SavedRecord = RecordFile & { file: string; ranAt: string; unreadable?: string };

/** Every experiment record of an outputs folder, in file name order; none when there is no such folder. */
export async function recordFiles(outDir: string): Promise<SavedRecord[]> {
  const dir = path.join(outDir, "experiments");
  let names: string[];
  try {
    names = (await fs.readdir(dir)).filter((f) => f.endsWith(".json")).sort();
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return [];
    throw err;
  }
  return Promise.all(
    names.map(async (name): Promise<SavedRecord> => {
      const file = path.join(dir, name);
      // Written before 0.9, a record has no `ranAt`: the time its file was written stands in.
      const written = (await fs.stat(file)).mtime.toISOString();
      try {
        const r = JSON.parse(await fs.readFile(file, "utf8")) as RecordFile;
        if (typeof r?.id !== "string" || !Array.isArray(r.samples)) throw new Error("not an experiment record");
        return { ...r, file, ranAt: r.ranAt ?? written };
      } catch (err) {
        return { id: "", status: "failed", reason: null, seconds: 0, samples: [], file, ranAt: written, unreadable: (err as Error).message };
      }
    }),
  );
}

/** The folder's qrels.txt must judge the same (query, article) pairs relevant as the benchmark loaded now. */
async function checkSameJudgments(outDir: string, qrels: ReadonlyMap<QueryId, ReadonlySet<DocId>>): Promise<void> {
  const file = path.join(outDir, "qrels.txt");
  let earlier: ReadonlyMap<QueryId, ReadonlySet<DocId>> | undefined;
  try {
    earlier = await readQrels(file);
  } catch {
    earlier = undefined;
  }
  const pairs = (q: ReadonlyMap<QueryId, ReadonlySet<DocId>>) => new Set([...q].flatMap(([id, docs]) => [...docs].map((d) => `${id}\t${d}`)));
  const [a, b] = [earlier && pairs(earlier), pairs(qrels)];
  if (a && a.size === b.size && [...a].every((p) => b.has(p))) return;
  throw new GbrError(
    `${outDir} holds results of an earlier run on ${earlier ? "other judgments" : "judgments it did not record (no readable qrels.txt)"}: they cannot share tables with this run's`,
    "USAGE",
    { hint: "add --replace to start the folder again, or give another --out" },
  );
}

/** A record as `runExperiments` made it, its samples' runs read from the files it names and evaluated again. */
async function restore(outDir: string, loaded: LoadedBenchmark, experiment: Experiment, saved: SavedRecord): Promise<ExperimentRecord> {
  const base = { experiment, status: saved.status, seconds: saved.seconds, ranAt: saved.ranAt, earlier: true };
  if (saved.status !== "ok") return { ...base, reason: saved.reason ?? undefined, samples: [] };
  const samples: SampleRecord[] = [];
  const trecs = filesOf(saved).filter((f) => f.endsWith(".trec"));
  for (const [s, sample] of saved.samples.entries()) {
    const run = await readTrec(path.join(outDir, trecs[s]));
    if (sample.info) run.info = sample.info;
    if (sample.cost) run.cost = sample.cost;
    const { mean, perQuery } = evaluate(run.rankings, loaded.benchmark.qrels);
    samples.push({ result: { run, ...(saved.details ? { details: saved.details } : {}) }, perQuery, mean, seconds: sample.seconds });
  }
  return { ...base, samples };
}
