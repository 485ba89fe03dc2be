/** `gbr compare`: paired tests (randomization by default) corrected over all (Holm by default), as text, a paper table or JSON. */
import { CliError, numberOption, type Command } from "./args";
import { choiceOption, formatOption, paperFormat } from "./options";
import { metricsOf, noteCoverage, qrelsHelp, qrelsOf, qrelsOptions, readNamedRuns } from "./eval-inputs";
import { evaluate, METRICS } from "../eval/metrics";
import { chosenComparison, compareRuns, pairsByName } from "../eval/compare-runs";
import { CORRECTIONS, PAIRED_TESTS } from "../eval/paired-tests";
import { formatComparison, streamNote } from "./print-comparison";
import { comparisonPaperTable, PAPER_FORMATS, renderPaperTable } from "../eval/results-table";
import { printable, printableJson } from "../util/printable";

const FORMATS = ["text", ...PAPER_FORMATS] as const;

/** `--seed`: a non-negative integer of any size (numpy seeds past 2^64 included), default 42. */
function seedOption(value: unknown): number | bigint {
  if (value === undefined) return 42;
  const text = String(value).trim();
  if (!/^\d+$/.test(text)) throw new CliError(`--seed must be a non-negative integer, got '${text}'`, 2);
  const big = BigInt(text);
  return big <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(big) : big;
}

export const compare: Command = {
  spec: {
    name: "compare",
    summary: "Paired tests between runs (randomization, t or Wilcoxon), corrected over all (Holm, Bonferroni, BH or none).",
    usage: `compare --qrels FILE --run A --run B … [--pair A,B …] [--test ${PAIRED_TESTS.join("|")}] [--correction ${CORRECTIONS.join("|")}] [--swaps 100000] [--seed 42] [--metric M …] [--binary] [--official] [--json] [--format ${FORMATS.join("|")}]`,
    options: {
      official: { type: "boolean" },
      ...qrelsOptions,
      run: { type: "string", multiple: true },
      pair: { type: "string", multiple: true },
      test: { type: "string" },
      correction: { type: "string" },
      swaps: { type: "string" },
      seed: { type: "string" },
      metric: { type: "string", multiple: true },
      json: { type: "boolean" },
      format: { type: "string" },
    },
    help: [
      ...qrelsHelp,
      "--run FILE     a run (TREC or JSON), at least two; its name is the file name without extension, or the",
      "               experiment id in its TREC tag for a file gbr reproduce wrote (runs/rrf__a+b.trec is rrf:a+b)",
      "--pair A,B     test run A against run B (repeatable, in order); default every pair of runs in the order given",
      "--test T       randomization (default: the paper's), t (paired t-test) or wilcoxon (signed-rank, scipy's defaults)",
      "--correction C holm (default), bonferroni, bh (Benjamini–Hochberg) or none, over all the tests printed",
      "--swaps N      random sign flips per test (default 100000; --official: the authors' setup, 100000 and their stream)",
      "--seed S       numpy seed of the one stream all tests draw from, in order (default 42)",
      `--metric M     only these metrics, in order (repeatable or comma-separated; default ${METRICS.join(", ")};`,
      "               ranx's, ir_measures' and trec_eval's spellings are read too)",
      '--json         {"tests": [{"a", "b", "metric", "meanA", "meanB", "delta", "p", "pHolm"}]} at full precision; with another',
      '               test or correction {"test", "correction", "tests"}, pHolm named for it (pBonferroni, pBH; none: no key)',
      "--format F     text (default: the table, its legend and every test), or the table alone as latex or markdown",
      "Two-sided, corrected over all tests; the flips are drawn as the authors' notebook draws them. In the table a",
      "superscript marks each run a value beats significantly (corrected p < 0.05).",
    ],
  },
  async run(values, io) {
    const files = (values.run as string[] | undefined) ?? [];
    if (!values.qrels) throw new CliError("gbr compare needs --qrels FILE (see --help)", 2);
    if (files.length < 2) throw new CliError(`gbr compare needs at least two runs (--run A --run B …), got ${files.length}`, 2);
    const paper = paperFormat(formatOption("compare", FORMATS, values.format));
    if (paper && values.json) throw new CliError(`gbr compare: --json and --format ${paper} are two outputs; give one`, 2);
    const chosen = metricsOf(values.metric, "compare");
    const metrics = chosen.length ? chosen : [...METRICS];
    const swaps = numberOption(values.swaps, "--swaps", 100_000, { integer: true, min: 1 });
    if (values.official && swaps !== 100_000) throw new CliError(`gbr compare --official draws the authors' 100,000 flips per test; drop --swaps ${swaps} (or --official)`, 2);
    const seed = seedOption(values.seed);
    const test = choiceOption("compare", "--test", PAIRED_TESTS, values.test);
    const correction = choiceOption("compare", "--correction", CORRECTIONS, values.correction);
    if (values.official && (test !== "randomization" || correction !== "holm")) throw new CliError("gbr compare --official is the authors' randomization test with Holm; drop --official or --test/--correction", 2);
    if (test !== "randomization" && (values.swaps ?? values.seed) !== undefined) throw new CliError(`gbr compare --test ${test} draws no flips; drop --swaps and --seed`, 2);
    const qrels = await qrelsOf(values, io);
    const read = await readNamedRuns(files);
    const names = read.map((r) => r.name);
    const dup = names.find((n, i) => names.indexOf(n) !== i);
    if (dup !== undefined) throw new CliError(`gbr compare: two runs are named '${printable(dup)}' (a run's name is its file name without extension)`, 2);
    const pairs = pairsByName((values.pair as string[] | undefined) ?? [], read);
    const runs = read.map((r) => {
      noteCoverage(r, qrels, String(values.qrels), io);
      return { name: r.name, ...evaluate(r.run.rankings, qrels) };
    });
    const comparison = compareRuns(runs, qrels, { metrics, swaps, seed, test, ...(pairs.length ? { pairs } : {}) });
    const queries = runs[0].perQuery.size;
    if (!values.json && !paper) return void io.stdout(formatComparison(runs, comparison, metrics, { swaps, seed, queries, test, correction }));
    const table = () => comparisonPaperTable(runs, comparison, metrics, { swaps, seed, queries, pairs, test, correction });
    io.stdout(paper ? renderPaperTable(table(), paper) : printableJson(chosenComparison(comparison, test, correction)) + "\n");
    if (test === "randomization") io.stderr(`${streamNote(seed, comparison.tests.length)}\n`);
  },
};
