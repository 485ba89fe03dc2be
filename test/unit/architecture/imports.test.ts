/**
 * The module map holds (docs/architecture.md, DESIGN.md §3): a small scan of every import in
 * lib/ fails when a folder imports one it may not, so an arrow back up is caught the day it is
 * written. Type-only imports carry no code at run time; they may point anywhere but up into
 * the layers that use everything (experiments, report, cli).
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { REPO } from "../../helpers/shared";

const LIB = path.join(REPO, "lib");

/** What each folder of lib/ may import at run time, besides itself and util/. */
const MAY_IMPORT: Record<string, readonly string[]> = {
  util: [],
  models: [],
  numeric: [],
  text: [],
  data: ["text"],
  sparse: ["text", "eval"],
  dense: ["models", "text", "data", "store", "eval", "numeric"],
  llm: ["models", "text", "sparse", "store", "eval"],
  store: ["models"],
  providers: ["models", "text", "store", "data"],
  fusion: ["eval"],
  eval: ["numeric"],
  experiments: ["models", "text", "data", "sparse", "dense", "llm", "store", "fusion", "eval", "rerank", "providers"],
  figures: ["eval"],
  report: ["eval", "experiments", "figures"],
  rerank: ["models", "store", "llm", "dense", "eval"],
  cli: ["*"],
};
/** Root files every folder may import: the shared types, the retriever registry, the data folder's location. */
const SHARED_ROOT = new Set(["types", "registry", "paths", "config"]);
/**
 * The root files that wire everything together (they import the folders): only the layers that
 * run named retrievers (experiments, cli) import them.
 */
const WIRING_ROOT = new Set(["retrievers", "index"]);
const MAY_IMPORT_WIRING = new Set(["experiments", "cli"]);
/** Layers no type import may reach from below. */
const TOP = new Set(["experiments", "report", "cli"]);

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = path.join(dir, name);
    return statSync(p).isDirectory() ? filesUnder(p) : p.endsWith(".ts") ? [p] : [];
  });
}

interface Edge {
  from: string;
  to: string;
  typeOnly: boolean;
}

/** Relative imports of a file: static, re-exports, require() and import(), with whether they are type-only. */
function importsOf(file: string): Edge[] {
  const src = readFileSync(file, "utf8");
  const edges: Edge[] = [];
  const add = (spec: string, typeOnly: boolean) => {
    if (!spec.startsWith(".")) return;
    const target = path.relative(LIB, path.resolve(path.dirname(file), spec));
    edges.push({ from: path.relative(LIB, file), to: target, typeOnly });
  };
  for (const m of src.matchAll(/^\s*(import|export)\s+(type\s+)?[^;]*?\sfrom\s+"([^"]+)"/gm)) add(m[3], m[2] !== undefined);
  for (const m of src.matchAll(/\brequire\(\s*"([^"]+)"\s*\)/g)) add(m[1], false);
  for (const m of src.matchAll(/\bimport\(\s*"([^"]+)"\s*\)/g)) add(m[1], src.slice(Math.max(0, m.index! - 7), m.index).includes("typeof"));
  return edges;
}

/** A file's folder (an import of a folder itself, `../store`, is of its index.ts), or "(root)/<name>". */
const folderOf = (rel: string) =>
  rel.includes(path.sep) || existsSync(path.join(LIB, rel, "index.ts")) ? rel.split(path.sep)[0] : `(root)/${rel.replace(/\.ts$/, "")}`;

test("every import in lib/ follows the module map", () => {
  const bad: string[] = [];
  for (const file of filesUnder(LIB)) {
    for (const e of importsOf(file)) {
      const from = folderOf(e.from);
      const to = folderOf(e.to);
      if (from === to || to === "util") continue;
      if (to.startsWith("(root)/") && SHARED_ROOT.has(to.slice(7))) {
        if (from === "text" && to !== "(root)/types") bad.push(`${e.from} -> ${e.to} (text/ knows no registry or data folder)`);
        continue;
      }
      if (from.startsWith("(root)/")) {
        // The shared root files import only types; the wiring files may import anything.
        if (WIRING_ROOT.has(from.slice(7))) continue;
        if (SHARED_ROOT.has(from.slice(7)) && e.typeOnly && !TOP.has(to)) continue;
        // createRetriever makes a run's providers when its caller gave none.
        if (from === "(root)/registry" && to === "providers") continue;
        bad.push(`${e.from} -> ${e.to} (a shared root file imports no folder at run time)`);
        continue;
      }
      const allowed = MAY_IMPORT[from];
      if (!allowed) {
        bad.push(`${e.from}: folder '${from}' is not in the module map`);
        continue;
      }
      if (allowed.includes("*")) continue;
      if (to.startsWith("(root)/") && WIRING_ROOT.has(to.slice(7))) {
        if (!MAY_IMPORT_WIRING.has(from)) bad.push(`${e.from} -> ${e.to} (only experiments and cli import the wiring)`);
        continue;
      }
      if (e.typeOnly ? !TOP.has(to) || allowed.includes(to) : allowed.includes(to)) continue;
      bad.push(`${e.from} -> ${e.to}${e.typeOnly ? " (type)" : ""}: ${from}/ may import ${allowed.length ? allowed.join(", ") : "nothing but util/ and the shared types"}`);
    }
  }
  assert.deepEqual(bad, [], `forbidden imports:\n${bad.join("\n")}`);
});

// The port (lib/models) stands between them: providers implement it, the methods consume it, so
// neither knows the other, not even by a type.
test("providers/ and the methods (llm/, dense/, rerank/) do not import each other, not even a type", () => {
  const methods = new Set(["llm", "dense", "rerank"]);
  const bad = filesUnder(LIB)
    .flatMap(importsOf)
    .filter((e) => {
      const from = folderOf(e.from);
      const to = folderOf(e.to);
      return (from === "providers" && methods.has(to)) || (methods.has(from) && to === "providers");
    })
    .map((e) => `${e.from} -> ${e.to}${e.typeOnly ? " (type)" : ""}`);
  assert.deepEqual(bad, [], `imports across the port:\n${bad.join("\n")}`);
});

test("models/ (the port) imports nothing but util/ and the shared types, not even a type", () => {
  const bad = filesUnder(path.join(LIB, "models"))
    .flatMap(importsOf)
    .filter((e) => !["models", "util", "(root)/types"].includes(folderOf(e.to)))
    .map((e) => `${e.from} -> ${e.to}`);
  assert.deepEqual(bad, [], `models/ imports:\n${bad.join("\n")}`);
});

test("the scan sees what it must (it cannot pass by reading nothing)", () => {
  const edges = filesUnder(LIB).flatMap(importsOf);
  assert.ok(edges.length > 200, `only ${edges.length} imports found`);
  assert.ok(edges.some((e) => e.from === path.join("experiments", "reproduce.ts") && e.to === path.join("experiments", "run-experiments")));
  assert.ok(edges.some((e) => e.typeOnly));
});

/**
 * Static run-time imports between lib/ files, file to file (type-only imports and lazy `import()`
 * are left out: neither runs at load time).
 */
function loadGraph(): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of filesUnder(LIB)) {
    const src = readFileSync(file, "utf8");
    const targets: string[] = [];
    for (const m of src.matchAll(/^\s*(?:import|export)\s+(type\s+)?([^;]*?)\sfrom\s+"(\.[^"]+)"/gm)) {
      if (m[1] !== undefined) continue;
      // `import { type A, type B } from …` is erased as well.
      const braces = /^\{([^}]*)\}$/.exec(m[2].trim());
      if (braces && braces[1].split(",").every((n) => !n.trim() || /^type\s/.test(n.trim()))) continue;
      const base = path.resolve(path.dirname(file), m[3]);
      targets.push(existsSync(`${base}.ts`) ? `${base}.ts` : path.join(base, "index.ts"));
    }
    graph.set(file, targets);
  }
  return graph;
}

