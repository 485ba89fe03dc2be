/**
 * Prompt sets for the LLM methods (reformulation, translation, REACT-BM25).
 *
 * Two sets share one shape, so every method can run with either:
 * - "project": texts written for this project, shipped as UTF-8 files in `lib/llm/prompts/project/`
 *   (one file per prompt, named after the paper's constants);
 * - "official": the authors' own prompts, which we may not redistribute; `pullOfficialPrompts`
 *   (official-prompts.ts) fetches them from GitHub at a pinned commit into the data cache, and
 *   this module only reads that cache.
 */
import { createHash } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { dataDir, PACKAGE_ROOT } from "../paths";
import type { ParserName } from "./types";
import { GbrError, type GbrErrorOptions } from "../util/errors";

/**
 * The nine prompt constants of the paper's notebook, in the notebook's order.
 */
export const PROMPT_NAMES = [
  "SPARSE_REWRITE_PROMPT",
  "DENSE_REWRITE_PROMPT",
  "TRANSLATION_SYSTEM",
  "TRANSLATION_USER",
  "PLANNER_SYSTEM",
  "PLANNER_FIRST",
  "PLANNER_NEXT",
  "OBSERVER_SYSTEM",
  "OBSERVER_USER",
] as const;

/**
 * One of the nine prompt constants.
 */
export type PromptName = (typeof PROMPT_NAMES)[number];

/**
 * Prompts that are not among the nine constants. REWRITE_SYSTEM is the system message sent with
 * both rewrite prompts: the notebook passes it as a literal argument rather than a named constant,
 * so for the official set it is found in the rewrite call's code cell (see notebook-prompts.ts) and may be absent.
 */
export const EXTRA_PROMPT_NAMES = ["REWRITE_SYSTEM"] as const;
/**
 * A prompt beyond the nine constants.
 */
export type ExtraPromptName = (typeof EXTRA_PROMPT_NAMES)[number];

/**
 * Every placeholder any prompt may contain; `fillPrompt` substitutes exactly these (and any name it is given).
 */
export const PLACEHOLDERS = [
  "original_query",
  "round_idx",
  "max_rounds",
  "query_history",
  "kept_docs_summary",
  "retrieved_docs_block",
  "text_type",
  "item_id",
  "source_text",
] as const;
/**
 * One placeholder name, without braces.
 */
export type Placeholder = (typeof PLACEHOLDERS)[number];

/**
 * The placeholders each prompt is filled with by the methods. The project's files must contain
 * all of them (checked at load, so an edit that drops one fails loudly instead of sending a prompt
 * without the query); for the official set this is informational only.
 */
export const PROMPT_PLACEHOLDERS: Readonly<Record<PromptName, readonly Placeholder[]>> = {
  SPARSE_REWRITE_PROMPT: ["original_query"],
  DENSE_REWRITE_PROMPT: ["original_query"],
  TRANSLATION_SYSTEM: [],
  TRANSLATION_USER: ["text_type", "item_id", "source_text"],
  PLANNER_SYSTEM: [],
  PLANNER_FIRST: ["original_query"],
  PLANNER_NEXT: ["original_query", "round_idx", "max_rounds", "query_history", "kept_docs_summary"],
  OBSERVER_SYSTEM: [],
  OBSERVER_USER: ["original_query", "retrieved_docs_block"],
};

/**
 * Name of a prompt set.
 */
export type PromptSetName = "project" | "official";

/**
 * A loaded prompt set: the texts plus where they came from and their hashes, so every run can
 * record exactly which prompts produced it.
 */
export interface PromptSet {
  name: PromptSetName;
  /** The folder of the project's files, or the URL (which names the commit) of the official notebook. */
  source: string;
  /** Git commit of the official notebook; undefined for the project set. */
  commit?: string;
  /** sha256 (hex) of each prompt's UTF-8 text as returned in `texts`. */
  sha256: Record<PromptName, string>;
  texts: Record<PromptName, string>;
  /** Prompts beyond the nine constants, when the set has them (see EXTRA_PROMPT_NAMES). */
  extras: Partial<Record<ExtraPromptName, string>>;
}

/**
 * The parsers that go with a prompt set: the authors' exact ones with their prompts (what
 * `--prompts official` promises), the project's lenient ones with the project's.
 */
