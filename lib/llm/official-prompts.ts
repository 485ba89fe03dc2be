/**
 * Fetches the paper's official prompts at run time, for exact reproduction.
 *
 * The authors publish their prompts only as Python string constants inside a Jupyter notebook
 * (github.com/nlpaueb/greek-bar-bench, quickstart/greekbarretrieval_paper_experiments.ipynb).
 * We may not copy them into this repository, so `pullOfficialPrompts` downloads the notebook at a
 * pinned commit, reads the constants out of its code cells with a small Python string-literal
 * parser (no Python, no eval), and caches them under data/ (git-ignored) with a manifest of
 * hashes. `loadPromptSet("official")` (prompts.ts) reads that cache.
 */
import { promises as fs } from "node:fs";
import path from "node:path";
import { downloadFile, type DownloadOptions } from "../data/download";
import {
  EXTRA_PROMPT_NAMES,
  OFFICIAL_MANIFEST,
  PROMPT_NAMES,
  PromptError,
  officialPromptsDir,
  sha256Text,
  type ExtraPromptName,
  type OfficialManifest,
  type PromptName,
} from "./prompts";

/**
 * The repository that publishes the official prompts.
 *
 * @example
 * `https://github.com/${OFFICIAL_REPO}/blob/${OFFICIAL_COMMIT}/${OFFICIAL_NOTEBOOK_PATH}`;
 */
export const OFFICIAL_REPO = "nlpaueb/greek-bar-bench";
/**
 * The commit the paper's prompts are pinned to (DESIGN.md §6).
 *
 * @example
 * await pullOfficialPrompts({ commit: OFFICIAL_COMMIT }); // the default anyway
 */
export const OFFICIAL_COMMIT = "992f5224a6cb75d12d956994a820a9b83e18c0f5";
/**
 * The notebook holding the constants, inside the repository.
 *
 * @example
 * `${DEFAULT_GITHUB_RAW_URL}/${OFFICIAL_REPO}/${OFFICIAL_COMMIT}/${OFFICIAL_NOTEBOOK_PATH}`; // what is downloaded
 */
export const OFFICIAL_NOTEBOOK_PATH = "quickstart/greekbarretrieval_paper_experiments.ipynb";
/**
 * Where GitHub serves raw files; `GBR_GITHUB_RAW_URL` overrides it (tests point it at a local double).
 *
 * @example
 * process.env.GBR_GITHUB_RAW_URL ?? DEFAULT_GITHUB_RAW_URL;
 */
export const DEFAULT_GITHUB_RAW_URL = "https://raw.githubusercontent.com";

// ---------------------------------------------------------------------------------------------
// Python string literals
// ---------------------------------------------------------------------------------------------

/**
 * A Python source construct we cannot (or will not) turn into a string: an f-string, a bytes
 * literal, a `\N{…}` escape, an unterminated literal. `pos` is the offset in the source.
 *
 * @example
 * try { parsePythonStringLiteral('f"{x}"', 0); } catch (e) { (e as PythonLiteralError).pos; } // 0
 */
export class PythonLiteralError extends Error {
  constructor(
    message: string,
    readonly pos: number,
  ) {
    super(message);
    this.name = "PythonLiteralError";
  }
}

