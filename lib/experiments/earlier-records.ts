/** An earlier `gbr reproduce`'s records (experiments/<id>.json, naming its run files), read back for a partial rerun to merge. */
import { existsSync, promises as fs } from "node:fs";
import path from "node:path";
import type { LoadedBenchmark } from "../data/source";
import { readQrels, writeTrecQrels } from "../data/qrels";
import { digestOf, insideFolder, pathProblem, readJsonIfAny, writeAtomically } from "../util/safe-files";
import { readTrec } from "../data/runs";
import { evaluate } from "../eval/metrics";
import type { DocId, Qrels, QueryId, RunCost, RunInfo } from "../types";
import { GbrError, writeFault } from "../util/errors";
import { idOfFileName } from "../util/file-name";
import type { Experiment } from "./experiment";
import type { ExperimentRecord, SampleRecord } from "./run-experiments";

/** experiments/<id>.json (files, sha256, cost, details and ranAt since 0.9). */
export interface RecordFile {
  id: string;
  status: ExperimentRecord["status"];
  reason: string | null;
  seconds: number;
  ranAt?: string;
  details?: Record<string, unknown> | null;
  samples: { mean: unknown; seconds: number; info: RunInfo | null; cost?: RunCost | null; files?: string[]; sha256?: string[] }[];
}

/** An outputs folder's latest record per experiment, older ones (an older version's file names), and notes. */
export type EarlierRun = { saved: SavedRecord[]; notes: string[]; replaced: SavedRecord[] };

/** Reads the records an earlier run left in `outDir`; results on other judgments are a usage error (no shared table). */
export async function earlierRun(outDir: string, loaded: LoadedBenchmark): Promise<EarlierRun> {
  const all = await recordFiles(outDir);
  if (all.length) await checkSameJudgments(outDir, loaded.benchmark.qrels);
  // One record per experiment: a folder written by an older version may hold one under an older file name too.
  const latest = new Map<string, SavedRecord>();
  for (const r of all) if (!r.unreadable && !(r.ranAt < (latest.get(r.id)?.ranAt ?? ""))) latest.set(r.id, r);
  for (const r of latest.values()) if (r.status === "ok") r.damaged = await damage(outDir, r, loaded.benchmark.qrels);
  // A record that cannot be read stands for the experiment its file is named after, damaged: it runs again if listed.
  for (const r of all) {
    const id = idOfFileName(path.basename(r.file, ".json"));
    if (r.unreadable && !latest.has(id)) latest.set(id, { ...r, id, damaged: `${r.file}: unreadable (${r.unreadable})` });
  }
  return { saved: [...latest.values()], notes: [], replaced: all.filter((r) => !r.unreadable && latest.get(r.id) !== r) };
}

/** Why an ok record's files cannot be read back as written (missing, outside, another sha256; before 0.9: other means). */
async function damage(outDir: string, r: RecordFile, qrels: Qrels): Promise<string | undefined> {
  for (const [i, s] of r.samples.entries()) {
    const names = sampleFiles(r, i);
    const sha256 = s.files ? s.sha256 : undefined;
    const trec = names.find((f) => f.endsWith(".trec"));
    if (!trec) return `samples[${i}] names no run file (.trec)`;
    for (const [j, name] of names.entries()) {
      const file = path.join(outDir, name);
      try {
        const text = await fs.readFile(await insideFolder(outDir, name, "followed"));
        if (sha256 && digestOf(text) !== sha256[j]) return `${file} is damaged: it is not the file its record names (another sha256)`;
        if (sha256 || name !== trec) continue;
        const { mean } = evaluate((await readTrec(file)).rankings, qrels);
        const stored = s.mean as Record<string, number>;
        const differ = Object.entries(mean).find(([m, v]) => m in stored && Math.abs(stored[m] - v) > 1e-9);
        if (differ) return `${file} is damaged: its ${differ[0]} is ${differ[1]}, its record says ${stored[differ[0]]}`;
      } catch (err) {
        return `${file} cannot be read (${(err as Error).message})`;
      }
    }
  }
  return undefined;
}

/** The mark of a run that has not finished, removed when the tables are written. */
export const UNFINISHED = "unfinished.json";

/** `pid` names the writer to another run that finds the folder busy; only a run with the same `settings` continues it. */
type UnfinishedMark = { startedAt: string; pid: number; settings: unknown };

function unfinishedMark(outDir: string): Promise<Partial<UnfinishedMark> | undefined> {
  return readJsonIfAny<Partial<UnfinishedMark>>(path.join(outDir, UNFINISHED));
}

