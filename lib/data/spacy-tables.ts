/** spaCy's pinned lemma tables and stopwords (spaCy cannot run here), cached with sha256s; docs/tokenizers.md. */
import { promises as fs } from "node:fs";
import path from "node:path";
import { environmentConfig } from "../paths";
import {
  englishLexicon,
  greekLexicon,
  type GreekRuleTables,
  type SpacyFileRole,
  type SpacyLang,
  type SpacyLexicon,
} from "../text/spacy-lexicon";
import { DownloadError, downloadFile, hashFile, type DownloadOptions } from "../util/download";
import { DataError, parsedOr } from "../util/errors";
import { parseLemmaExceptions, parseLemmaIndex, parseLemmaLookup, parseLemmaRules, parseStopWordsPy } from "./spacy-table-parsers";
import { checkedBaseUrl } from "../util/http";
import { writeManifest } from "./hub-manifest";
import { readJsonIfAny, unlessMissing } from "../util/safe-files";
import type { Config } from "../config";
import { buildTokenizer, type SpacyLexiconLoader, type TokenizerContext } from "../text/registry";
import type { Tokenizer } from "../types";

/** Release tags of explosion/spacy-lookups-data (lemma tables) and explosion/spaCy (stopwords). */
const SPACY_LOOKUPS_DATA_REF = "v1.0.5";
const SPACY_REF = "v3.8.7";
/** `GBR_SPACY_BASE_URL` or `opts.baseUrl` replace it (mirrors, tests). */
const DEFAULT_SPACY_BASE_URL = "https://raw.githubusercontent.com";

/** One upstream file: its role and `<owner>/<repo>/<ref>/<path>` below the base URL. */
export type SpacyUpstreamFile = { role: SpacyFileRole; path: string };

const lookups = (role: SpacyFileRole, file: string): SpacyUpstreamFile => ({
  role,
  path: `explosion/spacy-lookups-data/${SPACY_LOOKUPS_DATA_REF}/spacy_lookups_data/data/${file}`,
});
const stopWords = (lang: SpacyLang): SpacyUpstreamFile => ({ role: "stop_words", path: `explosion/spaCy/${SPACY_REF}/spacy/lang/${lang}/stop_words.py` });

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
 * The project's loader of spaCy's tables, cached in `<dataDir>/spacy` (or `ctx.cacheDir`).
 * @example
 * const tok = await buildTokenizer("bm25-spacy", { loadSpacyLexicon: spacyLoader(config) });
 */
export function spacyLoader(config: Pick<Config, "dataDir" | "spacyBaseUrl">): SpacyLexiconLoader {
  return (lang, ctx) =>
    loadSpacyLexicon(lang, { ...ctx, cacheDir: ctx.cacheDir ?? path.join(config.dataDir, "spacy"), ...(config.spacyBaseUrl ? { baseUrl: config.spacyBaseUrl } : {}) });
}

/** Where the tables are cached (`<cacheDir>/<lang>/`) and fetched from; `offline` uses the cache only. */
export interface LoadSpacyLexiconOptions {
  cacheDir: string;
  baseUrl?: string;
  offline?: boolean;
  log?: (message: string) => void;
  download?: DownloadOptions;
}

type ManifestEntry = { url: string; size: number; sha256: string; fetchedAt: string };
type Manifest = { version: 1; lang: SpacyLang; files: Record<string, ManifestEntry> };

/**
 * spaCy's tables for `lang`, cached on first use; a cached file failing its manifest is fetched again, one that does
 * not parse is a DataError naming it and stays unrecorded (so the next load fetches it again).
 * @throws DownloadError "OFFLINE" (neither cached intact nor reachable) or "HTTP"; DataError when a file won't parse.
 */
export async function loadSpacyLexicon(lang: SpacyLang, opts: LoadSpacyLexiconOptions): Promise<SpacyLexicon> {
  const cacheDir = path.resolve(opts.cacheDir, lang);
  const baseUrl = checkedBaseUrl("GBR_SPACY_BASE_URL", opts.baseUrl ?? DEFAULT_SPACY_BASE_URL).replace(/\/+$/, "");
  const manifestFile = path.join(cacheDir, "manifest.json");
  // An unreadable manifest vouches for nothing: every cached file is then fetched again.
  const cached = await readJsonIfAny<Manifest>(manifestFile);
  const manifest: Manifest = { version: 1, lang, files: typeof cached?.files === "object" && cached.files ? cached.files : {} };
  const missing: string[] = [];
  const parsed = new Map<SpacyFileRole, unknown>();
  let manifestDirty = false;
  // After one network failure, report all missing files at once instead of waiting through each one's retries.
  let cause: string | undefined;
  try {
    for (const spec of SPACY_FILES[lang]) {
      const [, repo, ref] = spec.path.split("/");
      const rel = `${repo}@${ref}/${path.posix.basename(spec.path)}`;
      const local = path.join(cacheDir, rel);
      let entry: ManifestEntry | undefined = manifest.files[rel];
      // Unreadable counts as absent: the file is fetched again (and a lasting fault reported by the download).
      const onDisk = await unlessMissing(hashFile(local));
      if (!onDisk || !entry || onDisk.sha256 !== entry.sha256 || onDisk.size !== entry.size) {
        if (onDisk && entry) opts.log?.(`spaCy ${lang}: cached ${rel} does not match its manifest (sha256/size); fetching again`);
        entry = undefined;
        if (!opts.offline && cause === undefined) {
          try {
            entry = await fetchInto(`${baseUrl}/${spec.path}`, local, rel, lang, opts);
          } catch (err) {
            if (!(err instanceof DownloadError && err.code === "NETWORK")) throw err;
            cause = err.message;
          }
        }
        if (!entry) {
          missing.push(`${rel}${onDisk ? " (cached copy corrupted)" : ""}`);
          continue;
        }
      }
      parsed.set(spec.role, await parseFile(spec, local));
      if (manifest.files[rel] !== entry) [manifest.files[rel], manifestDirty] = [entry, true];
    }
  } finally {
    if (manifestDirty) await writeManifest(manifestFile, manifest);
  }
  if (missing.length > 0) throw offlineError(lang, cacheDir, missing, cause);

  const stopwords = parsed.get("stop_words") as Set<string>;
  if (lang === "en") return englishLexicon(parsed.get("lemma_lookup") as Map<string, string>, stopwords);
  const [index, exc, rules] = (["lemma_index", "lemma_exc", "lemma_rules"] as const).map((role) => parsed.get(role));
  return greekLexicon({ index, exc, rules } as GreekRuleTables, stopwords);
}

async function fetchInto(url: string, local: string, rel: string, lang: SpacyLang, opts: LoadSpacyLexiconOptions) {
  opts.log?.(`spaCy ${lang}: downloading ${url}`);
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

const JSON_PARSERS = {
  lemma_lookup: parseLemmaLookup,
  lemma_index: parseLemmaIndex,
  lemma_exc: parseLemmaExceptions,
  lemma_rules: parseLemmaRules,
};

async function parseFile(spec: SpacyUpstreamFile, file: string): Promise<unknown> {
  const text = (await fs.readFile(file, "utf8")).replace(/^\uFEFF/, "");
  if (spec.role === "stop_words") return parseStopWordsPy(text, file);
  const json: unknown = parsedOr(() => JSON.parse(text), (why) => new DataError(`malformed JSON (${why})`, file));
  return JSON_PARSERS[spec.role](json, file);
}

