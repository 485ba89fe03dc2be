/**
 * Issue 23, item 4, "done when": the LaTeX that `gbr eval`, `gbr compare` and `gbr reproduce` write compiles with
 * pdflatex (Debian's texlive-latex-base + texlive-latex-recommended, which .ci/run installs), run names with every
 * LaTeX special character included, in a minimal document that loads booktabs and nothing else.
 */
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { existsSync, promises as fs } from "node:fs";
import os from "node:os";
import path from "node:path";
import { runGbr } from "../helpers/gbr";
import { REPO } from "../helpers/shared";
import { renderLatex } from "../../lib/eval/results-table";
import { resultsTable } from "../../lib/experiments/results-table";
import { significanceReport } from "../../lib/eval/significance";
import { METRICS, type MetricValues } from "../../lib/eval/metrics";
import type { ExperimentOutcome } from "../../lib/experiments/assess";

const PDFLATEX = "/usr/bin/pdflatex";
let tmp = "";

before(async () => {
  tmp = await fs.mkdtemp(path.join(os.tmpdir(), "gbr-latex-test-"));
});

after(async () => {
  if (tmp) await fs.rm(tmp, { recursive: true, force: true });
});

/** pdflatex on `file` in its folder: exit code, its terminal output, seconds. */
function pdflatex(file: string): Promise<{ code: number; output: string; seconds: number }> {
  const t0 = performance.now();
  return new Promise((resolve) => {
    execFile(PDFLATEX, ["-halt-on-error", "-interaction=nonstopmode", path.basename(file)], { cwd: path.dirname(file), timeout: 120_000 }, (err, stdout, stderr) => {
      const code = err ? (typeof (err as { code?: unknown }).code === "number" ? (err as { code: number }).code : 1) : 0;
      resolve({ code, output: stdout + stderr, seconds: (performance.now() - t0) / 1000 });
    });
  });
}

/** A stand-in row and more rows than letters (labels aa, ab …): the cases a demo run does not reach. */
function syntheticResults(): string {
  const n = 20;
  const queries = Array.from({ length: n }, (_, i) => ({ id: `q${i}`, text: "" }));
  const benchmark = { name: "odd_name&co", docs: queries.map((q) => ({ id: q.id, text: "" })), queries, qrels: new Map(queries.map((q) => [q.id, new Set([q.id])])), meta: new Map() };
  const ids = Array.from({ length: 28 }, (_, i) => (i === 0 ? "bm25-greekstemmer" : i === 1 ? "oracle:bm25-greekstemmer" : `dense:preset_${i}&{x}`));
  const values = (v: number) => Object.fromEntries(METRICS.map((m) => [m, v])) as MetricValues;
  const perQuery = new Map(ids.map((id, k) => [id, new Map(queries.map((q, i) => [q.id, values((k * 7 + (i % 4)) / 300)]))]));
  const significance = significanceReport(perQuery, benchmark.qrels, { swaps: 500 });
  const outcomes: ExperimentOutcome[] = ids.map((id, k) => ({ id, title: id, section: "s", status: "ok", mean: values((k * 7 + 1.5) / 300), standIn: k === 5 }));
  return renderLatex(resultsTable({ benchmark, origin: "dir" }, { outcomes, significance }));
}

