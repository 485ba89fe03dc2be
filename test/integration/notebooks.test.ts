/**
 * Structural checks of the tslab notebooks that run without Jupyter: the files are clean
 * nbformat 4 (tslab kernel, no outputs, no secrets), thin over lib/, and every notebook's code
 * type-checks with tslab's own TypeScript 5.0. Executing them needs Jupyter and the tslab kernel:
 * scripts/run-notebooks.sh.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { copyFile, mkdir, mkdtemp, readdir, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { REPO } from "../helpers/shared";
import { staleSources } from "../../lib/paths";

const NOTEBOOKS = path.join(REPO, "notebooks");
const EXPECTED = [
  "00-quickstart",
  "01-benchmark",
  "02-vanilla-retrievers",
  "03-query-reformulation",
  "04-prf-rrf-tuning-translation",
  "05-react-bm25",
  "06-significance",
  "07-cost",
  "08-error-analysis",
  "09-rerankers",
];
/** Longest function a notebook may define: anything longer belongs in lib/. */
const MAX_FUNCTION_LINES = 8;

// tslab's own compiler: the notebooks must type-check with what the kernel runs (TypeScript 5.0).
const TSLAB_TS = path.join(REPO, "node_modules", "@tslab", "typescript-for-tslab");
const ts = require(TSLAB_TS) as typeof import("typescript");

interface Cell {
  cell_type: string;
  source: string | string[];
  outputs?: unknown[];
  execution_count?: number | null;
  metadata?: Record<string, unknown>;
}
interface Notebook {
  nbformat: number;
  nbformat_minor: number;
  metadata: { kernelspec?: { name?: string; language?: string; display_name?: string }; language_info?: { name?: string } };
  cells: Cell[];
}

const sourceOf = (c: Cell) => (Array.isArray(c.source) ? c.source.join("") : c.source);
const files = readdirSync(NOTEBOOKS).filter((f) => f.endsWith(".ipynb")).sort();
const notebooks = files.map((f) => ({ name: f.replace(/\.ipynb$/, ""), text: readFileSync(path.join(NOTEBOOKS, f), "utf8") }));
const parsed = notebooks.map((n) => ({ ...n, nb: JSON.parse(n.text) as Notebook }));
const codeCells = (nb: Notebook) => nb.cells.filter((c) => c.cell_type === "code").map(sourceOf);

test("the notebooks are the paper's sections and the error analysis, numbered", () => {
  assert.deepEqual(
    notebooks.map((n) => n.name),
    EXPECTED,
  );
});

test("notebooks/lib is a link to build/lib, lib/ compiled (tslab reads its declarations instead of type-checking lib/)", () => {
  assert.equal(readlinkSync(path.join(NOTEBOOKS, "lib")), path.join("..", "build", "lib"));
  assert.ok(existsSync(path.join(REPO, "build", "lib", "BUILD.json")), "build/lib is missing: `npm ci` builds it (the prepare script), or run `npm run build`");
});

test("the compiled lib/ is current with the sources, and finds the package's files through the link", () => {
  assert.deepEqual(staleSources(path.join(REPO, "build", "lib", "BUILD.json"), path.join(REPO, "lib")), [], "run `npm run build`");
  // --preserve-symlinks makes Node do what tslab does: load notebooks/lib/*.js under the link's own path.
  const r = spawnSync(process.execPath, ["--preserve-symlinks", "-e", `process.stdout.write(require(${JSON.stringify(path.join(NOTEBOOKS, "lib", "paths.js"))}).SAMPLE_DIR)`], {
    encoding: "utf8",
    cwd: REPO,
  });
  assert.equal(r.status, 0, r.stderr);
  assert.equal(r.stdout, path.join(realpathSync(REPO), "data", "sample"), "PACKAGE_ROOT must be the package, not build/");
});