// tslab loads a notebook's imports with its own require, which recurses forever on an import
// cycle that Node's loader would tolerate: every notebook then fails in its first cell.
test("lib/ has no import cycle at load time (tslab cannot load one)", () => {
  const graph = loadGraph();
  const state = new Map<string, "open" | "done">();
  const cycles: string[] = [];
  const visit = (file: string, stack: string[]) => {
    if (state.get(file) === "done") return;
    if (state.get(file) === "open") {
      cycles.push([...stack.slice(stack.indexOf(file)), file].map((f) => path.relative(LIB, f)).join(" -> "));
      return;
    }
    state.set(file, "open");
    for (const t of graph.get(file) ?? []) visit(t, [...stack, file]);
    state.set(file, "done");
  };
  for (const file of graph.keys()) visit(file, []);
  assert.ok([...graph.values()].flat().length > 200, "the scan reads the imports");
  assert.deepEqual(cycles, [], `import cycles:\n${cycles.join("\n")}`);
});

/**
 * Configuration is read once, at an entry, and passed down as a value: the command line, and for a library user
 * who passes none, the face's entries (runContext, loadBenchmark, createTokenizer, experiments, notebook display)
 * through `environmentConfig` (lib/paths.ts). Nothing below calls these.
 */
const READS_CONFIG = new Set([
  "config.ts",
  "paths.ts",
  "retrievers.ts",
  path.join("data", "source.ts"),
  path.join("data", "spacy-tables.ts"),
  path.join("eval", "cost.ts"),
  path.join("experiments", "registry.ts"),
  path.join("report", "notebook.ts"),
]);

test("the configuration is read only at the entries (lib/cli, the face's defaults), never below them", () => {
  const bad: string[] = [];
  for (const file of filesUnder(LIB)) {
    const rel = path.relative(LIB, file);
    if (READS_CONFIG.has(rel) || rel.startsWith(`cli${path.sep}`)) continue;
    readFileSync(file, "utf8").split("\n").forEach((line, i) => {
      if (/^\s*(\*|\/\/|\/\*)/.test(line)) return;
      const m = /(?<![.\w])(readConfig|dataDir|environmentConfig)\(/.exec(line);
      if (m) bad.push(`lib/${rel}:${i + 1}: ${m[1]}()`);
    });
  }
  assert.deepEqual(bad, [], `configuration read below the entries (receive it as a value instead):\n${bad.join("\n")}`);
});