test("--format latex from gbr eval, compare and reproduce compiles with pdflatex, awkward run names included", { timeout: 600_000 }, async (t) => {
  assert.ok(
    existsSync(PDFLATEX),
    `${PDFLATEX} not found: this test needs Debian's TeX. Install it with 'apt-get update && apt-get install -y texlive-latex-base texlive-latex-recommended' (the CI script does).`,
  );
  const dataDir = path.join(tmp, "data");
  const out = path.join(tmp, "out");
  const ids = ["bm25-greekstemmer", "lsi", "prf:bm25-greekstemmer", "rrf:bm25-greekstemmer+lsi", "oracle:bm25-greekstemmer"];
  const rep = await runGbr(["reproduce", "--data", "sample", "--out", out, "--only", ids.join(","), "--format", "latex", "-q"], { dataDir });
  assert.equal(rep.code, 0, rep.stderr);
  const dir = path.join(out, "sample");
  const tablesTex = await fs.readFile(path.join(dir, "tables.tex"), "utf8");
  const tablesMd = await fs.readFile(path.join(dir, "tables.md"), "utf8");
  // The terminal's table is the file's; the files are listed where the summary says what it wrote.
  assert.ok(rep.stdout.includes(tablesTex), rep.stdout);
  assert.match(rep.stdout, /^Written to .*tables\.tex, tables\.md/m);
  assert.match(tablesTex, /^[a-z] & oracle:bm25-greekstemmer\$\^\{\\dagger\}\$ & /m);
  assert.match(tablesMd, /^\| [a-z] \| `oracle:bm25-greekstemmer` † \|/m);

  // The demo's runs under names holding every character LaTeX treats specially.
  // "[x]r" after "\\" or "\midrule" would be read as their optional argument (issue 29: pdflatex loops on it).
  const awkward = ["bm25_greek&stem", "lsi~50%^{x}", "prf$#\\1", "rrf <a>|b é", "[x]r"];
  const runFiles = (await fs.readdir(path.join(dir, "runs"))).filter((f) => f.endsWith(".trec")).sort();
  assert.ok(runFiles.length >= awkward.length, runFiles.join(", "));
  const runs = await Promise.all(
    awkward.map(async (name, i) => {
      const file = path.join(tmp, `${name}.trec`);
      await fs.copyFile(path.join(dir, "runs", runFiles[i]), file);
      return file;
    }),
  );
  const qrels = path.join(REPO, "data", "sample", "qrels", "test.tsv");
  const ev = await runGbr(["eval", "--qrels", qrels, "--run", runs[0], "--format", "latex"], { dataDir });
  assert.equal(ev.code, 0, ev.stderr);
  assert.match(ev.stdout, /^bm25\\_greek\\&stem & \d\.\d{4} /m);
  const cmp = await runGbr(["compare", "--qrels", qrels, ...runs.flatMap((r) => ["--run", r]), "--swaps", "2000", "--format", "latex"], { dataDir });
  assert.equal(cmp.code, 0, cmp.stderr);
  for (const row of ["a & bm25\\_greek\\&stem & ", "b & lsi\\textasciitilde{}50\\%\\textasciicircum{}\\{x\\} & ", "c & prf\\ensuremath{\\$}\\#\\textbackslash{}1 & ", "d & rrf \\textless{}a\\textgreater{}\\textbar{}b é & ", "e & {[}x]r & "]) {
    assert.ok(cmp.stdout.includes(row), `${row} in\n${cmp.stdout}`);
  }
  const md = await runGbr(["compare", "--qrels", qrels, ...runs.flatMap((r) => ["--run", r]), "--swaps", "2000", "--format", "markdown"], { dataDir });
  assert.equal(md.code, 0, md.stderr);
  assert.match(md.stdout, /^\| d \| `rrf <a>\\\|b é` \| /m);

  // The one row of an eval table follows "\midrule" directly: "[2pt]" would be taken as its width and vanish.
  const lead = path.join(tmp, "[2pt]lead.trec");
  await fs.copyFile(runs[0], lead);
  const evLead = await runGbr(["eval", "--qrels", qrels, "--run", lead, "--format", "latex"], { dataDir });
  assert.equal(evLead.code, 0, evLead.stderr);
  assert.match(evLead.stdout, /^\\midrule\n\{\[\}2pt\]lead & /m);

  const parts = { "eval.tex": ev.stdout, "eval-lead.tex": evLead.stdout, "compare.tex": cmp.stdout, "reproduce.tex": tablesTex, "synthetic.tex": syntheticResults() };
  for (const [name, text] of Object.entries(parts)) await fs.writeFile(path.join(tmp, name), text);
  const doc = path.join(tmp, "paper.tex");
  await fs.writeFile(
    doc,
    ["\\pdfcompresslevel=0", "\\documentclass{article}", "\\usepackage{booktabs}", "\\begin{document}", ...Object.keys(parts).map((f) => `\\input{${f}}`), "\\end{document}", ""].join("\n"),
  );
  const r = await pdflatex(doc);
  assert.equal(r.code, 0, r.output.split("\n").slice(-40).join("\n"));
  assert.ok(existsSync(path.join(tmp, "paper.pdf")));
  // Every glyph from a Type 1 font: a bitmap (.600pk, e.g. from text-mode \dag) would print blurred.
  assert.doesNotMatch(r.output, /\.\d+pk\b/);
  assert.match(r.output, /Output written on paper\.pdf \(\d+ pages?/);
  // Uncompressed, the page's text is in the file: the row names starting with "[" were typeset, not eaten.
  const pdf = await fs.readFile(path.join(tmp, "paper.pdf"), "latin1");
  assert.match(pdf, /\(\[2pt\]lead\)/);
  assert.match(pdf, /\(\[(\)-?\d+\()?x\]r\)/, "the braces may leave a kern between [ and x");
  t.diagnostic(`pdflatex ${r.seconds.toFixed(1)} s for 4 tables; gbr reproduce ${rep.seconds.toFixed(1)} s, eval ${ev.seconds.toFixed(1)} s, compare ${cmp.seconds.toFixed(1)} s`);
});

test("--format: an unknown value is a usage error naming the nearest; --json with a paper format is refused", async () => {
  const dataDir = path.join(tmp, "data-usage");
  const qrels = path.join(REPO, "data", "sample", "qrels", "test.tsv");
  const typo = await runGbr(["eval", "--qrels", qrels, "--run", qrels, "--format", "latx"], { dataDir });
  assert.equal(typo.code, 2);
  assert.match(typo.stderr, /unknown --format 'latx' \(did you mean 'latex'\?\) \(known: text, latex, markdown, trec_eval, mteb\)/);
  const both = await runGbr(["compare", "--qrels", qrels, "--run", "a.trec", "--run", "b.trec", "--json", "--format", "markdown"], { dataDir });
  assert.equal(both.code, 2);
  assert.match(both.stderr, /--json and --format markdown are two outputs/);
  const plan = await runGbr(["reproduce", "--data", "sample", "--plan", "--format", "latex", "--out", path.join(tmp, "plan")], { dataDir });
  assert.equal(plan.code, 2);
  assert.match(plan.stderr, /--plan prints none/);
});
