/**
 * Issue 23, item 4: tables for a paper. The pure renderer (lib/util/paper-tables.ts): labels, bold best, letters from
 * Holm-corrected tests with their direction, LaTeX and Markdown escaping; and the three models built on it (eval,
 * compare, reproduce's results table). pdflatex compiles them in test/integration/paper-tables-latex.test.ts.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import {
  bestPerColumn,
  escapeLatex,
  escapeMarkdown,
  markdownCode,
  renderLatex,
  renderMarkdown,
  renderText,
  rowLabels,
  significanceLetters,
  type ResultsTable as PaperTable,
  type TestOutcome,
} from "../../../lib/eval/results-table";
import { comparisonPaperTable, evalPaperTable } from "../../../lib/eval/results-table";
import { resultsTable } from "../../../lib/experiments/results-table";
import { frameRows, resultsTableFrame } from "../../../lib/report/frames";
import { compareRuns } from "../../../lib/eval/compare-runs";
import { significanceReport } from "../../../lib/eval/significance";
import { METRICS, type Metric, type MetricValues } from "../../../lib/eval/metrics";
import type { ExperimentOutcome } from "../../../lib/experiments/assess";
import type { Benchmark } from "../../../lib/types";

const metricValues = (v: number): MetricValues => Object.fromEntries(METRICS.map((m) => [m, v])) as MetricValues;

/** Cells of one GitHub table row: split on pipes without a backslash before them. */
function cells(line: string): string[] {
  return line.replace(/^\|/, "").replace(/\|$/, "").split(/(?<!\\)\|/).map((c) => c.trim());
}

test("rows are labelled a, b, c … as the text table does (no q, which Unicode cannot superscript); past 25, aa, ab …", () => {
  assert.deepEqual(rowLabels(3), ["a", "b", "c"]);
  assert.equal(rowLabels(17)[16], "r");
  assert.equal(new Set(rowLabels(25)).size, 25);
  const many = rowLabels(28);
  assert.deepEqual([many[0], many[16], many[25], many[26], many[27]], ["a", "q", "z", "aa", "ab"]);
});

test("bold: the best value of each column as shown; every tied row bold; ineligible rows and gaps never compete", () => {
  const values = [
    [0.5, 0.12344, 0.9, null],
    [0.4, 0.12341, 0.95, 0.2],
    [0.5, 0.1, 0.99, 0.1],
  ];
  // Column 1 ties at 0.1234 as printed with 4 digits (and differs with 5).
  assert.deepEqual(bestPerColumn(values), [
    [true, true, false, false],
    [false, true, false, true],
    [true, false, true, false],
  ]);
  assert.deepEqual(bestPerColumn(values, 5).map((r) => r[1]), [true, false, false]);
  // Row 2 (an oracle, say) does not compete: row 1 is best in column 2, row 0 alone in column 0.
  assert.deepEqual(bestPerColumn(values, 4, [true, true, false]), [
    [true, true, false, false],
    [false, true, true, true],
    [false, false, false, false],
  ]);
  // A column with no eligible value has no best.
  assert.deepEqual(bestPerColumn([[0.3], [0.4]], 4, [false, false]), [[false], [false]]);
});

test("letters: a row gets the label of each row it beats: pHolm < 0.05, the test's direction and the values agree", () => {
  const rows = ["A", "B", "C", "D"].map((name, i) => ({ name, label: "abcd"[i] }));
  const metrics = ["m1", "m2"];
  const values = [
    [0.6, 0.5],
    [0.4, 0.5],
    [0.7, 0.1],
    [0.65, 0.3],
  ];
  const tests: TestOutcome[] = [
    { a: "A", b: "B", metric: "m1", delta: 0.2, pHolm: 0.01 }, // A beats B
    { a: "A", b: "C", metric: "m1", delta: -0.1, pHolm: 0.001 }, // C beats A (b wins: delta < 0)
    { a: "B", b: "C", metric: "m1", delta: -0.3, pHolm: 0.05 }, // not below 0.05: nothing
    { a: "C", b: "D", metric: "m1", delta: 0.05, pHolm: 0.2 }, // raw p may be small; Holm's is not
    { a: "A", b: "D", metric: "m1", delta: 0.05, pHolm: 0.01 }, // delta says A, the values say D: nothing
    { a: "A", b: "B", metric: "m2", delta: 0, pHolm: 0 }, // no difference: nothing
    { a: "D", b: "B", metric: "m2", delta: -0.2, pHolm: 0.3 }, // first test of D–B on m2: not significant …
    { a: "B", b: "D", metric: "m2", delta: 0.2, pHolm: 0.001 }, // … so the second (another family) is ignored
    { a: "C", b: "A", metric: "m3", delta: 1, pHolm: 0 }, // a metric not in the table
    { a: "C", b: "Z", metric: "m1", delta: 1, pHolm: 0 }, // a run not in the table
  ];
  assert.deepEqual(significanceLetters(rows, metrics, values, tests), [
    [["b"], []],
    [[], []],
    [["a"], []],
    [[], []],
  ]);
  // A looser level lets the two borderline tests through, each in its own direction.
  assert.deepEqual(significanceLetters(rows, metrics, values, tests, 0.25).map((r) => r[0]), [["b"], [], ["a", "b", "d"], []]);
});

