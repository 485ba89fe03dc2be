/**
 * The house keeps its size (issue 30, docs/architecture.md "Size"): lib/ at most 22,000 lines, no module over 600 and
 * no folder over 3,000, counted as `wc -l` counts them. A feature makes room by removing what it replaces; a room that
 * outgrows its limit is split by what it holds, not squeezed.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { REPO } from "../../helpers/shared";

const MAX_TOTAL_LINES = 22_000;
const MAX_FILE_LINES = 600;
const MAX_FOLDER_LINES = 3000;
const LIB = path.join(REPO, "lib");

/** Lines of each .ts file under `dir`, by path relative to lib/. */
function lineCounts(dir: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const name of readdirSync(dir)) {
    const p = path.join(dir, name);
    if (statSync(p).isDirectory()) for (const [f, n] of lineCounts(p)) out.set(f, n);
    else if (name.endsWith(".ts")) out.set(path.relative(LIB, p), (readFileSync(p, "utf8").match(/\n/g) ?? []).length);
  }
  return out;
}

const counts = lineCounts(LIB);

test(`no module of lib/ is over ${MAX_FILE_LINES} lines`, () => {
  assert.ok(counts.size > 100, `the scan reads lib/ (${counts.size} files)`);
  const over = [...counts].filter(([, n]) => n > MAX_FILE_LINES).map(([f, n]) => `${f} (${n})`);
  assert.deepEqual(over, [], `split these by what they hold: ${over.join(", ")}`);
});

test(`no folder of lib/ is over ${MAX_FOLDER_LINES} lines`, () => {
  const folders = new Map<string, number>();
  for (const [f, n] of counts) {
    const top = f.includes(path.sep) ? f.split(path.sep)[0] : "(root files)";
    folders.set(top, (folders.get(top) ?? 0) + n);
  }
  assert.ok(folders.size > 10, `the scan sees lib/'s folders (${[...folders.keys()].join(", ")})`);
  const over = [...folders].filter(([, n]) => n > MAX_FOLDER_LINES).map(([f, n]) => `${f} (${n})`);
  assert.deepEqual(over, [], `give these a second room: ${over.join(", ")}`);
});

test(`lib/ is at most ${MAX_TOTAL_LINES.toLocaleString("en-US")} lines`, () => {
  const total = [...counts.values()].reduce((a, b) => a + b, 0);
  assert.ok(total <= MAX_TOTAL_LINES, `lib/ is ${total} lines: make room by removing what a feature replaces`);
});
