/**
 * DESIGN.md §3: text/ receives downloaded tables as values and does no file or network I/O, so
 * it imports neither node's fs/http/https/net nor data/, paths.ts or util/download.ts.
 */
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { test } from "node:test";

const TEXT_DIR = path.join(__dirname, "..", "..", "..", "lib", "text");
const FORBIDDEN = [
  /^(node:)?(fs|fs\/promises|http|https|http2|net|dgram|child_process)$/,
  /^\.\.\/data(\/|$)/,
  /^\.\.\/paths$/,
  /^\.\.\/util\/download/,
];

function specifiers(source: string): string[] {
  const out: string[] = [];
  for (const m of source.matchAll(/(?:^|\n)\s*(?:import|export)\b[^;]*?\bfrom\s*["']([^"']+)["']/g)) out.push(m[1]);
  for (const m of source.matchAll(/(?:^|\n)\s*import\s*["']([^"']+)["']/g)) out.push(m[1]);
  for (const m of source.matchAll(/\b(?:require|import)\s*\(\s*["']([^"']+)["']\s*\)/g)) out.push(m[1]);
  return out;
}

test("no module of lib/text imports file, network or data modules", () => {
  const files = readdirSync(TEXT_DIR).filter((f) => f.endsWith(".ts"));
  assert.ok(files.length > 0);
  const offending: string[] = [];
  for (const f of files) {
    for (const spec of specifiers(readFileSync(path.join(TEXT_DIR, f), "utf8"))) {
      if (FORBIDDEN.some((re) => re.test(spec))) offending.push(`${f}: ${spec}`);
    }
  }
  assert.deepEqual(offending, []);
});

test("the scan sees the import forms it is meant to catch", () => {
  const src = 'import { promises as fs } from "node:fs";\nimport type { X } from "../data/hub";\nconst d = require("../util/download");\n';
  assert.deepEqual(specifiers(src), ["node:fs", "../data/hub", "../util/download"]);
});
