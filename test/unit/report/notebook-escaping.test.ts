/**
 * Issue 22, item 1: data shown in a notebook's Markdown stays text. `show.markdown` as a tag escapes every value
 * (HTML and Markdown), and no notebook interpolates data into a plain Markdown string.
 */
import assert from "node:assert/strict";
import ts from "typescript";
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { test } from "node:test";
import { escapeMarkdown, figureOutputHtml, progressDisplay, showMarkdown } from "../../../lib/report/notebook";
import { REPO } from "../../helpers/shared";

test("escapeMarkdown: a hostile query id or area is inert text in Markdown and in the HTML it becomes", () => {
  const id = "Q-<script>alert(1)</script>";
  const out = escapeMarkdown(id);
  assert.doesNotMatch(out, /<script>/);
  assert.equal(out, "Q\\-&lt;script&gt;alert\\(1\\)&lt;/script&gt;");
  assert.equal(escapeMarkdown("**bold** [x](javascript:alert(1)) `c` #h |t|"), "\\*\\*bold\\*\\* \\[x\\]\\(javascript\\:alert\\(1\\)\\) \\`c\\` \\#h \\|t\\|");
  assert.equal(escapeMarkdown('a & "b"'), "a &amp; &quot;b&quot;");
  assert.equal(escapeMarkdown(0.123456), "0\\.1235", "numbers as the tables print them");
});

test("issue 29: a query id holding a URL, a www. name or an e-mail address does not become a link", () => {
  // GitHub/Jupyter (marked) and VS Code (markdown-it's linkify) link these on sight; an escape inside breaks each.
  assert.equal(escapeMarkdown("https://evil.example/x?a=b"), "https\\://evil\\.example/x?a=b");
  assert.equal(escapeMarkdown("mailto:a@b.example"), "mailto\\:a\\@b\\.example");
  for (const id of ["https://evil.example/x", "ftp://evil.example", "www.evil.example", "a@b.example", "<https://evil.example>"]) {
    const out = escapeMarkdown(id);
    assert.doesNotMatch(out, /[a-z]:\/\/|www\.|[^\\]@|<[a-z]/i, `${id} -> ${out}`);
  }
});

test("show.markdown outside a kernel prints an id's control characters as escapes", () => {
  const printed: string[] = [];
  const log = console.log;
  console.log = (s: string) => void printed.push(s);
  try {
    showMarkdown`**${"Q1\x1b]0;pwned\x07\r\nFAKE"}**`;
  } finally {
    console.log = log;
  }
  assert.deepEqual(printed, ["**Q1\\x1b]0;pwned\\x07\\x0d\\x0aFAKE**"]);
  // The progress of long jobs outside a kernel (reproduce's log: a server's words, ids) likewise.
  const errors: string[] = [];
  const error = console.error;
  console.error = (s: string) => void errors.push(s);
  try {
    const p = progressDisplay();
    p.log("lsi failed: Q1\x1b[2J\nsecond line");
    p.onProgress("my\x1b[31mstep", 2, 2);
  } finally {
    console.error = error;
  }
  assert.deepEqual(errors, ["lsi failed: Q1\\x1b[2J\nsecond line", "my\\x1b[31mstep: 2/2"]);
});

test("show.markdown as a tag: values escaped, the template's own Markdown kept; plain text outside a kernel", () => {
  const printed: string[] = [];
  const log = console.log;
  console.log = (s: string) => void printed.push(s);
  try {
    showMarkdown`**${"Q-<b>1</b>"}** (${"Αστικό"}), ${0.5}`;
    showMarkdown("**as written**");
  } finally {
    console.log = log;
  }
  assert.deepEqual(printed, ["**Q-<b>1</b>** (Αστικό), 0.5000", "**as written**"]);
});

test("no notebook interpolates data into a plain Markdown string: show.markdown is a tag, or takes a literal", () => {
  // Parsed, not matched: a call split over lines, a ternary or a concatenation must not slip through.
  const dir = path.join(REPO, "notebooks");
  const bad: string[] = [];
  for (const f of readdirSync(dir).filter((n) => n.endsWith(".ipynb"))) {
    const nb = JSON.parse(readFileSync(path.join(dir, f), "utf8")) as { cells: { cell_type: string; source: string[] }[] };
    for (const [i, c] of nb.cells.entries()) {
      if (c.cell_type !== "code") continue;
      const file = ts.createSourceFile(`${f}#${i}.ts`, c.source.join(""), ts.ScriptTarget.Latest, true);
      const visit = (node: ts.Node): void => {
        if (ts.isCallExpression(node) && node.expression.getText(file) === "show.markdown") {
          const ok = node.arguments.length === 1 && (ts.isStringLiteral(node.arguments[0]) || ts.isNoSubstitutionTemplateLiteral(node.arguments[0]));
          if (!ok) bad.push(`${f}, cell ${i}: ${node.getText(file).slice(0, 80)}`);
        }
        ts.forEachChild(node, visit);
      };
      visit(file);
    }
  }
  assert.deepEqual(bad, []);
});

test("issue 23, item 6: a figure's output HTML: the image first (alt text plain and escaped), the spec inert in its script", () => {
  const hostile = `a&lt;b&gt; </script><img src=x onerror=alert(1)> %&#123;y}`;
  const spec = { data: [{ type: "bar", x: [1], y: [hostile] }], layout: { title: { text: hostile }, height: 300 } };
  const html = figureOutputHtml(spec, { id: "gbr-fig-1", name: "bars", height: 300, png: { base64: "iVBORw0KGgo=", width: 900, height: 300 } });
  assert.match(html, /^<div class="gbr-figure" id="gbr-fig-1" style="width:100%"><img src="data:image\/png;base64,iVBORw0KGgo=" alt="Figure: a&lt;b&gt;  %\{y\}" width="900" height="300"/, "tags dropped as plotly drops them, entities read back, then escaped");
  // One script element: nothing in the data closes it early.
  assert.equal((html.match(/<\/script/gi) ?? []).length, 1);
  assert.equal((html.match(/<img/g) ?? []).length, 1, "the data's <img> is not markup");
  const interactive = figureOutputHtml(spec, { id: "gbr-fig-2", name: "bars", height: 300 });
  assert.match(interactive, /^<div class="gbr-figure" id="gbr-fig-2" style="width:100%;height:300px"><\/div>/);
  assert.doesNotMatch(interactive, /<img/);
});
