/** The main results table of a reproduce (tables.tex, tables.md, `gbr reproduce --format`): a model to render. */
import { METRICS } from "../eval/metrics";
import type { LoadedBenchmark } from "../data/source";
import { bestPerColumn, rowLabels, significanceLetters, type FootnoteMark, type ResultsTable, type TestOutcome } from "../eval/results-table";
import type { Assessment } from "./assess";
import { notEvaluatedNote, unjudgedQueries } from "../types";

const ORACLE_NOTE = "oracle: tuned on the test queries, an upper bound for Recall@100 only; never in bold.";
const STAND_IN_ROW_NOTE =
  "stand-in: produced through the project's test doubles (local stand-ins for the model servers); it shows the mechanics, not retrieval quality, and is never in bold.";

/** Every experiment that ran × the five metrics; letters only from significance.json's tests; oracle and stand-in rows never bold. */
export function resultsTable(loaded: Pick<LoadedBenchmark, "benchmark" | "origin" | "fallback">, a: Pick<Assessment, "outcomes" | "significance">): ResultsTable {
  const bench = loaded.benchmark;
  const ok = a.outcomes.filter((o) => o.status === "ok" && o.mean);
  const labels = rowLabels(ok.length);
  const rows = ok.map((o, i) => {
    const marks: FootnoteMark[] = [...(o.id.startsWith("oracle:") ? ["dagger" as const] : []), ...(o.standIn ? ["ddagger" as const] : [])];
    return { name: o.id, label: labels[i], ...(marks.length ? { marks } : {}) };
  });
  const values = ok.map((o) => METRICS.map((m) => o.mean![m]));
  const sig = a.significance;
  const families: { tests: TestOutcome[]; words: string }[] = [];
  const paper = sig.paper.tests.flatMap((t) => (t.status === "computed" ? [t] : []));
  if (paper.length) families.push({ tests: paper, words: `the paper's ${sig.paper.of} tests (${sig.paper.computed} computed here; Holm over all ${sig.paper.of}, a missing one counted as p = 1)` });
  if (sig.baseline?.tests.length) families.push({ tests: sig.baseline.tests, words: `each experiment against ${sig.baseline.against} (Holm over these ${sig.baseline.of} tests)` });
  if (sig.rerank?.tests.length) families.push({ tests: sig.rerank.tests, words: `each re-ranked run against its first stage (Holm over these ${sig.rerank.of} tests)` });
  const tests = families.flatMap((f) => f.tests);
  const testedMetrics = new Set(tests.map((t) => t.metric));
  const untested = METRICS.filter((m) => !testedMetrics.has(m));

  const where =
    loaded.origin === "sample"
      ? `the bundled demo set (made up for testing, not the benchmark${loaded.fallback ? "; the Hugging Face Hub could not be reached" : ""})`
      : bench.name;
  const unjudged = unjudgedQueries(bench).length;
  const parts = [
    `Results on ${where}: ${unjudged ? `${bench.queries.length - unjudged} queries evaluated (${notEvaluatedNote(unjudged)})` : `${bench.queries.length} queries`}, ${bench.docs.length} articles.`,
    `Bold: the best value of each column${rows.some((r) => r.marks) ? " among rows without a mark" : ""} (tied values all bold).`,
  ];
  if (families.length) {
    parts.push(
      `A superscript letter marks a value significantly higher than that of the row with that letter: two-sided paired randomization test ` +
        `(${sig.swaps.toLocaleString("en-US")} random sign flips, numpy seed ${sig.seed}), p < 0.05 after Holm correction within its family. ` +
        `Only pairs that were tested carry letters; ${families.length > 1 ? "the families" : "the family"}: ${families.map((f) => f.words).join("; ")}.` +
        (families.length > 1 ? " A pair tested in more than one family is marked by the first." : "") +
        (untested.length ? ` ${untested.join(", ")} ${untested.length > 1 ? "were" : "was"} not tested.` : ""),
    );
  } else {
    parts.push("No pair of these rows was tested for significance, so there are no superscripts.");
  }
  if (ok.some((o) => (o.samples ?? 1) > 1)) parts.push("Rows run several times show the mean over the samples; the tests use sample 0.");
  const eligible = ok.map((o) => !o.id.startsWith("oracle:") && !o.standIn);
  return {
    rows,
    metrics: [...METRICS],
    values,
    superscripts: significanceLetters(rows, METRICS, values, tests),
    best: bestPerColumn(values, 4, eligible),
    caption: parts.join(" "),
    label: `tab:gbr-results-${bench.name}`,
    footnotes: [{ mark: "dagger", text: ORACLE_NOTE }, { mark: "ddagger", text: STAND_IN_ROW_NOTE }],
    nameHeader: "Experiment",
  };
}