test("a build older than lib/ refuses to load, naming the changed files", async () => {
  const tmp = await mkdtemp(path.join(os.tmpdir(), "gbr-stale-build-"));
  try {
    // A package in miniature: lib/ with two sources, build/lib compiled from an older copy of one.
    await mkdir(path.join(tmp, "lib", "eval"), { recursive: true });
    await mkdir(path.join(tmp, "build", "lib"), { recursive: true });
    await writeFile(path.join(tmp, "lib", "paths.ts"), "// paths\n");
    await writeFile(path.join(tmp, "lib", "eval", "metrics.ts"), "// new\n");
    const hash = (t: string) => createHash("sha256").update(t).digest("hex").slice(0, 16);
    const record = { sources: { "paths.ts": hash("// paths\n"), "eval/metrics.ts": hash("// old\n"), "gone.ts": hash("x") } };
    await writeFile(path.join(tmp, "build", "lib", "BUILD.json"), JSON.stringify(record));
    assert.deepEqual(staleSources(path.join(tmp, "build", "lib", "BUILD.json"), path.join(tmp, "lib")), ["eval/metrics.ts", "gone.ts"]);
    // An installed package ships the build without lib/'s sources (lib/ holds only prompt files): nothing to be stale against.
    await mkdir(path.join(tmp, "installed", "lib", "llm"), { recursive: true });
    await writeFile(path.join(tmp, "installed", "lib", "llm", "PROMPT.txt"), "x\n");
    assert.deepEqual(staleSources(path.join(tmp, "build", "lib", "BUILD.json"), path.join(tmp, "installed", "lib")), []);
    // The compiled paths module itself refuses to load from such a build.
    // (with what it loads: the configuration reader and the utilities, all of util/ so that a new import there is found)
    await mkdir(path.join(tmp, "build", "lib", "util"), { recursive: true });
    const utils = (await readdir(path.join(REPO, "build", "lib", "util"))).filter((f) => f.endsWith(".js")).map((f) => `util/${f}`);
    for (const f of ["paths.js", "config.js", ...utils]) await copyFile(path.join(REPO, "build", "lib", f), path.join(tmp, "build", "lib", f));
    const r = spawnSync(process.execPath, ["-e", `require(${JSON.stringify(path.join(tmp, "build", "lib", "paths.js"))})`], { encoding: "utf8" });
    assert.notEqual(r.status, 0);
    assert.match(r.stderr, /lib\/eval\/metrics\.ts, lib\/gone\.ts changed since it was built: run `npm run build`/);
    const allowed = spawnSync(process.execPath, ["-e", `require(${JSON.stringify(path.join(tmp, "build", "lib", "paths.js"))})`], {
      encoding: "utf8",
      env: { ...process.env, GBR_ALLOW_STALE_BUILD: "1" },
    });
    assert.equal(allowed.status, 0, allowed.stderr);
  } finally {
    await rm(tmp, { recursive: true, force: true });
  }
});

