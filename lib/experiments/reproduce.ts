/** `gbr reproduce` in three steps: run (run-experiments.ts), assess (assess.ts), write (write-outputs.ts). */
import path from "node:path";
import type { LoadedBenchmark } from "../data/source";
import { registeredRetrievers, runContext, type RunContext } from "../retrievers";
import { officialPromptsDir } from "../llm/prompts";
import type { Config } from "../config";
import { assess, type Assessment, type ExperimentOutcome } from "./assess";
import { experiments, userExperiments, type Experiment } from "./registry";
import { runExperiments, type ExperimentRecord, type RunExperimentsOptions } from "./run-experiments";
import { FOLDER_FILES, writeExperimentOutputs, writeOutputs } from "./write-outputs";
import { dropReplaced, earlierRun, holderOf, keepsEarlier, mergeRecords, recordFiles, removeInside, startRun, UNFINISHED, type EarlierRun } from "./earlier-records";
import { promises as fs } from "node:fs";
import { outputTables, TABLE_FILES, type OutputTables } from "./output-tables";
import { DataError, GbrError } from "../util/errors";
import { unjudgedQueries } from "../types";
import { didYouMean } from "../util/suggest";
import { FileLocks, LOCK_STALE_MS } from "../util/file-lock";

export type { ExperimentOutcome } from "./assess";

export interface ReproduceOptions extends Omit<RunExperimentsOptions, "onRecord"> {
  /** Output root; results go to `<outRoot>/<dataset>/`. */
  outRoot: string;
  only?: string[];
  experiments?: readonly Experiment[];
  /** `--official`: the authors' experiment list only (the CLI sets their prompts and serving too). */
  official?: boolean;
  /** Start the folder again; without it, earlier results of experiments not run again (or not runnable now) are kept. */
  replace?: boolean;
}

export interface ReproduceResult {
  outDir: string;
  outcomes: ExperimentOutcome[];
  assessment: Assessment;
  tables: OutputTables;
  /** The files written, relative to outDir (the runs folder as "runs/"). */
  files: string[];
}

/** hf, sample or the BEIR folder's name, plus any replacing queries file's name (so query sets don't collide). */
function datasetName(loaded: LoadedBenchmark): string {
  const base = loaded.origin === "dir" ? path.basename(loaded.dir) : loaded.origin;
  return loaded.queriesFile ? `${base}--${path.basename(loaded.queriesFile).replace(/\.jsonl?$/, "")}` : base;
}

/** Samples of an LLM experiment a run may ask for (`--repeat`): each one is a full set of paid calls. */
export const MAX_REPEAT = 1000;

/** The experiments `--only` selects (an unknown id is a usage error naming the closest) and their output folder. */
export function selection(
  loaded: LoadedBenchmark,
  opts: Pick<ReproduceOptions, "outRoot" | "only" | "experiments" | "official" | "repeat">,
  config: Pick<Config, "rerankers">,
): { selected: Experiment[]; all: readonly Experiment[]; outDir: string } {
  const repeat = opts.repeat ?? 1;
  if (!Number.isInteger(repeat) || repeat < 1 || repeat > MAX_REPEAT) {
    throw new GbrError(`repeat must be a whole number from 1 to ${MAX_REPEAT}, got ${repeat}`, "USAGE");
  }
  const listed = opts.experiments ?? experiments(config);
  const every = [...listed, ...userExperiments(opts.only ?? [], listed)];
  if (opts.official) {
    const beyond = every.filter((e) => e.beyond && opts.only?.includes(e.id));
    if (beyond.length) {
      throw new GbrError(`--official runs the authors' experiment list; ${beyond.map((e) => `'${e.id}' (${e.beyond})`).join(", ")} ${beyond.length > 1 ? "are" : "is"} beyond it`, "USAGE", {
        hint: "drop --official to run it (its row is then marked beyond the authors)",
      });
    }
  }
  const all = opts.official ? every.filter((e) => !e.beyond) : every;
  const unknown = (opts.only ?? []).filter((id) => !all.some((e) => e.id === id));
  if (unknown.length) {
    const ids = [...all.map((e) => e.id), ...registeredRetrievers()];
    const named = unknown.map((id) => `'${id}'${didYouMean(id, ids)}`).join(", ");
    throw new GbrError(`unknown experiment id${unknown.length > 1 ? "s" : ""} ${named}`, "USAGE", { hint: `known: ${ids.join(", ")}` });
  }
  const selected = opts.only ? all.filter((e) => opts.only!.includes(e.id)) : [...all];
  return { selected, all, outDir: path.join(opts.outRoot, datasetName(loaded)) };
}

/**
 * Runs the selected experiments and writes their outputs under `<outRoot>/<dataset>/`. One that cannot run here is
 * listed as skipped with the reason, one that fails as failed; neither stops the others.
 *
 * @example
 * const loaded = await loadBenchmark("sample");
 * const { outcomes } = await reproduce(loaded, { outRoot: "outputs" });
 */
