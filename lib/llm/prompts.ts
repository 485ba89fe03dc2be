/** Prompt sets: "project" (files in `lib/llm/prompts/project/`) and "official" (the authors', pulled at run time). */
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { PACKAGE_ROOT } from "../paths";
import { GbrError, parsedOr, type GbrErrorOptions } from "../util/errors";
import { digestOf } from "../util/safe-files";

/** The notebook's nine prompt constants in its order, with the placeholders each must contain (checked at load). */
export const PROMPT_PLACEHOLDERS = {
  SPARSE_REWRITE_PROMPT: ["original_query"],
  DENSE_REWRITE_PROMPT: ["original_query"],
  TRANSLATION_SYSTEM: [],
  TRANSLATION_USER: ["text_type", "item_id", "source_text"],
  PLANNER_SYSTEM: [],
  PLANNER_FIRST: ["original_query"],
  PLANNER_NEXT: ["original_query", "round_idx", "max_rounds", "query_history", "kept_docs_summary"],
  OBSERVER_SYSTEM: [],
  OBSERVER_USER: ["original_query", "retrieved_docs_block"],
} as const satisfies Record<string, readonly string[]>;

export type PromptName = keyof typeof PROMPT_PLACEHOLDERS;
export const PROMPT_NAMES = Object.keys(PROMPT_PLACEHOLDERS) as PromptName[];

/** REWRITE_SYSTEM: the notebook passes it as a literal, not a constant, so the official set may lack it. */
export const EXTRA_PROMPT_NAMES = ["REWRITE_SYSTEM"] as const;
export type ExtraPromptName = (typeof EXTRA_PROMPT_NAMES)[number];

/** Every placeholder any prompt may contain; `fillPrompt` substitutes exactly these (and any name given). */
export const PLACEHOLDERS: readonly string[] = [...new Set(Object.values(PROMPT_PLACEHOLDERS).flat())];

/** Also the set's parsers' name ("official": the authors' notebook parsers, exactly; "project": the lenient ones). */
export type PromptSetName = "project" | "official";

/** Texts with their source (a folder, or the notebook's URL) and hashes, so every run records which prompts made it. */
export interface PromptSet {
  name: PromptSetName;
  source: string;
  commit?: string;
  sha256: Record<PromptName, string>;
  texts: Record<PromptName, string>;
  extras: Partial<Record<ExtraPromptName, string>>;
}

export class PromptError extends GbrError {
  declare readonly code: "NOT_PULLED" | "MISSING_VALUE" | "MISSING_CONSTANTS" | "INVALID";

  constructor(message: string, code: PromptError["code"], options: GbrErrorOptions = {}) {
    // Prompts that were never pulled are a resource not here (skip), not a fault.
    super(message, code, { unavailable: code === "NOT_PULLED", ...options });
    this.name = "PromptError";
  }
}

export const PROJECT_PROMPTS_DIR = path.join(PACKAGE_ROOT, "lib", "llm", "prompts", "project");

/**
 * The official cache of a data folder (git ignores it: the official texts are never committed).
 *
 * @example
 * loadPromptSet("official", { cacheDir: officialPromptsDir(config.dataDir) });
 */
export function officialPromptsDir(dataDir: string): string {
  return path.join(dataDir, "prompts", "official");
}

/** Written by `pullOfficialPrompts` beside the cached prompt files. */
export interface OfficialManifest {
  repo: string;
  commit: string;
  path: string;
  url: string;
  notebookSha256: string;
  pulledAt: string;
  prompts: Record<PromptName, { file: string; sha256: string; chars: number }>;
  extras: Partial<Record<ExtraPromptName, { file: string; sha256: string; chars: number; foundBy: string }>>;
}

export const OFFICIAL_MANIFEST = "manifest.json";

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
 * A prompt file as sent: strict UTF-8, CRLF made LF (editors must not change the hash), no final newline.
 *
 * @example
 * readPromptFile(path.join(PROJECT_PROMPTS_DIR, "RERANK_USER.txt"), ["query", "passages"]);
 */
