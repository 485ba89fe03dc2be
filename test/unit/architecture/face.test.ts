/**
 * The public face stays small and is the notebooks' only way in (DESIGN.md §3): lib/index.ts
 * exports at most 40 values (types are free), and a notebook imports nothing but ./lib/index,
 * node: modules and npm packages. Deep imports would tie the notebooks to lib/'s internals.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import ts from "typescript";
import { REPO } from "../../helpers/shared";

const MAX_VALUE_EXPORTS = 40;

test(`lib/index.ts exports at most ${MAX_VALUE_EXPORTS} values`, async () => {
  // The loaded module is the truth: it also counts what `export *` or a re-export chain adds.
  const face = (await import("../../../lib/index.js")) as Record<string, unknown>;
  const values = Object.keys(face).filter((k) => k !== "default" && k !== "__esModule");
  assert.ok(values.includes("loadBenchmark") && values.includes("reproduce"), `the face lacks its verbs: ${values.join(", ")}`);
  assert.ok(values.length <= MAX_VALUE_EXPORTS, `lib/index.ts exports ${values.length} values (at most ${MAX_VALUE_EXPORTS}): ${values.sort().join(", ")}`);
});

/** A module a notebook may import: the face, a node: module, or an npm package (a bare name). */
function allowed(spec: string): boolean {
  return spec === "./lib/index" || spec.startsWith("node:") || !/^[./]/.test(spec);
}

test("every notebook imports nothing but ./lib/index, node: modules and npm packages", () => {
  const dir = path.join(REPO, "notebooks");
  const notebooks = readdirSync(dir).filter((f) => f.endsWith(".ipynb"));
  assert.ok(notebooks.length >= 10, `only ${notebooks.length} notebooks found`);
  const bad: string[] = [];
  let seen = 0;
  for (const file of notebooks) {
    const nb = JSON.parse(readFileSync(path.join(dir, file), "utf8")) as { cells: { cell_type: string; source: string | string[] }[] };
    const code = nb.cells.filter((c) => c.cell_type === "code").map((c) => (Array.isArray(c.source) ? c.source.join("") : c.source));
    code.forEach((src, i) => {
      const visit = (node: ts.Node): void => {
        let spec: string | undefined;
        if ((ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)) spec = node.moduleSpecifier.text;
        const dynamic = ts.isCallExpression(node) && (node.expression.kind === ts.SyntaxKind.ImportKeyword || (ts.isIdentifier(node.expression) && node.expression.text === "require"));
        if (dynamic && node.arguments[0] && ts.isStringLiteral(node.arguments[0])) spec = node.arguments[0].text;
        if (spec !== undefined) {
          seen++;
          if (!allowed(spec)) bad.push(`${file} code cell ${i}: '${spec}'`);
        }
        ts.forEachChild(node, visit);
      };
      visit(ts.createSourceFile(`cell${i}.ts`, src, ts.ScriptTarget.ES2022, true));
    });
  }
  assert.ok(seen >= notebooks.length, `only ${seen} imports found in ${notebooks.length} notebooks`);
  assert.deepEqual(bad, [], `notebooks import from lib/ only through ./lib/index:\n${bad.join("\n")}`);
});

test("the import rule itself: the face, node: and packages pass, deep paths do not", () => {
  assert.ok(allowed("./lib/index") && allowed("node:fs") && allowed("danfojs-node") && allowed("@scope/pkg"));
  assert.ok(!allowed("./lib/report/notebook") && !allowed("./lib") && !allowed("../lib/index") && !allowed("/abs/lib/index"));
});