/** Marks a run in progress, so the same command continues it after a kill; `done`: what one with these `settings` finished. */
export async function startRun(outDir: string, loaded: LoadedBenchmark, settings: unknown, earlier: EarlierRun): Promise<{ done: Set<string>; startedAt: string }> {
  const file = path.join(outDir, UNFINISHED);
  const mark = await unfinishedMark(outDir);
  const earlierStart = typeof mark?.startedAt === "string" && JSON.stringify(mark.settings) === JSON.stringify(settings) ? mark.startedAt : undefined;
  const continued = earlierStart !== undefined;
  if (mark && !continued) earlier.notes.push(`${file}: an unfinished run with other settings; not continued (its experiments run again)`);
  const startedAt = earlierStart ?? new Date().toISOString();
  try {
    // With records present the judgments were checked against qrels.txt; otherwise they are recorded now.
    if (!earlier.saved.length) await writeTrecQrels(path.join(outDir, "qrels.txt"), loaded.benchmark.qrels);
    await writeAtomically(file, (fh) => fh.writeFile(JSON.stringify({ startedAt, pid: process.pid, settings } satisfies UnfinishedMark, null, 2) + "\n"), outDir, "--out");
  } catch (err) {
    throw writeFault(err, outDir, "--out");
  }
  const complete = (r: SavedRecord) => continued && r.status === "ok" && r.ranAt >= startedAt && !r.damaged;
  return { done: new Set(earlier.saved.filter(complete).map((r) => r.id)), startedAt };
}

/** The process id an unfinished run of `outDir` recorded (the one writing it now, when its lock is held), if any. */
export async function holderOf(outDir: string): Promise<number | undefined> {
  const pid = (await unfinishedMark(outDir))?.pid;
  return Number.isInteger(pid) ? pid : undefined;
}

/** The ids of the experiments an unfinished run of `outDir` finished (what its rerun keeps); none when it finished. */
export async function finishedSoFar(outDir: string): Promise<string[]> {
  const since = (await unfinishedMark(outDir))?.startedAt;
  if (typeof since !== "string") return [];
  return (await recordFiles(outDir)).filter((r) => !r.unreadable && r.status === "ok" && r.ranAt >= since).map((r) => r.id);
}

/** Whether this run's record leaves an earlier result in place: it could not run (skipped) or broke (failed). */
export function keepsEarlier(earlier: EarlierRun, r: ExperimentRecord): boolean {
  return r.status !== "ok" && earlier.saved.some((s) => s.id === r.experiment.id && s.status === "ok" && !s.damaged);
}

/** Removes the files of an experiment's earlier records its new files did not overwrite: none stays behind unlisted. */
export async function dropReplaced(outDir: string, earlier: EarlierRun, id: string, written: readonly string[]): Promise<void> {
  const keep = new Set(written);
  for (const r of [...earlier.saved, ...earlier.replaced].filter((s) => s.id === id)) {
    const files = r.samples.flatMap((_, i) => sampleFiles(r, i));
    for (const f of [...files, path.relative(outDir, r.file)]) if (!keep.has(f)) await removeInside(outDir, f);
  }
}

/** Removes `name` from `outDir` (a link itself, not its target); nothing when the path leads out of the folder. */
export async function removeInside(outDir: string, name: string): Promise<void> {
  const file = await insideFolder(outDir, name, "replaced").catch(() => undefined);
  if (file) await fs.rm(file, { force: true });
}

/** The run files of a record's sample `i`; one written before 0.9 names none, and its were runs/<id>(.s<n>).trec and .json. */
function sampleFiles(r: RecordFile, i: number): string[] {
  const base = `runs/${r.samples.length > 1 ? `${r.id}.s${i}` : r.id}`;
  return r.samples[i].files ?? [`${base}.trec`, `${base}.json`];
}