test("letters follow the Holm-corrected randomization tests of compareRuns, and nothing else", () => {
  // 40 queries: strong is 0.2 above base everywhere; slight is above base on 22 queries and below on 18 (not
  // significant); noisy swings ±0.3 around base's level.
  const n = 40;
  const q = Array.from({ length: n }, (_, i) => `q${i}`);
  const run = (f: (i: number) => number) => new Map(q.map((id, i) => [id, metricValues(f(i))]));
  const runs = [
    { name: "base", perQuery: run((i) => 0.3 + (i % 5) * 0.02) },
    { name: "strong", perQuery: run((i) => 0.5 + (i % 5) * 0.02) },
    { name: "slight", perQuery: run((i) => 0.3 + (i % 5) * 0.02 + (i < 22 ? 0.01 : -0.01)) },
    { name: "noisy", perQuery: run((i) => 0.3 + (i % 2 ? 0.3 : -0.3)) },
  ];
  const metrics: Metric[] = ["nDCG@10", "Recall@100"];
  const comparison = compareRuns(runs, q, { metrics, swaps: 4000, seed: 1 });
  const mean = (r: (typeof runs)[number]) => Object.fromEntries(metrics.map((m) => [m, [...r.perQuery.values()].reduce((s, v) => s + v[m], 0) / n])) as MetricValues;
  const table = comparisonPaperTable(runs.map((r) => ({ name: r.name, mean: mean(r) })), comparison, metrics, { swaps: 4000, seed: 1, queries: n });
  // Expected from the tests alone: winner by the sign of delta, when pHolm < 0.05.
  const label = new Map(runs.map((r, i) => [r.name, "abcd"[i]]));
  const expected = runs.map(() => metrics.map(() => [] as string[]));
  for (const t of comparison.tests) {
    if (!(t.pHolm < 0.05) || t.delta === 0) continue;
    const [w, l] = t.delta > 0 ? [t.a, t.b] : [t.b, t.a];
    expected[runs.findIndex((r) => r.name === w)][metrics.indexOf(t.metric)].push(label.get(l)!);
  }
  for (const e of expected) for (const list of e) list.sort();
  assert.deepEqual(table.superscripts, expected);
  // The cases the data were built for: strong beats the three others; slight, 0.01 either way, beats nobody.
  assert.deepEqual(table.superscripts[1][0], ["a", "c", "d"]);
  assert.deepEqual(table.superscripts[2], [[], []]);
  assert.match(table.caption, /two-sided paired randomization test \(4,000 random sign flips, numpy seed 1\) on every pair of runs, Holm correction over all 12 tests, corrected p < 0\.05\./);
  assert.deepEqual(table.best.map((r) => r[0]), [false, true, false, false]);
});

test("LaTeX escaping: the ten specials, < > |, whitespace; ordinary ids and accented letters unchanged", () => {
  assert.equal(escapeLatex("rrf:bm25-greekstemmer+dense:qwen3-8b"), "rrf:bm25-greekstemmer+dense:qwen3-8b");
  assert.equal(
    escapeLatex("a_b & c% $d #e {f} ~g ^h \\i <j> k|l"),
    "a\\_b \\& c\\% \\ensuremath{\\$}d \\#e \\{f\\} \\textasciitilde{}g \\textasciicircum{}h \\textbackslash{}i \\textless{}j\\textgreater{} k\\textbar{}l",
  );
  // One pass: the braces a replacement adds are not escaped again.
  assert.equal(escapeLatex("\\{"), "\\textbackslash{}\\{");
  assert.equal(escapeLatex("two\n\nlines\tand tabs"), "two lines and tabs");
  assert.equal(escapeLatex("café"), "café");
  // Issue 29: a "[" first would be read as the optional argument of the "\\" or "\midrule" before the cell.
  assert.equal(escapeLatex("[2pt]lead"), "{[}2pt]lead");
  assert.equal(escapeLatex("a[x]"), "a{[}x]");
});