export function parserFor(set: Pick<PromptSet, "name">): ParserName {
  return set.name === "official" ? "official" : "project";
}

/**
 * Raised for prompt problems; `code` is stable for callers to switch on:
 * NOT_PULLED (the official set is not in the cache), MISSING_VALUE (fillPrompt lacks a value),
 * MISSING_CONSTANTS (the notebook lacks constants), INVALID (a file or notebook is damaged).
 */
export class PromptError extends GbrError {
  declare readonly code: "NOT_PULLED" | "MISSING_VALUE" | "MISSING_CONSTANTS" | "INVALID";

  constructor(message: string, code: PromptError["code"], options: GbrErrorOptions = {}) {
    // Prompts that were never pulled are a resource not here (skip), not a fault.
    super(message, code, { unavailable: code === "NOT_PULLED", ...options });
    this.name = "PromptError";
  }
}

/**
 * The folder of the project's prompt files (inside the package, so it does not depend on the cwd).
 */
export const PROJECT_PROMPTS_DIR = path.join(PACKAGE_ROOT, "lib", "llm", "prompts", "project");

/**
 * Where `pullOfficialPrompts` caches the official prompts by default: `<dataDir>/prompts/official`
 * (under data/, which git ignores: the official texts are never committed).
 */
export function officialPromptsDir(): string {
  return path.join(dataDir(), "prompts", "official");
}

/**
 * The manifest `pullOfficialPrompts` writes beside the cached prompt files.
 */
export interface OfficialManifest {
  repo: string;
  commit: string;
  /** Path of the notebook inside the repository. */
  path: string;
  /** The URL actually downloaded. */
  url: string;
  notebookSha256: string;
  pulledAt: string;
  prompts: Record<PromptName, { file: string; sha256: string; chars: number }>;
  extras: Partial<Record<ExtraPromptName, { file: string; sha256: string; chars: number; foundBy: string }>>;
}

/**
 * File name of the manifest inside the official cache folder.
 */
export const OFFICIAL_MANIFEST = "manifest.json";

/**
 * sha256 (hex) of a string's UTF-8 bytes.
 */
export function sha256Text(text: string): string {
  return createHash("sha256").update(text, "utf8").digest("hex");
}

/** Strict UTF-8: a mis-encoded prompt file must fail, not send U+FFFD to the model. */
const UTF8 = new TextDecoder("utf-8", { fatal: true });

function readUtf8(file: string): string {
  try {
    return UTF8.decode(readFileSync(file));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") throw err;
    throw new PromptError(`${file}: not valid UTF-8 (${(err as Error).message})`, "INVALID");
  }
}

/**
 * A project prompt file as the model should see it: CRLF made LF (an editor on Windows must not
 * change the hash) and the one final newline editors add dropped (the official constants end
 * without one, and a trailing newline after `{original_query}` is noise).
 */
function normalizeFileText(text: string): string {
  return text.replace(/\r\n?/g, "\n").replace(/\n$/, "");
}

/**
 * Loads a prompt set: "project" (default) from the package's own files, "official" from the
 * cache written by `pullOfficialPrompts` (run `gbr prompts pull` first), its files verified
 * against the manifest's sha256.
 */
export function loadPromptSet(
  name: PromptSetName = "project",
  opts: { dir?: string; cacheDir?: string } = {},
): PromptSet {
  if (name === "project") return loadProjectSet(opts.dir ?? PROJECT_PROMPTS_DIR);
  if (name === "official") return loadOfficialSet(opts.cacheDir ?? officialPromptsDir());
  throw new PromptError(`unknown prompt set '${String(name)}' (expected "project" or "official")`, "INVALID");
}

function loadProjectSet(dir: string): PromptSet {
  const texts = {} as Record<PromptName, string>;
  const sha256 = {} as Record<PromptName, string>;
  const missing: string[] = [];
  for (const p of PROMPT_NAMES) {
    const file = path.join(dir, `${p}.txt`);
    if (!existsSync(file)) {
      missing.push(`${p}.txt`);
      continue;
    }
    const text = normalizeFileText(readUtf8(file));
    const absent = PROMPT_PLACEHOLDERS[p].filter((ph) => !text.includes(`{${ph}}`));
    if (absent.length > 0) {
      throw new PromptError(`${file}: lacks placeholder(s) ${absent.map((a) => `{${a}}`).join(", ")}`, "INVALID");
    }
    texts[p] = text;
    sha256[p] = sha256Text(text);
  }
  if (missing.length > 0) throw new PromptError(`${dir}: missing prompt file(s) ${missing.join(", ")}`, "INVALID");
  const extras: PromptSet["extras"] = {};
  for (const e of EXTRA_PROMPT_NAMES) {
    const file = path.join(dir, `${e}.txt`);
    if (existsSync(file)) extras[e] = normalizeFileText(readUtf8(file));
  }
  return { name: "project", source: dir, sha256, texts, extras };
}