/** This run's records and the earlier ones it did not replace; a skip or failure now keeps an earlier result, marked `now`. */
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
    if (!listed.has(r.id) && !r.damaged) earlier.notes.push(`${r.id} (ran ${r.ranAt}) is not in this run's experiment list; left out of the tables, its files kept`);
  }
  const before = new Map(earlier.saved.map((r) => [r.id, r]));
  const records: ExperimentRecord[] = [];
  for (const e of list) {
    const [n, b] = [now.get(e.id), before.get(e.id)];
    if (n && !keepsEarlier(earlier, n)) {
      records.push(n);
      continue;
    }
    if (!b || b.damaged) continue;
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

/** A record file as read, `ranAt` filled in; or why it is `unreadable`, or its files `damaged` (it runs again when listed). */
export type SavedRecord = RecordFile & { file: string; ranAt: string; unreadable?: string; damaged?: string };

/** Every experiment record of an outputs folder, in file name order; none when there is no such folder. */
export async function recordFiles(outDir: string): Promise<SavedRecord[]> {
  const dir = path.join(outDir, "experiments");
  if (!existsSync(dir)) return [];
  const names = (await fs.readdir(dir)).filter((f) => f.endsWith(".json")).sort();
  return Promise.all(
    names.map(async (name): Promise<SavedRecord> => {
      const file = path.join(dir, name);
      let written = "";
      try {
        // Written before 0.9, a record has no `ranAt`: the time its file was written stands in.
        written = (await fs.stat(await insideFolder(outDir, path.join("experiments", name), "followed"))).mtime.toISOString();
        const r: unknown = JSON.parse(await fs.readFile(file, "utf8"));
        const problem = recordProblem(r);
        if (problem) throw new Error(problem);
        return { ...(r as RecordFile), file, ranAt: (r as RecordFile).ranAt ?? written };
      } catch (err) {
        return { id: "", status: "failed", reason: null, seconds: 0, samples: [], file, ranAt: written, unreadable: (err as Error).message };
      }
    }),
  );
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
const found = (v: unknown) => `found ${JSON.stringify(v) ?? String(v)}`.slice(0, 80);

/** The counts of a `Work`; the rerank ones may be absent. */
const WORK_COUNTS = ["seconds", "llmCalls", "llmInput", "llmOutput", "embeddingCalls", "embeddingTokens", "embeddingTokensEstimated", "rerankCalls", "rerankPairs"] as const;

/** What is wrong with a parsed experiments/<id>.json, naming the field, or undefined when it reads as a record. */
function recordProblem(r: unknown): string | undefined {
  if (!isObject(r)) return `not an experiment record (${found(r)})`;
  const field = (name: string, ok: boolean, what: string) => (ok ? undefined : `"${name}" must be ${what} (${found(r[name])})`);
  const number = (v: unknown) => typeof v === "number" && Number.isFinite(v);
  const problems = [
    field("id", typeof r.id === "string" && r.id !== "", "a non-empty string"),
    field("status", ["ok", "skipped", "failed"].includes(r.status as string), `"ok", "skipped" or "failed"`),
    field("reason", r.reason === undefined || r.reason === null || typeof r.reason === "string", "a string or null"),
    field("seconds", number(r.seconds), "a number"),
    field("ranAt", r.ranAt === undefined || typeof r.ranAt === "string", "a time (ISO text)"),
    field("details", r.details === undefined || r.details === null || isObject(r.details), "an object or null"),
    field("samples", Array.isArray(r.samples), "a list"),
  ];
  const first = problems.find((p) => p !== undefined);
  if (first) return first;
  for (const [i, s] of (r.samples as unknown[]).entries()) {
    const at = `samples[${i}]`;
    if (!isObject(s)) return `"${at}" must be an object (${found(s)})`;
    if (!isObject(s.mean)) return `"${at}.mean" must be an object of metric values (${found(s.mean)})`;
    for (const [m, v] of Object.entries(s.mean)) if (!number(v)) return `"${at}.mean.${m}" must be a number (${found(v)})`;
    if (!number(s.seconds)) return `"${at}.seconds" must be a number (${found(s.seconds)})`;
    for (const k of ["info", "cost"]) if (s[k] !== undefined && s[k] !== null && !isObject(s[k])) return `"${at}.${k}" must be an object or null (${found(s[k])})`;
    if (isObject(s.cost)) {
      for (const part of ["online", "corpus"]) {
        const work = s.cost[part];
        if (!isObject(work)) return `"${at}.cost.${part}" must be an object (${found(work)})`;
        for (const k of WORK_COUNTS) if (!number(work[k]) && !(work[k] === undefined && k.startsWith("rerank"))) return `"${at}.cost.${part}.${k}" must be a number (${found(work[k])})`;
      }
      for (const k of ["llmModel", "embeddingModel"]) if (s.cost[k] !== undefined && typeof s.cost[k] !== "string") return `"${at}.cost.${k}" must be a string (${found(s.cost[k])})`;
    }
    if (s.files !== undefined && !Array.isArray(s.files)) return `"${at}.files" must be a list (${found(s.files)})`;
    for (const [j, f] of ((s.files as unknown[] | undefined) ?? []).entries()) {
      const problem = pathProblem(f);
      if (problem) return `"${at}.files[${j}]": ${problem}`;
    }
    // Digests are of the files named: without `files` (a record before 0.9) there is nothing they could be of.
    const sums = s.sha256;
    if (sums !== undefined && Array.isArray(s.files) && !(Array.isArray(sums) && sums.length === s.files.length && sums.every((d) => typeof d === "string" && /^[0-9a-f]{64}$/.test(d)))) {
      return `"${at}.sha256" must be a list of hex digests, one per file (${found(sums)})`;
    }
  }
  return undefined;
}

/** The folder's qrels.txt must judge the same (query, article) pairs relevant as the benchmark loaded now. */
async function checkSameJudgments(outDir: string, qrels: ReadonlyMap<QueryId, ReadonlySet<DocId>>): Promise<void> {
  const file = path.join(outDir, "qrels.txt");
  const earlier: ReadonlyMap<QueryId, ReadonlySet<DocId>> | undefined = await readQrels(file).catch(() => undefined);
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
  for (const [s, sample] of saved.samples.entries()) {
    // Checked (`damage`) when the folder was read: inside it, and the file its record names.
    const trec = sampleFiles(saved, s).find((f) => f.endsWith(".trec"))!;
    const run = await readTrec(await insideFolder(outDir, trec, "followed"));
    if (sample.info) run.info = sample.info;
    if (sample.cost) run.cost = sample.cost;
    const { mean, perQuery } = evaluate(run.rankings, loaded.benchmark.qrels);
    samples.push({ result: { run, ...(saved.details ? { details: saved.details } : {}) }, perQuery, mean, seconds: sample.seconds });
  }
  return { ...base, samples };
}
