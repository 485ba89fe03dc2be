/** Step 3 of `gbr reproduce`: the files under `<outRoot>/<dataset>/`, from the records and the assessment. */
import type { Providers } from "../providers";
import { configRecord } from "../config";
import { promises as fs } from "node:fs";
import path from "node:path";
import { toCsv } from "../util/csv";
import { writeTrecQrels } from "../data/qrels";
import { formatRanxRun, formatTrec, runFileBase } from "../data/runs";
import { digestOf, insideFolder, writeAtomically } from "../util/safe-files";
import { fileNameOf } from "../util/file-name";
import type { LoadedBenchmark } from "../data/source";
import type { Assessment } from "./assess";
import type { ExperimentRecord } from "./run-experiments";
import { TABLE_FILES, type OutputTables, type Table } from "./output-tables";
import type { RecordFile } from "./earlier-records";
import { renderLatex, renderMarkdown } from "../eval/results-table";
import { resultsTable } from "./results-table";
import { writeFault } from "../util/errors";
import { unjudgedQueries } from "../types";

/** The files of a dataset folder besides the CSV tables (TABLE_FILES), the runs/ and the experiments/. */
export const FOLDER_FILES = {
  latex: "tables.tex",
  markdown: "tables.md",
  qrels: "qrels.txt",
  significance: "significance.json",
  metadata: "metadata.json",
} as const;

const STAND_IN_NOTE =
  "Some results were produced through the project's own test doubles (local stand-ins for the model servers): they show the mechanics, not retrieval quality, and must not be cited.";

const json = (value: unknown) => JSON.stringify(value, null, 2) + "\n";

/** Writes one experiment's files as it ends, each whole or not at all, its record last; returns their names. */
export async function writeExperimentOutputs(outDir: string, r: ExperimentRecord): Promise<string[]> {
  const names: string[] = [];
  const put = (name: string, text: string) => (names.push(name), writeOutput(outDir, name, text));
  try {
    const samples: RecordFile["samples"] = [];
    for (const [s, sample] of r.samples.entries()) {
      // The id stays inside: the TREC tag, and summary.csv's runFile column maps it to this name.
      const name = runFileBase(r.experiment.id, r.samples.length > 1 ? s : undefined);
      const own: string[] = [];
      const sha256: string[] = [];
      const mine = (n: string, text: string) => (own.push(n), sha256.push(digestOf(text)), put(n, text));
      await mine(`${name}.trec`, formatTrec(sample.result.run, r.experiment.id));
      await mine(`${name}.json`, formatRanxRun(sample.result.run));
      for (const [artefact, value] of Object.entries(sample.result.artifacts ?? {})) await mine(artefact, json(value));
      samples.push({ mean: sample.mean, seconds: sample.seconds, info: sample.result.run.info ?? null, cost: sample.result.run.cost ?? null, files: own, sha256 });
    }
    const record: RecordFile = {
      id: r.experiment.id,
      status: r.status,
      reason: r.reason ?? null,
      seconds: r.seconds,
      ranAt: r.ranAt,
      details: r.samples[0]?.result.details ?? null,
      samples,
    };
    await put(`experiments/${fileNameOf(r.experiment.id)}.json`, json(record));
  } catch (err) {
    throw writeFault(err, outDir, "--out");
  }
  return names;
}

/** Writes `name` under `outDir` whole (a temporary file renamed over it), never through a link leading out of it. */
export async function writeOutput(outDir: string, name: string, text: string): Promise<void> {
  await writeAtomically(await insideFolder(outDir, name, "replaced"), (fh) => fh.writeFile(text), outDir, "--out");
}

/** Writes a reproduce's tables, after its experiments' files (`experimentFiles`); returns every name under outDir. */
export async function writeOutputs(
  outDir: string,
  loaded: LoadedBenchmark,
  experimentFiles: readonly string[],
  a: Assessment,
  tables: OutputTables,
  providers?: Providers,
): Promise<string[]> {
  const written = new Set<string>();
  const file = (name: string) => {
    written.add(name.startsWith("runs/") ? "runs/" : name.startsWith("experiments/") ? "experiments/" : name);
    return name;
  };
  for (const name of experimentFiles) file(name);
  const bench = loaded.benchmark;
  try {
    for (const [key, t] of Object.entries(tables) as [keyof OutputTables, Table | undefined][]) {
      if (t) await writeOutput(outDir, file(TABLE_FILES[key]), toCsv(t.columns, t.rows));
    }
    // The results table when anything ran; else none, rather than an earlier run's beside this run's summary.
    if (a.outcomes.some((o) => o.status === "ok")) {
      const results = resultsTable(loaded, a);
      await writeOutput(outDir, file(FOLDER_FILES.latex), renderLatex(results));
      await writeOutput(outDir, file(FOLDER_FILES.markdown), renderMarkdown(results));
    } else {
      for (const f of [FOLDER_FILES.latex, FOLDER_FILES.markdown]) await fs.rm(path.join(outDir, f), { force: true });
    }
    await writeTrecQrels(path.join(outDir, file(FOLDER_FILES.qrels)), bench.qrels);
    await writeOutput(outDir, file(FOLDER_FILES.significance), json(a.significance));
    const standIn = a.outcomes.some((o) => o.standIn);
    const metadata = {
      dataset: bench.name,
      standIn,
      standInNote: standIn ? STAND_IN_NOTE : null,
      origin: loaded.origin,
      fallback: loaded.fallback ?? null,
      source: loaded.dir,
      revision: bench.revision ?? null,
      articles: bench.docs.length,
      queries: bench.queries.length,
      unjudged: unjudgedQueries(bench).length,
      createdAt: new Date().toISOString(),
      node: process.version,
      llm: a.llm,
      authorsSetup: a.authorsSetup,
      providers: providers ? configRecord(providers.config) : null,
      experiments: a.outcomes,
      progress: providers?.meter.steps() ?? [],
    };
    await writeOutput(outDir, file(FOLDER_FILES.metadata), json(metadata));
  } catch (err) {
    throw writeFault(err, outDir, "--out");
  }
  return [...written];
}