const sample: PaperTable = {
  rows: [
    { name: "bm25_x&y", label: "a" },
    { name: "oracle:bm25|v2", label: "b", marks: ["dagger"] },
    { name: "odd`name", label: "c", marks: ["dagger", "ddagger"] },
  ],
  metrics: ["nDCG@10", "MAP@100"],
  values: [
    [0.41234, 0.2],
    [0.5, null],
    [0.3, 0.25],
  ],
  superscripts: [
    [["c"], []],
    [["a", "c"], []],
    [[], ["a"]],
  ],
  best: [
    [false, false],
    [true, false],
    [false, true],
  ],
  caption: "Runs & tests: p < 0.05, 100% of *them*",
  label: "tab:my results#1",
  footnotes: [
    { mark: "dagger", text: "tuned on the test queries" },
    { mark: "ddagger", text: "stand-in" },
  ],
};

test("text: the same table for a terminal, letters as Unicode superscripts, marks as daggers, a missing value as -", () => {
  assert.equal(
    renderText(sample),
    [
      "#  run               nDCG@10   MAP@100",
      "-  ----------------  --------  -------",
      "a  bm25_x&y          0.4123ᶜ   0.2000",
      "b  oracle:bm25|v2 †  0.5000ᵃᶜ  -",
      "c  odd`name †‡       0.3000    0.2500ᵃ",
      "",
    ].join("\n"),
  );
});

test("text past 25 rows: letters in brackets for every row (the 26th table's q has no Unicode superscript), never 'undefined'", () => {
  const labels = rowLabels(26);
  const t: PaperTable = {
    rows: labels.map((label, i) => ({ name: `run-${i}`, label })),
    metrics: ["nDCG@10"],
    values: labels.map(() => [0.5]),
    superscripts: labels.map((l) => (l === "a" ? [["q"]] : [[]])),
    best: labels.map(() => [false]),
    caption: "",
    label: "tab:x",
  };
  const text = renderText(t);
  assert.doesNotMatch(text, /undefined/);
  assert.match(text, /^a {2}run-0 {3}0\.5000 \[q\]$/m);
});

test("DataFrame: one row per run (letter, name), a number column per metric (NaN when missing), the letters it beats beside", () => {
  const df = resultsTableFrame(sample);
  assert.deepEqual(df.columns, ["#", "Run", "nDCG@10", "nDCG@10 beats", "MAP@100", "MAP@100 beats"]);
  assert.deepEqual(frameRows(df), [
    { "#": "a", Run: "bm25_x&y", "nDCG@10": 0.41234, "nDCG@10 beats": "c", "MAP@100": 0.2, "MAP@100 beats": "" },
    { "#": "b", Run: "oracle:bm25|v2", "nDCG@10": 0.5, "nDCG@10 beats": "a,c", "MAP@100": undefined, "MAP@100 beats": "" },
    { "#": "c", Run: "odd`name", "nDCG@10": 0.3, "nDCG@10 beats": "", "MAP@100": 0.25, "MAP@100 beats": "a" },
  ]);
});