export function readPromptFile(file: string, placeholders: readonly string[] = []): string {
  const text = readUtf8(file).replace(/\r\n?/g, "\n").replace(/\n$/, "");
  const absent = placeholders.filter((ph) => !text.includes(`{${ph}}`));
  if (absent.length > 0) throw new PromptError(`${file}: lacks placeholder(s) ${absent.map((a) => `{${a}}`).join(", ")}`, "INVALID");
  return text;
}

/** "project" from the package's files; "official" from the `gbr prompts pull` cache, checked against its sha256. */
export function loadPromptSet(name: PromptSetName = "project", opts: { cacheDir?: string } = {}): PromptSet {
  if (name === "project") return loadProjectSet(PROJECT_PROMPTS_DIR);
  if (name !== "official") throw new PromptError(`unknown prompt set '${String(name)}': project or official`, "INVALID");
  if (opts.cacheDir === undefined) throw new PromptError("the official prompt set needs its folder: { cacheDir: officialPromptsDir(dataDir) }", "INVALID");
  return loadOfficialSet(opts.cacheDir);
}

function loadProjectSet(dir: string): PromptSet {
  const texts = {} as Record<PromptName, string>;
  for (const p of PROMPT_NAMES) texts[p] = readPromptFile(path.join(dir, `${p}.txt`), PROMPT_PLACEHOLDERS[p]);
  const extras = { REWRITE_SYSTEM: readPromptFile(path.join(dir, "REWRITE_SYSTEM.txt")) };
  return { name: "project", source: dir, sha256: digestsOf(texts), texts, extras };
}

function loadOfficialSet(dir: string): PromptSet {
  const manifestFile = path.join(dir, OFFICIAL_MANIFEST);
  const pull = "run `gbr prompts pull`";
  if (!existsSync(manifestFile)) {
    const notPulled = `the official prompts are not in the cache (${manifestFile} missing); ${pull} or use the project prompts`;
    throw new PromptError(notPulled, "NOT_PULLED", { brief: `the official prompts are not pulled: ${pull}` });
  }
  const unreadable = (why: string) => new PromptError(`${manifestFile}: unreadable (${why}); ${pull} again`, "INVALID");
  const manifest = parsedOr(() => JSON.parse(readUtf8(manifestFile)) as OfficialManifest, unreadable);
  const texts = {} as Record<PromptName, string>;
  const read = (entry: { file: string; sha256: string } | undefined, label: string): string => {
    if (!entry) throw new PromptError(`${manifestFile}: no entry for ${label}; run \`gbr prompts pull\` again`, "INVALID");
    const file = path.join(dir, entry.file);
    if (!existsSync(file)) throw new PromptError(`${file} is missing; run \`gbr prompts pull\` again`, "NOT_PULLED");
    // No normalisation here: the cache holds the constants byte for byte.
    const text = readUtf8(file);
    if (digestOf(text) !== entry.sha256) {
      throw new PromptError(`${file}: sha256 differs from the manifest (edited or damaged); run \`gbr prompts pull\` again`, "INVALID");
    }
    return text;
  };
  for (const p of PROMPT_NAMES) texts[p] = read(manifest.prompts?.[p], p);
  const extras: PromptSet["extras"] = {};
  for (const e of EXTRA_PROMPT_NAMES) if (manifest.extras?.[e]) extras[e] = read(manifest.extras[e], e);
  return { name: "official", source: manifest.url, commit: manifest.commit, sha256: digestsOf(texts), texts, extras };
}

function digestsOf(texts: Record<PromptName, string>): Record<PromptName, string> {
  return Object.fromEntries(PROMPT_NAMES.map((p) => [p, digestOf(texts[p])])) as Record<PromptName, string>;
}

/** The notebook's sampling settings: top_p 1 and low reasoning effort for every call, in this key order. */
export const notebookParams = <T extends number, M extends number>(temperature: T, maxTokens: M) =>
  ({ temperature, topP: 1, reasoningEffort: "low", maxTokens }) as const;

/** `{name}` for names in PLACEHOLDERS or `values`, in one pass; a missing value is an error; "{{"/"}}" stay. */
export function fillPrompt(template: string, values: Record<string, string | number | undefined>): string {
  const known = new Set<string>([...PLACEHOLDERS, ...Object.keys(values)]);
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
