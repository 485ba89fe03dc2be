#!/usr/bin/env node
// Launcher. lib/ compiled (build/lib, made by `npm run build`, which `npm ci` runs) starts in
// about a third of the time of compiling the TypeScript sources at start, so it is used when it
// is current with lib/; otherwise (no build yet, or lib/ edited since) the sources run through
// tsx, exactly as before. Either way it is the same code. An installed package (npm install
// greekbar-retrieval) has the build alone and always runs it.
"use strict";
const fs = require("node:fs");
const path = require("node:path");

const sources = path.join(__dirname, "..", "lib", "cli", "main.ts");

function compiledEntry() {
  const built = path.join(__dirname, "..", "build", "lib");
  if (!fs.existsSync(path.join(built, "BUILD.json"))) return undefined;
  try {
    // paths.js refuses to load from a stale build (unless GBR_ALLOW_STALE_BUILD=1), and
    // staleSources says so explicitly in either case.
    const { staleSources } = require(path.join(built, "paths.js"));
    if (staleSources(path.join(built, "BUILD.json"), path.join(__dirname, "..", "lib")).length) return undefined;
    return path.join(built, "cli", "main.js");
  } catch (err) {
    // An installed package ships the build without the sources: nothing to fall back on, so its error is the one to show.
    if (!fs.existsSync(sources)) throw err;
    return undefined;
  }
}

let entry = compiledEntry();
if (!entry) {
  require("tsx/cjs");
  entry = sources;
}
const { main, processIo } = require(entry);
main(process.argv.slice(2), processIo()).then(
  (code) => {
    process.exitCode = code;
  },
  (err) => {
    process.stderr.write(`gbr: ${(err && err.stack) || err}\n`);
    process.exitCode = 1;
  },
);
