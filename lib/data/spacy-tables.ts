/** spaCy's pinned lemma tables and stopwords (spaCy cannot run here), cached with sha256s; docs/tokenizers.md. */
import { promises as fs } from "node:fs";
import path from "node:path";
import { gunzipSync } from "node:zlib";
import { environmentConfig } from "../paths";
import {
  englishLexicon,
  greekLexicon,
  type GreekRuleTables,
  type SpacyFileRole,
  type SpacyLang,
  type SpacyLexicon,
  type SpacyLexiconFile,
} from "../text/spacy-lexicon";
import { DownloadError, downloadFile, hashFile, type DownloadOptions } from "../util/download";
import { DataError } from "../util/errors";
import { parseLemmaExceptions, parseLemmaIndex, parseLemmaLookup, parseLemmaRules, parseStopWordsPy } from "./spacy-table-parsers";
import { checkedBaseUrl } from "../util/http";
import { writeManifest } from "./hub-manifest";
import type { Config } from "../config";
import { buildTokenizer, type SpacyLexiconLoader, type TokenizerContext } from "../text/registry";
import type { Tokenizer } from "../types";

/** Release tag of explosion/spacy-lookups-data the lemma tables are read from. */
export const SPACY_LOOKUPS_DATA_REF = "v1.0.5";
/** Release tag of explosion/spaCy the stopword lists are read from. */
export const SPACY_REF = "v3.8.7";
/** Raw GitHub file server; `GBR_SPACY_BASE_URL` or `opts.baseUrl` replace it (mirrors, tests). */
export const DEFAULT_SPACY_BASE_URL = "https://raw.githubusercontent.com";

/** One upstream file: `<owner>/<repo>/<ref>/<path>` under the base URL. */
export interface SpacyUpstreamFile {
  role: SpacyFileRole;
  owner: string;
  repo: string;
  ref: string;
  path: string;
}

const lookups = (role: SpacyFileRole, file: string): SpacyUpstreamFile => ({
  role,
  owner: "explosion",
  repo: "spacy-lookups-data",
  ref: SPACY_LOOKUPS_DATA_REF,
  path: `spacy_lookups_data/data/${file}`,
});
const stopWords = (lang: SpacyLang): SpacyUpstreamFile => ({
  role: "stop_words",
  owner: "explosion",
  repo: "spaCy",
  ref: SPACY_REF,
  path: `spacy/lang/${lang}/stop_words.py`,
});

/** The files each language needs, in load order. */
export const SPACY_FILES: Record<SpacyLang, readonly SpacyUpstreamFile[]> = {
  el: [
    lookups("lemma_index", "el_lemma_index.json"),
    lookups("lemma_exc", "el_lemma_exc.json"),
    lookups("lemma_rules", "el_lemma_rules.json"),
    stopWords("el"),
  ],
  en: [lookups("lemma_lookup", "en_lemma_lookup.json"), stopWords("en")],
};

/**
 * A tokenizer by name or short form (`greekstemmer`, `spacy`, `grnlp`, `english`; see `TOKENIZERS`). The spaCy-based
 * ones take spaCy's tables from `ctx.loadSpacyLexicon` when given, else from `loadSpacyLexicon`: downloaded on first
 * use into `<data folder>/spacy` (`GBR_SPACY_BASE_URL` names a mirror), a DownloadError OFFLINE when neither cached
 * nor reachable.
 *
 * @example
 * const tok = await createTokenizer("bm25-greekstemmer");
 * tok.tokenize("Οι συμβάσεις ερμηνεύονται"); // ["ΟΙ", "ΣΥΜΒΑΣ", "ΕΡΜΗΝΕΥ"]
 * (await createTokenizer("spacy")).tokenize("Η σύμβαση"); // ["συμβαση"]
 */
export function createTokenizer(name: string, ctx: TokenizerContext = {}): Promise<Tokenizer> {
  return buildTokenizer(name, { ...ctx, loadSpacyLexicon: ctx.loadSpacyLexicon ?? spacyLoader(environmentConfig()) });
}

/**
 * The project's loader of spaCy's tables for a configuration: cached in `<dataDir>/spacy` (or the context's
 * `cacheDir`), fetched from its `spacyBaseUrl` (GBR_SPACY_BASE_URL) or raw.githubusercontent.com.
 *
 * @example
 * const tok = await buildTokenizer("bm25-spacy", { loadSpacyLexicon: spacyLoader(config) });
 */
export function spacyLoader(config: Pick<Config, "dataDir" | "spacyBaseUrl">): SpacyLexiconLoader {
  return (lang, ctx) =>
    loadSpacyLexicon(lang, { ...ctx, cacheDir: ctx.cacheDir ?? path.join(config.dataDir, "spacy"), ...(config.spacyBaseUrl ? { baseUrl: config.spacyBaseUrl } : {}) });
}