export async function reproduce(loaded: LoadedBenchmark, opts: ReproduceOptions): Promise<ReproduceResult> {
  // One context: its providers (limits, rate caps, meter) and store span every experiment.
  const context = runContext({ log: opts.log, ...opts.context });
  const chosen = selection(loaded, opts, context.providers.config);
  const { outDir } = chosen;
  const bench = loaded.benchmark;
  if (unjudgedQueries(bench).length === bench.queries.length) {
    // Every mean would be a 0 that looks like a result.
    const n = bench.queries.length;
    const what = `${n === 1 ? "its one query has no" : `none of its ${n} queries has a`} relevant judgment: nothing to evaluate; gbr search ranks queries without judgments`;
    throw new DataError(what, loaded.queriesFile ?? path.join(loaded.dir, "queries.jsonl"));
  }
  // One run writes a folder at a time: two would each merge the records they found and lose the other's rows.
  try {
    const lock = { what: `${outDir} (another gbr reproduce is writing it)`, log: opts.log, waitMs: LOCK_STALE_MS + 5000 };
    return await new FileLocks().run(path.join(outDir, LOCK), () => reproduceInto(loaded, opts, context, chosen), lock);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "ELOCKED") throw err;
    throw new GbrError(`another gbr reproduce is writing ${outDir} (pid ${(await holderOf(outDir)) ?? "unknown"})`, "USAGE", {
      hint: "wait for it to finish, or give another --out",
    });
  }
}

const LOCK = ".reproduce.lock";

async function reproduceInto(loaded: LoadedBenchmark, opts: ReproduceOptions, context: RunContext, chosen: ReturnType<typeof selection>): Promise<ReproduceResult> {
  const providers = context.providers;
  const { selected, all, outDir } = chosen;
  const bench = loaded.benchmark;
  opts.log?.(`dataset ${bench.name} (${loaded.origin}): ${bench.docs.length} articles, ${bench.queries.length} queries -> ${outDir}`);
  // Read (and checked) before anything runs: results on other judgments stop the run here, not after it.
  const earlier = opts.replace ? await clearEarlier(outDir) : await earlierRun(outDir, loaded);

  // What decides the results: an interrupted run continues only with the same.
  const settings = {
    options: opts.retrieverOptions ?? {},
    repeat: opts.repeat ?? 1,
    seed: opts.seed ?? 42,
    official: opts.official === true,
    replay: context.replay,
    chat: providers.config.chat.model ?? null,
    embed: providers.config.embed.naming,
    rerank: providers.config.rerank.api,
  };
  const { done, startedAt } = await startRun(outDir, loaded, settings, earlier);
  // An earlier result whose files are damaged is not restored: listed, it runs again.
  const damaged = new Set(earlier.saved.flatMap((r) => (r.damaged ? [r.id] : [])));
  for (const r of earlier.saved) if (r.damaged) earlier.notes.push(`${r.id}: ${r.damaged}; ${all.some((e) => e.id === r.id) ? "it runs again" : "left out of the tables"}`);
  const todo = all.filter((e) => (selected.includes(e) || damaged.has(e.id)) && !done.has(e.id));
  if (todo.length < selected.length) {
    const kept = selected.filter((e) => done.has(e.id)).map((e) => e.id);
    opts.log?.(`continuing the run started ${startedAt} (interrupted): ${kept.length} experiment${kept.length > 1 ? "s" : ""} it finished kept (${kept.join(", ")})`);
  }
  // Each experiment's files are written as it ends: a later fault cannot take a finished one's results away.
  const written: string[] = [];
  const ran: ExperimentRecord[] = [];
  // What stopped the run (the outputs folder's disk refusing a write): the tables of what finished are still written.
  let stopped: unknown;
  try {
    await runExperiments(loaded, todo, {
      ...opts,
      context,
      onRecord: async (r) => {
        if (!keepsEarlier(earlier, r)) {
          const files = await writeExperimentOutputs(outDir, r);
          written.push(...files);
          await dropReplaced(outDir, earlier, r.experiment.id, files);
        }
        ran.push(r);
      },
    });
  } catch (err) {
    stopped = err;
  }
  // An earlier row of the user's own retriever stays in the tables while that retriever is registered.
  const listed = opts.official ? all : [...all, ...userExperiments(earlier.saved.filter((r) => !r.unreadable).map((r) => r.id), all)];
  // An interrupted run's finished experiments are this run's own: listed as run, not as an earlier run's.
  const records = (await mergeRecords(outDir, loaded, listed, ran, earlier)).map((r) => (done.has(r.experiment.id) && r.earlier ? { ...r, earlier: undefined } : r));
  for (const note of earlier.notes) opts.log?.(note);
  const assessment = assess(loaded, records, {
    repeat: opts.repeat,
    seed: opts.seed,
    replay: context.replay,
    official: opts.official,
    promptSet: opts.retrieverOptions?.promptSet,
    embedNaming: providers.config.embed.naming,
    replayFile: providers.config.replayFile,
    pricesFile: providers.config.pricesFile,
    promptsDir: officialPromptsDir(providers.config.dataDir),
  });
  const tables = outputTables(loaded, records, assessment);
  let files: string[];
  try {
    files = await writeOutputs(outDir, loaded, written, assessment, tables, providers);
  } catch (err) {
    throw stopped ?? err;
  }
  if (stopped) throw stopped;
  await removeInside(outDir, UNFINISHED);
  return { outDir, outcomes: assessment.outcomes, assessment, tables, files };
}

/** `--replace`: the folder's own files of an earlier run go (its records name them), so none is left unlisted. */
async function clearEarlier(outDir: string): Promise<EarlierRun> {
  const named = (await recordFiles(outDir)).flatMap((r) => (r.unreadable ? [] : r.samples.flatMap((s) => s.files ?? [])));
  for (const f of named) await removeInside(outDir, f);
  // A link among these goes itself: fs.rm does not follow one.
  for (const f of ["runs", "experiments", UNFINISHED, ...Object.values(TABLE_FILES), ...Object.values(FOLDER_FILES)]) {
    await fs.rm(path.join(outDir, f), { recursive: true, force: true });
  }
  return { saved: [], notes: [], replaced: [] };
}