test("LaTeX: a booktabs float, caption and label above, letters and names escaped, best bold, numbers right-aligned with their letters beside, notes for marks used", () => {
  const tex = renderLatex(sample);
  const lines = tex.split("\n");
  const at = (s: string) => lines.indexOf(s);
  assert.match(lines[0], /^% .*\\usepackage\{booktabs\}/);
  assert.ok(at("\\begin{table}[htbp]") < at("\\centering"));
  assert.equal(lines[at("\\centering") + 1], "\\caption{Runs \\& tests: p \\textless{} 0.05, 100\\% of *them*}");
  assert.equal(lines[at("\\centering") + 2], "\\label{tab:my-results-1}");
  // Each metric is two columns: the number right-aligned (its digits line up), its letters left-aligned after it.
  assert.ok(at("\\begin{tabular}{clr@{}lr@{}l}") > 0, tex);
  assert.ok(at("\\toprule") < at("\\midrule") && at("\\midrule") < at("\\bottomrule") && at("\\bottomrule") < at("\\end{tabular}"));
  assert.equal(lines[at("\\toprule") + 1], "\\# & Run & \\multicolumn{2}{c}{nDCG@10} & \\multicolumn{2}{c}{MAP@100} \\\\");
  assert.equal(lines[at("\\midrule") + 1], "a & bm25\\_x\\&y & 0.4123 & \\textsuperscript{c} & 0.2000 & \\\\");
  assert.equal(lines[at("\\midrule") + 2], "b & oracle:bm25\\textbar{}v2$^{\\dagger}$ & \\textbf{0.5000} & \\textsuperscript{ac} & -- & \\\\");
  assert.equal(lines[at("\\midrule") + 3], "c & odd`name$^{\\dagger,\\ddagger}$ & 0.3000 & & \\textbf{0.2500} & \\textsuperscript{a} \\\\");
  assert.match(tex, /\{\\footnotesize \$\^\{\\dagger\}\$tuned on the test queries\\\\\n\$\^\{\\ddagger\}\$stand-in\\par\}\n\\end\{table\}\n$/);
  // A table without marks has no notes; one without labels no letters column.
  const plain = renderLatex({ ...sample, rows: sample.rows.map((r) => ({ name: r.name })), superscripts: sample.rows.map(() => [[], []]) });
  assert.doesNotMatch(plain, /footnotesize|\\#/);
  assert.match(plain, /\\begin\{tabular\}\{lr@\{\}lr@\{\}l\}/);
  // Non-ASCII names get a comment saying what pdflatex needs.
  assert.match(renderLatex({ ...sample, rows: [{ name: "ΑΚ-τρέξιμο", label: "a" }], values: [[0.1, 0.2]], superscripts: [[[], []]], best: [[false, false]] }), /^% Some names hold non-ASCII/m);
});

test("Markdown: a GitHub pipe table, names as code spans, | escaped, best bold, letters in <sup>, caption and notes", () => {
  const md = renderMarkdown(sample);
  const lines = md.split("\n");
  assert.equal(lines[0], "Table: Runs \\& tests: p < 0.05, 100% of \\*them\\*");
  assert.equal(lines[1], "");
  assert.deepEqual(cells(lines[2]), ["#", "Run", "nDCG@10", "MAP@100"]);
  assert.deepEqual(cells(lines[3]), ["---", "---", "---:", "---:"], "numbers right-aligned");
  assert.deepEqual(cells(lines[4]), ["a", "`bm25_x&y`", "0.4123<sup>c</sup>", "0.2000"]);
  assert.deepEqual(cells(lines[5]), ["b", "`oracle:bm25\\|v2` †", "**0.5000**<sup>ac</sup>", "–"]);
  assert.deepEqual(cells(lines[6]), ["c", "``odd`name`` †‡", "0.3000", "**0.2500**<sup>a</sup>"]);
  // Every row has as many cells as the header (an unescaped | would add one).
  for (const l of lines.slice(2, 7)) assert.equal(cells(l).length, 4, l);
  assert.equal(lines[7], "");
  assert.equal(lines[8], "† tuned on the test queries\\");
  assert.equal(lines[9], "‡ stand-in");
});

test("Markdown escaping: formatting, links, math, entities and tags are inert; code spans outgrow backticks", () => {
  assert.equal(escapeMarkdown("a_b *c* [d](e) $x$ &amp; ~f~ <b> x<y \\"), "a\\_b \\*c\\* \\[d\\](e) \\$x\\$ \\&amp; \\~f\\~ \\<b> x\\<y \\\\");
  assert.equal(escapeMarkdown("p < 0.05 | q"), "p < 0.05 \\| q");
  assert.equal(markdownCode("rrf:bm25-greekstemmer+dense:qwen3-8b"), "`rrf:bm25-greekstemmer+dense:qwen3-8b`");
  assert.equal(markdownCode("a``b"), "```a``b```");
  assert.equal(markdownCode("`x"), "`` `x ``");
  assert.equal(markdownCode("a|b\nc"), "`a\\|b c`");
});

test("gbr eval's table: one row, no letters, nothing bold, the run and its query count in the caption", () => {
  const t = evalPaperTable({ name: "bm25_run", mean: metricValues(0.5) }, METRICS, 26);
  assert.deepEqual(t.rows, [{ name: "bm25_run" }]);
  assert.deepEqual(t.best, [METRICS.map(() => false)]);
  assert.equal(t.caption, "Run bm25_run: mean over 26 queries.");
  assert.doesNotMatch(renderLatex(t), /textbf|textsuperscript|\\#/);
});

/** A benchmark of `n` queries (each with one gold article) and `n` articles. */
function bench(n: number): Benchmark {
  const queries = Array.from({ length: n }, (_, i) => ({ id: `q${i}`, text: "" }));
  return {
    name: "greeklaws-2021",
    docs: queries.map((_, i) => ({ id: `d${i}`, text: "" })),
    queries,
    qrels: new Map(queries.map((qq, i) => [qq.id, new Set([`d${i}`])])),
    meta: new Map(),
  };
}

test("reproduce's table: every ok experiment, letters only from tested pairs, oracle and stand-in rows marked and never bold", () => {
  const n = 30;
  const b = bench(n);
  const level = (f: (i: number) => number) => new Map(b.queries.map((qq, i) => [qq.id, metricValues(f(i))]));
  const perQuery = new Map([
    ["bm25-greekstemmer", level((i) => 0.3 + (i % 3) * 0.01)],
    ["reform:bm25-greekstemmer", level((i) => 0.6 + (i % 3) * 0.01)],
    ["lsi", level((i) => 0.1 + (i % 3) * 0.01)],
    ["oracle:bm25-greekstemmer", level((i) => 0.9 + (i % 3) * 0.01)],
    ["dense:qwen3-8b", level((i) => 0.8 + (i % 3) * 0.01)],
  ]);
  const significance = significanceReport(perQuery, b.qrels, { swaps: 2000 });
  const mean = (id: string) => metricValues([...perQuery.get(id)!.values()].reduce((s, v) => s + v["nDCG@10"], 0) / n);
  const ok = (id: string, extra: Partial<ExperimentOutcome> = {}): ExperimentOutcome => ({ id, title: id, section: "s", status: "ok", mean: mean(id), seconds: 1, ...extra });
  const outcomes: ExperimentOutcome[] = [
    ok("bm25-greekstemmer"),
    ok("reform:bm25-greekstemmer"),
    ok("lsi"),
    ok("oracle:bm25-greekstemmer"),
    ok("dense:qwen3-8b", { standIn: true }),
    { id: "react-bm25", title: "REACT", section: "s", status: "skipped", reason: "no chat model" },
  ];
  const t = resultsTable({ benchmark: b, origin: "dir" }, { outcomes, significance });
  assert.deepEqual(t.rows.map((r) => [r.label, r.name, r.marks ?? []]), [
    ["a", "bm25-greekstemmer", []],
    ["b", "reform:bm25-greekstemmer", []],
    ["c", "lsi", []],
    ["d", "oracle:bm25-greekstemmer", ["dagger"]],
    ["e", "dense:qwen3-8b", ["ddagger"]],
  ]);
  const col = (m: Metric) => METRICS.indexOf(m);
  // Tested: the paper's reform vs BM25 pair, and everything vs BM25. Not tested: reform vs lsi, lsi vs the oracle …
  assert.deepEqual(t.superscripts.map((r) => r[col("nDCG@10")]), [["c"], ["a"], [], ["a"], ["a"]]);
  // Recall@10 is in no family.
  assert.deepEqual(t.superscripts.map((r) => r[col("Recall@10")]), [[], [], [], [], []]);
  // Bold is reform's: the oracle and the stand-in score higher but do not compete.
  assert.deepEqual(t.best.map((r) => r[col("nDCG@10")]), [false, true, false, false, false]);
  assert.match(t.caption, /^Results on greeklaws-2021: 30 queries, 30 articles\. Bold: the best value of each column among rows without a mark/);
  assert.match(t.caption, /the paper's 20 tests \(4 computed here; Holm over all 20, a missing one counted as p = 1\); each experiment against bm25-greekstemmer \(Holm over these 16 tests\)\. A pair tested in more than one family is marked by the first\. Recall@10 was not tested\./);
  assert.match(t.caption, /2,000 random sign flips, numpy seed 42/);
  const md = renderMarkdown(t);
  assert.match(md, /^\| d \| `oracle:bm25-greekstemmer` † \|/m);
  assert.match(md, /^† oracle: tuned on the test queries, an upper bound for Recall@100 only; never in bold\.\\$/m);
  assert.match(md, /^‡ stand-in: produced through the project's test doubles/m);

  // Only BM25 ran: nothing tested, and the caption says so; the demo set is named as such.
  const alone = significanceReport(new Map([["bm25-greekstemmer", perQuery.get("bm25-greekstemmer")!]]), b.qrels, { swaps: 100 });
  const one = resultsTable({ benchmark: { ...b, name: "sample" }, origin: "sample" }, { outcomes: [ok("bm25-greekstemmer")], significance: alone });
  assert.match(one.caption, /^Results on the bundled demo set \(made up for testing, not the benchmark\)/);
  assert.match(one.caption, /No pair of these rows was tested for significance, so there are no superscripts\./);
  assert.equal(one.footnotes!.length, 2, "notes are listed; the renderers print only those a row uses");
  assert.doesNotMatch(renderLatex(one), /dagger/);
});