/** The URL path of an upstream file below the base URL (also what the test double serves). */
export function upstreamPath(f: SpacyUpstreamFile): string {
  return `/${f.owner}/${f.repo}/${f.ref}/${f.path}`;
}

function cacheRelPath(f: SpacyUpstreamFile): string {
  return `${f.repo}@${f.ref}/${path.posix.basename(f.path)}`;
}

/** Where the tables are cached and fetched from; a tokenizer's context is a valid value. */
export interface LoadSpacyLexiconOptions {
  /** Cache folder (`spacyLoader`'s default: `<dataDir>/spacy`). Files go to `<cacheDir>/<lang>/`. */
  cacheDir: string;
  /** Base URL of the raw-file server; default raw.githubusercontent.com. */
  baseUrl?: string;
  /** Never touch the network: use the cache or fail with DownloadError code OFFLINE. */
  offline?: boolean;
  log?: (message: string) => void;
  /** Retry/timeout settings passed to downloadFile (tests shorten the backoff). */
  download?: DownloadOptions;
}

interface ManifestEntry {
  url: string;
  size: number;
  sha256: string;
  fetchedAt: string;
}
interface Manifest {
  version: 1;
  lang: SpacyLang;
  files: Record<string, ManifestEntry>;
}

/**
 * spaCy's tables for `lang`, cached on first use; a file failing its manifest or its parse is fetched again.
 * @throws DownloadError "OFFLINE" (neither cached intact nor reachable) or "HTTP"; DataError when a file won't parse.
 */
export async function loadSpacyLexicon(lang: SpacyLang, opts: LoadSpacyLexiconOptions): Promise<SpacyLexicon> {
  if (lang !== "el" && lang !== "en") throw new Error(`loadSpacyLexicon: unsupported language '${String(lang)}'`);
  const cacheDir = path.resolve(opts.cacheDir, lang);
  const baseUrl = checkedBaseUrl("GBR_SPACY_BASE_URL", opts.baseUrl ?? DEFAULT_SPACY_BASE_URL).replace(/\/+$/, "");
  const log = opts.log ?? (() => {});
  const manifestFile = path.join(cacheDir, "manifest.json");
  const manifest = await readManifest(manifestFile, lang, log);
  const specs = SPACY_FILES[lang];

  const missing: string[] = [];
  const ready = new Map<SpacyUpstreamFile, { local: string; url: string; entry: ManifestEntry }>();
  let manifestDirty = false;
  // After one network failure, report all missing files at once instead of waiting through each one's retries.
  let unreachable = false;
  let cause: string | undefined;

  for (const spec of specs) {
    const rel = cacheRelPath(spec);
    const local = path.join(cacheDir, rel);
    const url = baseUrl + upstreamPath(spec);
    const recorded = manifest.files[rel];
    const onDisk = await hashIfExists(local);
    if (onDisk && recorded && onDisk.sha256 === recorded.sha256 && onDisk.size === recorded.size) {
      ready.set(spec, { local, url, entry: recorded });
      continue;
    }
    if (onDisk && recorded) log(`spaCy ${lang}: cached ${rel} does not match its manifest entry (sha256/size); fetching again`);
    if (opts.offline || unreachable) {
      if (onDisk && !recorded) {
        // A file placed by hand (or a manifest lost in a crash): trust it and record it.
        log(`spaCy ${lang}: ${rel} has no manifest entry; using it as found (offline)`);
        const entry = { url, size: onDisk.size, sha256: onDisk.sha256, fetchedAt: new Date().toISOString() };
        manifest.files[rel] = entry;
        manifestDirty = true;
        ready.set(spec, { local, url, entry });
      } else {
        missing.push(`${rel}${onDisk ? " (cached copy corrupted)" : ""}`);
      }
      continue;
    }
    try {
      const entry = await fetchInto(url, local, rel, lang, opts, log);
      manifest.files[rel] = entry;
      manifestDirty = true;
      ready.set(spec, { local, url, entry });
    } catch (err) {
      if (err instanceof DownloadError && err.code === "NETWORK") {
        unreachable = true;
        cause ??= err.message;
        missing.push(`${rel}${onDisk ? " (cached copy corrupted)" : ""}`);
        continue;
      }
      throw err;
    }
  }
  if (manifestDirty) await writeManifest(manifestFile, manifest);
  if (missing.length > 0) throw offlineError(lang, cacheDir, missing, cause);

  // A file that does not parse is fetched once more: a broken body with a consistent length passes any checksum.
  const parsed = new Map<SpacyFileRole, unknown>();
  const files: SpacyLexiconFile[] = [];
  for (const spec of specs) {
    let r = ready.get(spec)!;
    let value: unknown;
    try {
      value = await parseFile(spec, r.local);
    } catch (err) {
      if (!(err instanceof DataError) || opts.offline) throw err;
      log(`spaCy ${lang}: ${cacheRelPath(spec)} does not parse (${err.detail}); fetching it again`);
      const entry = await fetchInto(r.url, r.local, cacheRelPath(spec), lang, opts, log);
      manifest.files[cacheRelPath(spec)] = entry;
      await writeManifest(manifestFile, manifest);
      r = { ...r, entry };
      value = await parseFile(spec, r.local);
    }
    parsed.set(spec.role, value);
    files.push({ role: spec.role, url: r.entry.url, sha256: r.entry.sha256, size: r.entry.size });
  }

  const stopwords = parsed.get("stop_words") as Set<string>;
  if (lang === "en") {
    return englishLexicon(parsed.get("lemma_lookup") as Map<string, string>, stopwords, files);
  }
  const greek: GreekRuleTables = {
    index: parsed.get("lemma_index") as Map<string, Set<string>>,
    exc: parsed.get("lemma_exc") as Map<string, Map<string, string[]>>,
    rules: parsed.get("lemma_rules") as Map<string, Array<[string, string]>>,
  };
  return greekLexicon(greek, stopwords, files);
}