/** A literal's prefix and opening quote, anchored at one offset. */
const LITERAL_START = /([A-Za-z]{0,2})("""|'''|"|')/y;

/** Does a string literal (with an optional prefix such as r, u, b, f) start at `pos`? */
function literalStartsAt(src: string, pos: number): boolean {
  LITERAL_START.lastIndex = pos;
  const m = LITERAL_START.exec(src);
  return m !== null && /^(|[rRuUbBfF]|[rR][bBfF]|[bBfF][rR])$/.test(m[1]);
}

const SIMPLE_ESCAPES: Record<string, string> = {
  "\\": "\\",
  "'": "'",
  '"': '"',
  a: "\x07",
  b: "\b",
  f: "\f",
  n: "\n",
  r: "\r",
  t: "\t",
  v: "\v",
};

/**
 * Parses one Python string literal starting at `pos` (its prefix included) and returns its value
 * and the offset just past its closing quote. Handles '…', "…", '''…''', """…""", the r/R and u/U
 * prefixes, and every escape Python 3 decodes in a str literal: \\ \' \" \a \b \f \n \r \t \v,
 * octal \ooo, \xhh, \uXXXX, \UXXXXXXXX, backslash-newline (a continuation, removed); an unknown
 * escape such as \d keeps its backslash, as Python does. Raw strings keep every backslash (but a
 * backslash still stops the next quote from closing the literal). f-strings and bytes cannot be
 * turned into a str without running Python, and \N{NAME} needs the Unicode name table: all three
 * raise PythonLiteralError rather than yield a wrong text.
 *
 * @example
 * parsePythonStringLiteral(String.raw`x = r"a\nb" + 'c\tc'`, 4); // { value: "a\\nb", end: 11 }
 * parsePythonStringLiteral(`"""Γεια\\u03c3ου\n"""`, 0).value;    // "Γειασου\n"
 */
export function parsePythonStringLiteral(src: string, pos: number): { value: string; end: number } {
  LITERAL_START.lastIndex = pos;
  const m = LITERAL_START.exec(src);
  if (!m) throw new PythonLiteralError("expected a string literal", pos);
  const prefix = m[1].toLowerCase();
  if (!["", "r", "u"].includes(prefix)) {
    const what = prefix.includes("b") ? "a bytes literal" : prefix.includes("f") ? "an f-string" : `prefix '${m[1]}'`;
    throw new PythonLiteralError(`${what} cannot be read without running Python`, pos);
  }
  const raw = prefix === "r";
  const quote = m[2];
  const triple = quote.length === 3;
  let i = pos + m[0].length;
  let out = "";
  for (;;) {
    if (i >= src.length) throw new PythonLiteralError(`unterminated string literal (opened with ${quote})`, pos);
    if (src.startsWith(quote, i)) return { value: out, end: i + quote.length };
    const ch = src[i];
    if (ch === "\n" && !triple) throw new PythonLiteralError("line break inside a single-quoted string literal", i);
    if (ch !== "\\") {
      out += ch;
      i++;
      continue;
    }
    const next = src[i + 1];
    if (next === undefined) throw new PythonLiteralError("unterminated string literal (ends with a backslash)", pos);
    if (raw) {
      // In a raw literal the backslash stays and protects the next character (even a quote).
      out += ch + next;
      i += 2;
      continue;
    }
    if (next === "\n") {
      i += 2; // backslash-newline: the line continues, neither character is part of the value
      continue;
    }
    if (SIMPLE_ESCAPES[next] !== undefined) {
      out += SIMPLE_ESCAPES[next];
      i += 2;
      continue;
    }
    if (next >= "0" && next <= "7") {
      const oct = /^[0-7]{1,3}/.exec(src.slice(i + 1, i + 4))![0];
      out += String.fromCodePoint(parseInt(oct, 8));
      i += 1 + oct.length;
      continue;
    }
    if (next === "x" || next === "u" || next === "U") {
      const width = next === "x" ? 2 : next === "u" ? 4 : 8;
      const hex = src.slice(i + 2, i + 2 + width);
      if (!new RegExp(`^[0-9A-Fa-f]{${width}}$`).test(hex)) {
        throw new PythonLiteralError(`truncated \\${next} escape (needs ${width} hex digits)`, i);
      }
      const cp = parseInt(hex, 16);
      if (cp > 0x10ffff) throw new PythonLiteralError(`\\U${hex} is beyond U+10FFFF`, i);
      out += String.fromCodePoint(cp);
      i += 2 + width;
      continue;
    }
    if (next === "N") throw new PythonLiteralError("\\N{…} escapes are not supported", i);
    out += ch + next; // unknown escape: Python keeps the backslash
    i += 2;
  }
}

/** Offset just past a string literal whose opening quote is at `pos`, without decoding it. */
function skipStringLiteral(src: string, pos: number): number {
  const q = src.startsWith('"""', pos) ? '"""' : src.startsWith("'''", pos) ? "'''" : src[pos];
  let i = pos + q.length;
  while (i < src.length) {
    if (src[i] === "\\") {
      i += 2;
      continue;
    }
    if (src.startsWith(q, i)) return i + q.length;
    // An unterminated one-line literal ends at the line break (Python would reject the cell;
    // scanning on keeps one bad line from hiding the rest of the cell).
    if (src[i] === "\n" && q.length === 1) return i;
    i++;
  }
  return src.length;
}

/**
 * The right-hand side of an assignment, if it is a plain string: one literal, or adjacent
 * literals concatenated implicitly (inside parentheses across lines, or on one line / joined by
 * backslash continuations). Anything else (a call, `+`, `.strip()` after the literal) is an error,
 * because its value depends on running Python.
 */
function parseStringExpression(src: string, pos: number): { value: string; end: number } {
  let i = pos;
  while (src[i] === " " || src[i] === "\t") i++;
  const paren = src[i] === "(";
  if (paren) i++;
  const parts: string[] = [];
  for (;;) {
    // Skip what may separate adjacent literals: inside parentheses any whitespace and comments;
    // outside, spaces and backslash continuations only (a bare newline ends the statement).
    for (;;) {
      if (src[i] === " " || src[i] === "\t" || src[i] === "\f") i++;
      else if (src[i] === "\\" && src[i + 1] === "\n") i += 2;
      else if (paren && (src[i] === "\n" || src[i] === "\r")) i++;
      else if (paren && src[i] === "#") while (i < src.length && src[i] !== "\n") i++;
      else break;
    }
    if (paren && src[i] === ")") {
      i++;
      break;
    }
    if (literalStartsAt(src, i)) {
      const lit = parsePythonStringLiteral(src, i);
      parts.push(lit.value);
      i = lit.end;
      continue;
    }
    if (paren) throw new PythonLiteralError(`unexpected ${describeAt(src, i)} inside the parentheses`, i);
    break;
  }
  if (parts.length === 0) throw new PythonLiteralError(`the value is ${describeAt(src, pos)}, not a string literal`, pos);
  let j = i;
  while (src[j] === " " || src[j] === "\t") j++;
  if (j < src.length && src[j] !== "\n" && src[j] !== "#" && src[j] !== ";") {
    throw new PythonLiteralError(`the string literal is followed by ${describeAt(src, j)}; only plain literals can be read`, j);
  }
  return { value: parts.join(""), end: i };
}

function describeAt(src: string, pos: number): string {
  if (pos >= src.length) return "the end of the cell";
  const line = src.slice(pos, src.indexOf("\n", pos) === -1 ? undefined : src.indexOf("\n", pos)).trim();
  return `'${line.length > 40 ? line.slice(0, 40) + "…" : line}'`;
}

/**
 * What `extractStringConstants` found for one name.
 *
 * @example
 * const r: ConstantResult = extractStringConstants('A = "x"', ["A"]).get("A")!;
 * if (r.ok) r.value; else r.error;
 */
export type ConstantResult =
  | { ok: true; value: string; offset: number }
  | { ok: false; error: string; offset: number };

/** `NAME =` (or `NAME: type =`) at the start of a logical line; `==` is a comparison, not an assignment. */
const ASSIGNMENT = /[ \t]*([A-Za-z_][A-Za-z0-9_]*)[ \t]*(?::[^=\n]*)?=(?!=)/y;
/** A line of IPython syntax (`%magic`, `!shell`), which never starts a Python statement. */
const IPYTHON_LINE = /[ \t]*[%!]/y;
/** `NAME += …` and friends: the value then depends on code we do not run. */
const AUGMENTED = /[ \t]*([A-Za-z_][A-Za-z0-9_]*)[ \t]*(?:\+|-|\*\*?|\/\/?|%|@|&|\||\^|<<|>>)=/y;

/**
 * Finds assignments of string constants in Python source: `NAME = <literal>` at the start of a
 * logical line (any indentation), where <literal> is what `parseStringExpression` accepts.
 * Strings, comments and bracketed continuations are skipped properly, so a `NAME =` inside a
 * string or an argument list is not mistaken for one. When a name is assigned several times the
 * last assignment wins (as when the cell runs); one that is not a plain literal, or that is later
 * changed with `+=`, gives an error result instead of a wrong value.
 *
 * @example
 * extractStringConstants('A = ("x"\n     "y")  # two parts\nB = f"{A}"', ["A", "B"]);
 * // Map { "A" => { ok: true, value: "xy", … }, "B" => { ok: false, error: "an f-string cannot …", … } }
 */
export function extractStringConstants(source: string, names: Iterable<string>): Map<string, ConstantResult> {
  const wanted = new Set(names);
  const found = new Map<string, ConstantResult>();
  const src = source.replace(/\r\n?/g, "\n"); // Python reads source with universal newlines
  let i = 0;
  let depth = 0;
  let lineStart = true;
  while (i < src.length) {
    if (lineStart && depth === 0) {
      lineStart = false;
      IPYTHON_LINE.lastIndex = i;
      if (IPYTHON_LINE.test(src)) {
        // `%pip …`, `!ls …`: IPython syntax, not Python; a stray quote in it must not open a string.
        while (i < src.length && src[i] !== "\n") i++;
        continue;
      }
      AUGMENTED.lastIndex = i;
      const aug = AUGMENTED.exec(src);
      if (aug && wanted.has(aug[1])) {
        found.set(aug[1], { ok: false, error: "changed by an augmented assignment (+= …)", offset: i });
      } else {
        ASSIGNMENT.lastIndex = i;
        const m = ASSIGNMENT.exec(src);
        if (m && wanted.has(m[1])) {
          const rhs = ASSIGNMENT.lastIndex;
          try {
            const { value, end } = parseStringExpression(src, rhs);
            found.set(m[1], { ok: true, value, offset: i });
            i = end;
            continue;
          } catch (err) {
            found.set(m[1], { ok: false, error: (err as Error).message, offset: i });
            i = rhs; // scan the value as ordinary code
            continue;
          }
        }
      }
    }
    const c = src[i];
    if (c === "#") {
      while (i < src.length && src[i] !== "\n") i++;
    } else if (c === '"' || c === "'") {
      i = skipStringLiteral(src, i);
    } else if (c === "\\" && src[i + 1] === "\n") {
      i += 2; // explicit continuation: still the same logical line
    } else {
      if (c === "(" || c === "[" || c === "{") depth++;
      else if (c === ")" || c === "]" || c === "}") depth = Math.max(0, depth - 1);
      else if (c === "\n" && depth === 0) lineStart = true;
      i++;
    }
  }
  return found;
}

// ---------------------------------------------------------------------------------------------
// Notebooks
// ---------------------------------------------------------------------------------------------

/**
 * The code cells of a Jupyter notebook (nbformat 4) as Python source. Cells under a `%%` cell
 * magic are skipped (their body is not Python); `%`/`!` lines are left in place for
 * `extractStringConstants`, which skips them only where a statement starts (blanking them here
 * would also hit a prompt line that happens to start with "!" inside a triple-quoted string).
 *
 * @example
 * notebookCodeCells('{"nbformat": 4, "cells": [{"cell_type": "code", "source": ["X = 1\\n"]}]}'); // ["X = 1\n"]
 */
export function notebookCodeCells(notebookJson: string): string[] {
  let nb: unknown;
  try {
    nb = JSON.parse(notebookJson);
  } catch (err) {
    throw new PromptError(`the notebook is not valid JSON (${(err as Error).message})`, "INVALID");
  }
  const cells = (nb as { cells?: unknown }).cells;
  if (!Array.isArray(cells)) throw new PromptError("the notebook has no 'cells' list (nbformat 4 expected)", "INVALID");
  const out: string[] = [];
  for (const cell of cells as { cell_type?: unknown; source?: unknown }[]) {
    if (cell?.cell_type !== "code") continue;
    const src = Array.isArray(cell.source) ? cell.source.join("") : typeof cell.source === "string" ? cell.source : "";
    if (/^\s*%%/.test(src)) continue;
    out.push(src);
  }
  return out;
}

/**
 * What the notebook yielded: the nine constants, any extras found, and how each extra was found.
 *
 * @example
 * const { texts, extras }: NotebookPrompts = extractPromptsFromNotebook(json);
 * extras.REWRITE_SYSTEM?.foundBy;
 */
export interface NotebookPrompts {
  texts: Record<PromptName, string>;
  extras: Partial<Record<ExtraPromptName, { text: string; foundBy: string }>>;
}

/**
 * Reads the nine prompt constants (and, best-effort, the rewrite system message) out of the
 * notebook's code cells. Constants missing or not readable as plain literals raise one
 * PromptError (MISSING_CONSTANTS) listing every one of them with the reason.
 *
 * @example
 * const { texts } = extractPromptsFromNotebook(await fs.readFile("nb.ipynb", "utf8"));
 * texts.PLANNER_NEXT.includes("{round_idx}"); // true
 */
export function extractPromptsFromNotebook(notebookJson: string): NotebookPrompts {
  const cells = notebookCodeCells(notebookJson);
  const results = new Map<string, ConstantResult & { cell: number }>();
  cells.forEach((src, cell) => {
    for (const [name, r] of extractStringConstants(src, PROMPT_NAMES)) results.set(name, { ...r, cell });
  });
  const problems: string[] = [];
  const texts = {} as Record<PromptName, string>;
  for (const name of PROMPT_NAMES) {
    const r = results.get(name);
    if (!r) problems.push(`${name} (not assigned in any code cell)`);
    else if (!r.ok) problems.push(`${name} (code cell ${r.cell + 1}: ${r.error})`);
    else texts[name] = r.value;
  }
  if (problems.length > 0) {
    throw new PromptError(
      `the notebook lacks ${problems.length} of the ${PROMPT_NAMES.length} prompt constants: ${problems.join("; ")}`,
      "MISSING_CONSTANTS",
    );
  }
  const extras: NotebookPrompts["extras"] = {};
  const rewriteSystem = findRewriteSystem(cells);
  if (rewriteSystem) extras.REWRITE_SYSTEM = rewriteSystem;
  return { texts, extras };
}

/**
 * The notebook sends the rewrite prompts as the user message with a system message written
 * inline as the first argument of the chat call (not one of the named constants). Look for it
 * where the rewrite prompts are used (a cell that mentions SPARSE_REWRITE_PROMPT without defining
 * it): the first call whose first argument is a string literal and whose line goes on to fill
 * `original_query`. Best-effort by design: when absent, reformulation uses the project's own
 * system message and says so.
 */
function findRewriteSystem(cells: string[]): { text: string; foundBy: string } | undefined {
  for (let c = 0; c < cells.length; c++) {
    const src = cells[c].replace(/\r\n?/g, "\n");
    if (!/\bSPARSE_REWRITE_PROMPT\b/.test(src) || extractStringConstants(src, ["SPARSE_REWRITE_PROMPT"]).size > 0) continue;
    const call = /\b[A-Za-z_]\w*\(\s*/g;
    let m: RegExpExecArray | null;
    while ((m = call.exec(src)) !== null) {
      const at = m.index + m[0].length;
      if (!literalStartsAt(src, at)) continue;
      try {
        const lit = parsePythonStringLiteral(src, at);
        const rest = src.slice(lit.end, src.indexOf("\n", lit.end) === -1 ? undefined : src.indexOf("\n", lit.end));
        if (/original_query/.test(rest)) {
          return { text: lit.value, foundBy: `first string argument of the chat call that fills original_query (code cell ${c + 1})` };
        }
      } catch {
        // not a readable literal: keep looking
      }
    }
  }
  return undefined;
}

// ---------------------------------------------------------------------------------------------
// Pull into the cache
// ---------------------------------------------------------------------------------------------

/**
 * Options of `pullOfficialPrompts`.
 *
 * @example
 * const opts: PullOfficialOptions = { baseUrl: "http://127.0.0.1:8080", cacheDir: "/tmp/p", download: { attempts: 2 } };
 */
export interface PullOfficialOptions {
  /** Raw-file host (default GBR_GITHUB_RAW_URL, else https://raw.githubusercontent.com). */
  baseUrl?: string;
  /** Commit of nlpaueb/greek-bar-bench (default the pinned OFFICIAL_COMMIT). */
  commit?: string;
  /** Cache folder (default `<dataDir>/prompts/official`). */
  cacheDir?: string;
  /** Retry/timeout settings passed to downloadFile (tests shorten the backoff). */
  download?: DownloadOptions;
  log?: (msg: string) => void;
}

/**
 * What `pullOfficialPrompts` cached.
 *
 * @example
 * const { cacheDir, manifest, texts }: PullOfficialResult = await pullOfficialPrompts();
 */
export interface PullOfficialResult {
  cacheDir: string;
  manifest: OfficialManifest;
  texts: Record<PromptName, string>;
}

async function writeAtomic(file: string, text: string): Promise<void> {
  const tmp = `${file}.tmp-${process.pid}`;
  await fs.writeFile(tmp, text, "utf8");
  await fs.rename(tmp, file);
}

/**
 * Downloads the official notebook at a pinned commit, extracts the nine prompt constants and
 * caches them: `<cacheDir>/<NAME>.txt` (the exact text), the notebook itself, and
 * `manifest.json` (repo, commit, URL, sha256 of the notebook and of every prompt). The old cache
 * stays intact until the new notebook has been read successfully, and the manifest is written
 * last, so an interrupted pull never leaves a set that loads half-new.
 *
 * @example
 * const { manifest } = await pullOfficialPrompts({ log: console.error });
 * manifest.prompts.OBSERVER_USER.sha256;
 * loadPromptSet("official").texts.OBSERVER_USER;
 */
export async function pullOfficialPrompts(opts: PullOfficialOptions = {}): Promise<PullOfficialResult> {
  const log = opts.log ?? (() => {});
  const base = (opts.baseUrl ?? process.env.GBR_GITHUB_RAW_URL ?? DEFAULT_GITHUB_RAW_URL).replace(/\/+$/, "");
  const commit = opts.commit ?? OFFICIAL_COMMIT;
  if (!/^[0-9A-Za-z._\/-]+$/.test(commit) || commit.includes("..")) {
    throw new PromptError(`not a usable commit or ref: '${commit}'`, "INVALID");
  }
  if (!/^[0-9a-f]{40}$/.test(commit)) log(`prompts: '${commit}' is not a commit sha; the texts it names may change over time`);
  const cacheDir = opts.cacheDir ?? officialPromptsDir();
  const url = `${base}/${OFFICIAL_REPO}/${commit}/${OFFICIAL_NOTEBOOK_PATH}`;

  await fs.mkdir(cacheDir, { recursive: true });
  const notebookFile = path.join(cacheDir, "notebook.ipynb");
  const incoming = `${notebookFile}.incoming`;
  log(`prompts: downloading ${url}`);
  const { sha256: notebookSha256 } = await downloadFile(url, incoming, opts.download);
  let extracted: NotebookPrompts;
  try {
    extracted = extractPromptsFromNotebook(await fs.readFile(incoming, "utf8"));
  } catch (err) {
    await fs.rm(incoming, { force: true });
    if (err instanceof PromptError) {
      throw new PromptError(`${url}: ${err.message}`, err.code);
    }
    throw err;
  }

  // From here on the cache changes: drop the manifest first so a crash leaves "not pulled".
  await fs.rm(path.join(cacheDir, OFFICIAL_MANIFEST), { force: true });
  await fs.rename(incoming, notebookFile);
  const prompts = {} as OfficialManifest["prompts"];
  for (const name of PROMPT_NAMES) {
    const text = extracted.texts[name];
    await writeAtomic(path.join(cacheDir, `${name}.txt`), text);
    prompts[name] = { file: `${name}.txt`, sha256: sha256Text(text), chars: text.length };
  }
  const extras: OfficialManifest["extras"] = {};
  for (const name of EXTRA_PROMPT_NAMES) {
    const file = path.join(cacheDir, `${name}.txt`);
    const found = extracted.extras[name];
    if (!found) {
      await fs.rm(file, { force: true }); // a stale extra from an older pull must not be loaded
      log(`prompts: no ${name} found in the notebook; the project's own text will be used for it`);
      continue;
    }
    await writeAtomic(file, found.text);
    extras[name] = { file: `${name}.txt`, sha256: sha256Text(found.text), chars: found.text.length, foundBy: found.foundBy };
  }
  const braces = PROMPT_NAMES.filter((n) => /\{\{|\}\}/.test(extracted.texts[n]));
  if (braces.length > 0) {
    // fillPrompt does not collapse doubled braces the way Python's str.format does.
    log(`prompts: ${braces.join(", ")} contain '{{' or '}}', which fillPrompt leaves as they are`);
  }
  const manifest: OfficialManifest = {
    repo: OFFICIAL_REPO,
    commit,
    path: OFFICIAL_NOTEBOOK_PATH,
    url,
    notebookSha256,
    pulledAt: new Date().toISOString(),
    prompts,
    extras,
  };
  await writeAtomic(path.join(cacheDir, OFFICIAL_MANIFEST), JSON.stringify(manifest, null, 2) + "\n");
  log(`prompts: cached ${PROMPT_NAMES.length} official prompts from ${OFFICIAL_REPO}@${commit.slice(0, 12)} in ${cacheDir}`);
  return { cacheDir, manifest, texts: extracted.texts };
}
