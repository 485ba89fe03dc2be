/** What `gbr eval`, `gbr compare` and `gbr errors` read the same way: the qrels (graded or not) and metric names. */
import { notEvaluatedNote, type Qrels, type Run } from "../types";
import { readGradedQrels, readQrels } from "../data/qrels";
import { checkRunCoverage, readRun, runName } from "../data/runs";
import { topGrade, type EvalMetric, type Metric } from "../eval/metrics";
import { resolveEvalMetric, resolveMetric } from "../eval/metric-names";
import { CliError, type Io } from "./args";
import { printable } from "../util/printable";

export const qrelsOptions = { qrels: { type: "string" as const }, binary: { type: "boolean" as const } };

export const qrelsHelp = [
  "--qrels FILE   BEIR qrels TSV (with header) or TREC qrels; graded judgments are scored as trec_eval scores them",
  "--binary       count every grade >= 1 as 1",
];

/** The qrels of `--qrels`, graded unless `--binary`; one stderr line when grades above 1 change nDCG. */
export async function qrelsOf(values: Record<string, unknown>, io: Io): Promise<Qrels> {
  const file = String(values.qrels);
  if (values.binary) return readQrels(file);
  const qrels = await readGradedQrels(file);
  const top = topGrade(qrels);
  if (top > 1) {
    io.stderr(`note: ${printable(file)} has graded judgments (grades up to ${top}): nDCG takes the grade as gain, Recall and MAP count grade >= 1, as trec_eval does (--binary: every grade >= 1 as 1)\n`);
  }
  return qrels;
}

/** Metric names from a repeatable, comma-separated option, in any common spelling; a usage error names the bad one. */
export function metricsOf(raw: unknown, command: string): Metric[] {
  return [...new Set(namesOf(raw).map((n) => metricOf(n, command)))];
}

/** `metricsOf` for `gbr eval`, whose `--metrics` also takes the metrics at any cut (MRR@k, P@k, Success@k, Judged@k). */
export function evalMetricsOf(raw: unknown): EvalMetric[] {
  return [...new Set(namesOf(raw).map((n) => usage("eval", () => resolveEvalMetric(n))))];
}

const namesOf = (raw: unknown) => (Array.isArray(raw) ? raw : raw === undefined ? [] : [raw]).flatMap((m) => String(m).split(",")).map((m) => m.trim()).filter(Boolean);

export function metricOf(name: string, command: string): Metric {
  return usage(command, () => resolveMetric(name));
}

function usage<T>(command: string, f: () => T): T {
  try {
    return f();
  } catch (err) {
    throw new CliError(`gbr ${command}: ${(err as Error).message}`, 2);
  }
}

/** Run files read in order, each with the name `gbr compare` and `gbr errors` give it (see `runName`). */
export async function readNamedRuns(files: readonly string[]): Promise<{ file: string; name: string; run: Run }[]> {
  return Promise.all(files.map((file) => readRun(file).then((run) => ({ file, name: runName(file, run), run }))));
}

/** A run checked against the qrels (`checkRunCoverage`): its queries without judgments and any warning said on stderr. */
export function noteCoverage(r: { file: string; name: string; run: Run }, qrels: Qrels, qrelsFile: string, io: Io): void {
  const coverage = checkRunCoverage(r.run, qrels, r.file, qrelsFile);
  const { unjudged } = coverage;
  if (unjudged.length) io.stderr(`note: ${printable(r.name)}: ${notEvaluatedNote(unjudged.length)} (e.g. '${printable(unjudged[0])}')\n`);
  if (coverage.warning) io.stderr(`${printable(coverage.warning, { newlines: true })}\n`);
}