async function fetchInto(
  url: string,
  local: string,
  rel: string,
  lang: SpacyLang,
  opts: LoadSpacyLexiconOptions,
  log: (m: string) => void,
): Promise<ManifestEntry> {
  log(`spaCy ${lang}: downloading ${url}`);
  try {
    const res = await downloadFile(url, local, opts.download);
    return { url, size: res.size, sha256: res.sha256, fetchedAt: new Date().toISOString() };
  } catch (err) {
    if (err instanceof DownloadError && err.code === "HTTP") {
      throw new DownloadError(
        `${err.message} while fetching spaCy ${lang} data ${rel}; check that the pinned ref exists ` +
          `(spacy-lookups-data ${SPACY_LOOKUPS_DATA_REF}, spaCy ${SPACY_REF}) and that GBR_SPACY_BASE_URL, ` +
          `if set, mirrors <owner>/<repo>/<ref>/<path>`,
        "HTTP",
        err.status,
      );
    }
    throw err;
  }
}

function offlineError(lang: SpacyLang, cacheDir: string, missing: string[], cause: string | undefined): DownloadError {
  const what = lang === "el" ? "Greek lemma tables and stopwords (BM25-SPACY)" : "English lemma table and stopwords (BM25-ENGLISH)";
  return new DownloadError(
    `spaCy ${what} not available ${cause ? `(download failed: ${cause})` : "offline"}; ` +
      `missing from ${cacheDir}: ${missing.join(", ")}. ` +
      `Run once with network access (the files are fetched and cached), or set GBR_SPACY_BASE_URL to a mirror ` +
      `serving <owner>/<repo>/<ref>/<path>.`,
    "OFFLINE",
    undefined,
    false,
    undefined,
    { brief: `spaCy ${what} not available offline: run once with network access, or set GBR_SPACY_BASE_URL to a mirror` },
  );
}

async function hashIfExists(file: string): Promise<{ sha256: string; size: number } | undefined> {
  try {
    return await hashFile(file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw err;
  }
}

async function readManifest(file: string, lang: SpacyLang, log: (m: string) => void): Promise<Manifest> {
  const empty: Manifest = { version: 1, lang, files: {} };
  let text: string;
  try {
    text = await fs.readFile(file, "utf8");
  } catch {
    return empty;
  }
  try {
    const m = JSON.parse(text) as Manifest;
    if (m && typeof m === "object" && m.files && typeof m.files === "object") return { version: 1, lang, files: m.files };
  } catch {
    // fall through
  }
  log(`spaCy ${lang}: ${file} is unreadable; cached files will be verified by fetching them again`);
  return empty;
}

async function readText(file: string): Promise<string> {
  const buf = await fs.readFile(file);
  // Older spacy-lookups-data releases shipped large tables gzipped; accept either form.
  const raw = buf.length >= 2 && buf[0] === 0x1f && buf[1] === 0x8b ? gunzipSync(buf) : buf;
  let text = raw.toString("utf8");
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  return text;
}

async function parseFile(spec: SpacyUpstreamFile, file: string): Promise<unknown> {
  let text: string;
  try {
    text = await readText(file);
  } catch (err) {
    throw new DataError(`cannot read (${(err as Error).message})`, file);
  }
  if (spec.role === "stop_words") return parseStopWordsPy(text, file);
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    throw new DataError(`malformed JSON (${(err as Error).message})`, file);
  }
  switch (spec.role) {
    case "lemma_lookup":
      return parseLemmaLookup(json, file);
    case "lemma_index":
      return parseLemmaIndex(json, file);
    case "lemma_exc":
      return parseLemmaExceptions(json, file);
    case "lemma_rules":
      return parseLemmaRules(json, file);
  }
}