for (const { name, text, nb } of parsed) {
  test(`${name}: nbformat 4 with the tslab kernel, committed without outputs or secrets`, () => {
    assert.equal(nb.nbformat, 4);
    assert.equal(nb.metadata.kernelspec?.name, "tslab");
    assert.equal(nb.metadata.kernelspec?.language, "typescript");
    assert.ok(nb.cells.length > 0);
    for (const [i, c] of nb.cells.entries()) {
      assert.ok(["code", "markdown"].includes(c.cell_type), `cell ${i}: type ${c.cell_type}`);
      if (c.cell_type !== "code") continue;
      assert.deepEqual(c.outputs, [], `cell ${i} has outputs: clear them before committing`);
      assert.equal(c.execution_count, null, `cell ${i} has an execution count: clear outputs before committing`);
    }
    const secrets = [
      /sk-[A-Za-z0-9_-]{16,}/, // OpenAI-style keys
      /AIza[0-9A-Za-z_-]{30,}/, // Google API keys
      /hf_[A-Za-z0-9]{20,}/, // Hugging Face tokens
      /(api[_-]?key|token|secret|password)\W{0,3}\s*[:=]\s*\\?["'][^"'\\]{8,}/i,
      /Bearer\s+[A-Za-z0-9._-]{16,}/,
    ];
    for (const re of secrets) assert.ok(!re.test(text), `${name} contains something like a secret (${re})`);
  });

  test(`${name}: opens with the question and the data choice, ends with what the numbers say`, () => {
    assert.equal(nb.cells[0].cell_type, "markdown");
    assert.match(sourceOf(nb.cells[0]), /^# \d\d · /);
    const first = codeCells(nb)[0];
    // Unset, the default (hf, or the demo set when the Hub cannot be reached); named, that source or an error.
    assert.match(first, /const DATA = process\.env\.GBR_NOTEBOOK_DATA;/);
    assert.match(first, /loadBenchmark\(DATA\)/);
    const tail = nb.cells.slice(-3).map(sourceOf).join("\n");
    assert.match(tail, /## What the numbers say/);
  });

  // What a notebook may import is test/unit/architecture/face.test.ts's rule (./lib/index, node:, npm packages).
  test(`${name}: thin over lib/: no long functions, no classes, no dynamic import or require`, () => {
    for (const [i, src] of codeCells(nb).entries()) {
      const sf = ts.createSourceFile(`cell${i}.ts`, src, ts.ScriptTarget.ES2022, true);
      const visit = (node: import("typescript").Node): void => {
        if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) assert.fail(`code cell ${i}: dynamic import()`);
        if (ts.isCallExpression(node) && ts.isIdentifier(node.expression) && node.expression.text === "require") assert.fail(`code cell ${i}: require()`);
        if (ts.isClassDeclaration(node) || ts.isClassExpression(node)) assert.fail(`code cell ${i}: a class; put it in lib/`);
        if (ts.isFunctionDeclaration(node) || ts.isFunctionExpression(node) || ts.isArrowFunction(node) || ts.isMethodDeclaration(node)) {
          const lines = sf.getLineAndCharacterOfPosition(node.end).line - sf.getLineAndCharacterOfPosition(node.getStart(sf)).line + 1;
          assert.ok(lines <= MAX_FUNCTION_LINES, `code cell ${i}: a function of ${lines} lines (at most ${MAX_FUNCTION_LINES}); put the logic in lib/`);
        }
        ts.forEachChild(node, visit);
      };
      visit(sf);
    }
  });
}

test("every notebook's code type-checks with tslab's TypeScript 5.0 (cells concatenated, top-level await in an async function)", () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), "gbr-notebooks-"));
  {
    // Same layout as notebooks/: a lib link to the compiled lib/ beside the code, so "./lib/…"
    // resolves to the declarations the kernel reads (test/integration/tslab-compat.test.ts checks
    // that lib/'s sources themselves compile under TypeScript 5.0).
    symlinkSync(path.join(REPO, "build", "lib"), path.join(dir, "lib"), "dir");
    symlinkSync(path.join(REPO, "node_modules"), path.join(dir, "node_modules"), "dir");
    const written: string[] = [];
    for (const { name, nb } of parsed) {
      const imports: string[] = [];
      const body: string[] = [];
      for (const [i, src] of codeCells(nb).entries()) {
        // Import declarations must stay at module level; everything else runs inside the async wrapper.
        const sf = ts.createSourceFile(`cell${i}.ts`, src, ts.ScriptTarget.ES2022, true);
        body.push(`// ---- code cell ${i}`);
        for (const st of sf.statements) (ts.isImportDeclaration(st) ? imports : body).push(src.slice(st.getFullStart(), st.end).replace(/^\s*\n/, ""));
      }
      const file = path.join(dir, `${name}.ts`);
      writeFileSync(file, `${imports.join("\n")}\n\n(async () => {\n${body.join("\n")}\n})();\n`);
      written.push(file);
    }
    const r = spawnSync(
      process.execPath,
      [
        path.join(TSLAB_TS, "lib", "tsc.js"),
        "--noEmit",
        ...["--target", "ES2022", "--module", "commonjs", "--moduleResolution", "node", "--types", "node"],
        ...["--strict", "--esModuleInterop", "--skipLibCheck", "--resolveJsonModule"],
        ...written,
      ],
      { encoding: "utf8", cwd: REPO },
    );
    assert.equal(r.status, 0, `tsc (tslab's TypeScript ${ts.version}) found errors; files kept in ${dir}:\n${r.stdout}${r.stderr}`);
    rmSync(dir, { recursive: true, force: true });
  }
});

test("lib/ has no relative module name with a dot in its last part (tslab's require of compiled files adds .js only to extension-less names)", () => {
  const offenders: string[] = [];
  const walk = (d: string): void => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (p.endsWith(".ts")) {
        const src = readFileSync(p, "utf8");
        for (const m of src.matchAll(/(?:from\s+|require\()\s*["'](\.{1,2}\/[^"']*)["']/g)) {
          const last = m[1].split("/").pop()!;
          if (last.includes(".") && !last.endsWith(".json")) offenders.push(`${path.relative(REPO, p)}: '${m[1]}'`);
        }
      }
    }
  };
  walk(path.join(REPO, "lib"));
  assert.deepEqual(offenders, [], "rename these modules so their names have no dot (e.g. dot-kernel-wasm.ts)");
});
