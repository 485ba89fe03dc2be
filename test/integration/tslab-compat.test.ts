import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { REPO } from "../helpers/shared";

// Notebooks import lib/ through tslab, which type-checks with its own TypeScript 5.0 and
// classic Node module resolution; newer syntax or ESM-only imports would break every notebook.
test("lib/ compiles with tslab's TypeScript (5.0, CommonJS, classic node resolution)", () => {
  const tsc = path.join(REPO, "node_modules", "@tslab", "typescript-for-tslab", "lib", "tsc.js");
  const r = spawnSync(
    process.execPath,
    [tsc, "--noEmit", "--target", "ES2022", "--module", "commonjs", "--moduleResolution", "node", "--strict", "--esModuleInterop", "--skipLibCheck", "--types", "node", path.join(REPO, "lib", "index.ts")],
    { encoding: "utf8", cwd: REPO },
  );
  assert.equal(r.status, 0, r.stdout + r.stderr);
});

// tslab's own cell converter (not tsc) also computes declarations of what a cell imports, and it
// has failed where tsc did not (a module with effects and no export): convert the cell every
// notebook starts with, from the notebooks' folder.
test("tslab's cell converter compiles a cell that imports lib/ (as every notebook's first cell does)", () => {
  const script = [
    `const { createConverter } = require(${JSON.stringify(path.join(REPO, "node_modules", "tslab", "dist", "converter"))});`,
    "const conv = createConverter();",
    `const out = conv.convert("", 'import { loadBenchmark, reproduce, show } from "./lib/index"; const loaded = await loadBenchmark("sample"); show.markdown(loaded.origin);');`,
    "conv.close();",
    "if (out.diagnostics.length) { console.error(JSON.stringify(out.diagnostics.map((d) => d.messageText))); process.exit(1); }",
  ].join("\n");
  const r = spawnSync(process.execPath, ["-e", script], { encoding: "utf8", cwd: path.join(REPO, "notebooks") });
  assert.equal(r.status, 0, r.stdout + r.stderr);
});

// A notebook may run on lib/'s TypeScript sources, which tslab then type-checks with its own
// compiler (TypeScript 5.0), its own @types/node (18) and its own options: no strict mode, so no
// strictNullChecks, where some narrowing the project's strict build relies on does not happen.
// An error there stops the notebook's first cell with an empty message; this finds it first.
test("lib/ type-checks as tslab compiles it for a notebook on the sources (its TypeScript, @types/node and options)", () => {
  const tmp = mkdtempSync(path.join(os.tmpdir(), "gbr-tslab-check-"));
  try {
    const config = {
      // The options tslab's converter passes (node_modules/tslab/dist/converter.js) for Node 20.
      compilerOptions: {
        target: "ES2022",
        lib: ["es2022"],
        module: "ESNext",
        moduleResolution: "node10",
        esModuleInterop: true,
        resolveJsonModule: true,
        experimentalDecorators: true,
        skipLibCheck: true,
        noEmit: true,
        typeRoots: [path.join(REPO, "node_modules", "tslab", "node_modules", "@types")],
        types: ["node"],
      },
      files: [path.join(REPO, "lib", "index.ts")],
    };
    writeFileSync(path.join(tmp, "tsconfig.json"), JSON.stringify(config));
    const tsc = path.join(REPO, "node_modules", "@tslab", "typescript-for-tslab", "bin", "tsc");
    const r = spawnSync(process.execPath, [tsc, "-p", path.join(tmp, "tsconfig.json")], { encoding: "utf8" });
    assert.equal(r.status, 0, `tslab's compiler rejects lib/:\n${r.stdout}${r.stderr}`);
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
});