function loadOfficialSet(dir: string): PromptSet {
  const manifestFile = path.join(dir, OFFICIAL_MANIFEST);
  const notPulled =
    `the official prompts are not in the cache (${manifestFile} is missing); ` +
    "run `gbr prompts pull` to fetch them from github.com/nlpaueb/greek-bar-bench, or use the project prompts";
  if (!existsSync(manifestFile)) throw new PromptError(notPulled, "NOT_PULLED");
  let manifest: OfficialManifest;
  try {
    manifest = JSON.parse(readUtf8(manifestFile)) as OfficialManifest;
  } catch (err) {
    throw new PromptError(`${manifestFile}: unreadable (${(err as Error).message}); run \`gbr prompts pull\` again`, "INVALID");
  }
  const texts = {} as Record<PromptName, string>;
  const sha256 = {} as Record<PromptName, string>;
  const read = (entry: { file: string; sha256: string } | undefined, label: string): string => {
    if (!entry) throw new PromptError(`${manifestFile}: no entry for ${label}; run \`gbr prompts pull\` again`, "INVALID");
    const file = path.join(dir, entry.file);
    if (!existsSync(file)) throw new PromptError(`${file} is missing; run \`gbr prompts pull\` again`, "NOT_PULLED");
    // No normalisation here: the cache holds the constants byte for byte.
    const text = readUtf8(file);
    if (sha256Text(text) !== entry.sha256) {
      throw new PromptError(`${file}: sha256 differs from the manifest (edited or damaged); run \`gbr prompts pull\` again`, "INVALID");
    }
    return text;
  };
  for (const p of PROMPT_NAMES) {
    texts[p] = read(manifest.prompts?.[p], p);
    sha256[p] = manifest.prompts[p].sha256;
  }
  const extras: PromptSet["extras"] = {};
  for (const e of EXTRA_PROMPT_NAMES) {
    const entry = manifest.extras?.[e];
    if (entry) extras[e] = read(entry, e);
  }
  return { name: "official", source: manifest.url, commit: manifest.commit, sha256, texts, extras };
}

/**
 * Values for `fillPrompt`: the known placeholders, plus any other names a caller wants substituted.
 */
export type PromptValues = Partial<Record<Placeholder, string | number>> & Record<string, string | number | undefined>;

/**
 * Substitutes `{name}` placeholders in one pass. A `{name}` is a placeholder when `name` is one of
 * PLACEHOLDERS or a key of `values`; every other brace (JSON in a prompt, `{}` in a legal text) is
 * left alone, and substituted values are never scanned again (a query that happens to contain
 * "{original_query}" stays as it is). A placeholder present in the template without a value is an
 * error naming it, because a prompt sent with a literal "{source_text}" fails silently. Values for
 * placeholders the template lacks are ignored, as Python's str.format ignores extra keywords.
 * Unlike str.format, "{{" and "}}" are not collapsed (none of the official constants use them).
 */
export function fillPrompt(template: string, values: PromptValues): string {
  const known = new Set<string>(PLACEHOLDERS);
  for (const k of Object.keys(values)) known.add(k);
  const missing = new Set<string>();
  const out = template.replace(/\{([A-Za-z_][A-Za-z0-9_]*)\}/g, (whole, name: string) => {
    if (!known.has(name)) return whole;
    const v = Object.prototype.hasOwnProperty.call(values, name) ? values[name] : undefined;
    if (v === undefined || v === null) {
      missing.add(name);
      return whole;
    }
    return String(v);
  });
  if (missing.size > 0) {
    const list = [...missing].map((m) => `{${m}}`).join(", ");
    throw new PromptError(`fillPrompt: no value for placeholder${missing.size > 1 ? "s" : ""} ${list}`, "MISSING_VALUE");
  }
  return out;
}
