#!/usr/bin/env node
/**
 * Compiles lib/ to build/lib (JavaScript and .d.ts) for the notebooks, then records a hash of
 * every source file in build/lib/BUILD.json. The notebooks import lib/ through notebooks/lib,
 * a link to build/lib: tslab type-checks and emits every TypeScript file a cell imports, which
 * for lib/ took about 3.5 s of a notebook's first import; against declarations it takes 0.3 s.
 * lib/paths.ts compares the hashes with the sources when it runs from the build, so a notebook
 * never runs a build older than lib/ without saying so.
 *
 * Usage: node scripts/build-lib.js [--quiet] [--force]   (npm run build; npm ci runs it through `prepare`)
 */
"use strict";
const { spawnSync } = require("node:child_process");
const { createHash } = require("node:crypto");
const fs = require("node:fs");
const path = require("node:path");

const ROOT = path.resolve(__dirname, "..");
const LIB = path.join(ROOT, "lib");
const OUT = path.join(ROOT, "build", "lib");
const quiet = process.argv.includes("--quiet");

function sources(dir, rel = "") {
  return fs
    .readdirSync(dir, { withFileTypes: true })
    .sort((a, b) => (a.name < b.name ? -1 : 1))
    .flatMap((e) => {
      const r = rel ? `${rel}/${e.name}` : e.name;
      if (e.isDirectory()) return sources(path.join(dir, e.name), r);
      return e.name.endsWith(".ts") ? [r] : [];
    });
}

const hashOf = (f) => createHash("sha256").update(fs.readFileSync(path.join(LIB, f))).digest("hex").slice(0, 16);

// A build that matches every source is left as it is (`--force` compiles anyway): npm runs this on every `npm ci`,
// `npm test` and `npx gbr` (npx installs the checkout into its cache through `prepare`), each time 10 s or more.
function isCurrent(files) {
  let recorded;
  try {
    recorded = JSON.parse(fs.readFileSync(path.join(OUT, "BUILD.json"), "utf8")).sources;
  } catch {
    return false;
  }
  if (!recorded || Object.keys(recorded).length !== files.length) return false;
  return files.every((f) => recorded[f] === hashOf(f) && fs.existsSync(path.join(OUT, f.replace(/\.ts$/, ".js"))));
}
if (!process.argv.includes("--force") && isCurrent(sources(LIB))) {
  if (!quiet) console.log("build/lib: current with lib/ (--force compiles it again)");
  process.exit(0);
}

const started = Date.now();
const tsc = require.resolve("typescript/bin/tsc", { paths: [ROOT] });
const r = spawnSync(process.execPath, [tsc, "-p", path.join(ROOT, "tsconfig.build.json")], { cwd: ROOT, stdio: "inherit" });
if (r.status !== 0) {
  console.error(`error: compiling lib/ to build/lib failed (tsc exit ${r.status ?? r.signal}); the notebooks need it`);
  process.exit(1);
}

// tsc never deletes what it wrote for a source that is gone; a notebook could still import it.
const files = sources(LIB);
const keep = new Set(files.flatMap((f) => [f.replace(/\.ts$/, ".js"), f.replace(/\.ts$/, ".d.ts")]));
keep.add("BUILD.json");
(function prune(dir, rel = "") {
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const r = rel ? `${rel}/${e.name}` : e.name;
    if (e.isDirectory()) prune(path.join(dir, e.name), r);
    else if (!keep.has(r)) fs.rmSync(path.join(dir, e.name));
  }
})(OUT);

// Left by builds that imported package.json (tsc copied it): a second package.json inside the package.
fs.rmSync(path.join(ROOT, "build", "package.json"), { force: true });

const hashes = Object.fromEntries(files.map((f) => [f, hashOf(f)]));
fs.writeFileSync(path.join(OUT, "BUILD.json"), JSON.stringify({ sources: hashes }, null, 1) + "\n");
if (!quiet) console.log(`build/lib: ${files.length} modules of lib/ compiled for the notebooks in ${((Date.now() - started) / 1000).toFixed(1)} s`);
