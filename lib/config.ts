/** The one reader of the environment (docs/scale.md, docs/llm.md): nothing else in lib/ reads `process.env`. */
import { existsSync, realpathSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { GbrError } from "./util/errors";
import { checkedBaseUrl, endpointOrigin } from "./util/http";

/** The URL variables, each with the variable its key belongs in. */
const URL_VARIABLES: readonly (readonly [string, string | undefined])[] = [
  ["GBR_CHAT_BASE_URL", "GBR_CHAT_API_KEY"],
  ["OPENAI_BASE_URL", "OPENAI_API_KEY"],
  ["GBR_EMBED_BASE_URL", "GBR_EMBED_API_KEY"],
  ["GBR_LMSTUDIO_BASE_URL", "GBR_LMSTUDIO_API_KEY"],
  ["GBR_RERANK_BASE_URL", "GBR_RERANK_API_KEY"],
  ["GBR_GEMINI_BASE_URL", "GEMINI_API_KEY"],
  ["HF_ENDPOINT", "HF_TOKEN"],
  ["GBR_SPACY_BASE_URL", undefined],
  ["GBR_GITHUB_RAW_URL", undefined],
];

/** The variables a configuration is read from (a copy of `process.env`, or a test's own). */
export type Environment = Readonly<Record<string, string | undefined>>;

export type ProviderKind = "chat" | "embed" | "rerank";

/** Requests in flight per endpoint by default (an embedding batch of 32 texts is already a large request). */
export const DEFAULT_CONCURRENCY: Readonly<Record<ProviderKind, number>> = { chat: 4, embed: 2, rerank: 4 };

/** Default request deadlines (s); chat's is long as an unstreamed REACT observer answer can take minutes. */
export const DEFAULT_TIMEOUT_S: Readonly<Record<ProviderKind, number>> = { chat: 600, embed: 60, rerank: 120 };

/** Requests and tokens per sliding minute (`GBR_<KIND>_RPM`, `GBR_<KIND>_TPM`). */
export type RateCaps = { requestsPerMinute?: number; tokensPerMinute?: number };

export interface EndpointsConfig {
  /** From a comma-separated variable; empty when none is set. */
  baseUrls: string[];
  urlVariable: string;
  /** The variable a key for these servers belongs in, for messages. */
  keyVariable: string;
  apiKey?: string;
  concurrency: number;
  /** One request's deadline, after which it is retried (elsewhere when there is another endpoint). */
  timeoutMs: number;
  caps?: RateCaps;
}

/** How embedding models are named on the server: Hugging Face ids, or the names the authors served. */
export type EmbedNaming = "hf" | "authors";

export interface Config {
  /** Root of every cache (`GBR_DATA_DIR`, else `<package>/data`). */
  dataDir: string;
  /** A shared file of chat answers to replay (`GBR_REPLAY_FILE`). */
  replayFile?: string;
  /** `GBR_OFFLINE=1`: no provider is called; an answer not cached is an error. */
  offline: boolean;
  /** `--local` or `GBR_LOCAL=1`: presets with an in-process form run in this process, not through a server. */
  local: boolean;
  pricesFile?: string;
  figuresDir?: string;
  presetsFile?: string;
  vectorStore?: string;
  /** Cross-encoder presets that reproduce has rows for (`GBR_RERANKERS`). */
  rerankers: string[];
  /** `GBR_DEBUG`: stack traces of unexpected errors. */
  debug: boolean;
  chat: EndpointsConfig & {
    model?: string;
  };
  embed: EndpointsConfig & {
    naming: EmbedNaming;
    /** `GBR_LMSTUDIO_BASE_URL` / `GBR_LMSTUDIO_API_KEY`: the server of presets named as LM Studio serves them. */
    lmstudio?: { baseUrl: string; apiKey?: string };
  };
  rerank: EndpointsConfig & {
    api: "rerank" | "tei";
  };
  /** `GEMINI_API_KEY` (else `GOOGLE_API_KEY`) and `GBR_GEMINI_BASE_URL`. */
  gemini: { apiKey?: string; baseUrl?: string; timeoutS?: number };
  hub: { endpoint: string; token?: string; offline: boolean };
  spacyBaseUrl?: string;
  githubRawUrl?: string;
  /** Where to look for the Chromium or Chrome that draws figures as files (`gbr figures`, notebooks' static images). */
  browser: BrowserSearch;
}

/** The browser for figures: `GBR_CHROMIUM` (else `CHROME_PATH`) alone, else Linux', macOS' and Windows' usual places and `PATH`. */
export interface BrowserSearch {
  explicit?: { path: string; variable: "GBR_CHROMIUM" | "CHROME_PATH" };
  pathDirs: string[];
  programDirs: string[];
}

/** Package root, so defaults don't depend on the cwd: above lib/ or build/lib (notebooks reach it via a link). */
export const PACKAGE_ROOT = ((here: string) => path.resolve(here, existsSync(path.join(here, "BUILD.json")) ? "../.." : ".."))(realpathSync(__dirname));

export interface ConfigFlags {
  /** `--concurrency N`: requests in flight per endpoint for every kind without its own variable. */
  concurrency?: number;
  /** `--official`: the authors' dense serving, whatever GBR_EMBED_NAMES says. */
  embedNaming?: EmbedNaming;
  /** `--local`: in-process models (as `GBR_LOCAL=1`). */
  local?: boolean;
}

export function readConfig(env: Environment = process.env, flags: ConfigFlags = {}): Config {
  const v = (name: string): string | undefined => {
    const raw = env[name]?.trim();
    return raw ? raw : undefined;
  };
  // Every URL of the configuration, checked once here: none may carry a secret (a user:pass@ or a ?key=).
  for (const [name, keyVariable] of URL_VARIABLES) for (const url of endpointList(v(name) ?? "")) checkedBaseUrl(name, url, keyVariable);
  const timeoutS = positiveNumber(env, "GBR_REQUEST_TIMEOUT_S", "a number of seconds above 0 (at most a day)", 86_400);
  const endpoints = (kind: ProviderKind, urlVars: string[], keyVars: string[]): EndpointsConfig => {
    const urlVariable = urlVars.find((n) => v(n)) ?? urlVars[0];
    const apiKey = keyVars.map(v).find(Boolean);
    return {
      baseUrls: endpointList(v(urlVariable) ?? ""),
      urlVariable,
      keyVariable: keyVars[0],
      ...(apiKey ? { apiKey } : {}),
      concurrency: concurrencyOf(env, kind, flags.concurrency),
      timeoutMs: Math.round(1000 * (timeoutS ?? DEFAULT_TIMEOUT_S[kind])),
      ...capsOf(env, kind),
    };
  };
  const api = v("GBR_RERANK_API") ?? "rerank";
  if (api !== "rerank" && api !== "tei") throw usage("GBR_RERANK_API", '"rerank" or "tei"', api);
  const naming = flags.embedNaming ?? (v("GBR_EMBED_NAMES") ?? "hf").toLowerCase();
  if (naming !== "hf" && naming !== "authors") throw usage("GBR_EMBED_NAMES", '"hf" or "authors"', env.GBR_EMBED_NAMES ?? "");
  const lmstudioUrl = v("GBR_LMSTUDIO_BASE_URL");
  const lmstudioKey = v("GBR_LMSTUDIO_API_KEY");
  const geminiKey = v("GEMINI_API_KEY") ?? v("GOOGLE_API_KEY");
  const geminiUrl = v("GBR_GEMINI_BASE_URL");
  const hfToken = v("HF_TOKEN");
  const listed = (v("GBR_RERANKERS") ?? "").split(",").map((s) => s.trim()).filter(Boolean);
  const optional = <K extends string, T>(key: K, value: T | undefined): { [P in K]?: T } => (value === undefined ? {} : ({ [key]: value } as { [P in K]?: T }));
  return {
    dataDir: configuredDataDir(env),
    ...optional("replayFile", v("GBR_REPLAY_FILE") ? path.resolve(v("GBR_REPLAY_FILE")!) : undefined),
    offline: flag(env.GBR_OFFLINE),
    local: flags.local ?? flag(env.GBR_LOCAL),
    ...optional("pricesFile", v("GBR_PRICES")),
    ...optional("figuresDir", v("GBR_FIGURES_DIR") ? path.resolve(v("GBR_FIGURES_DIR")!) : undefined),
    ...optional("presetsFile", v("GBR_PRESETS") ? path.resolve(v("GBR_PRESETS")!) : undefined),
    ...optional("vectorStore", v("GBR_VECTOR_STORE")),
    rerankers: [...new Set(listed)],
    debug: v("GBR_DEBUG") !== undefined,
    chat: { ...endpoints("chat", ["GBR_CHAT_BASE_URL", "OPENAI_BASE_URL"], ["GBR_CHAT_API_KEY", "OPENAI_API_KEY"]), ...optional("model", v("GBR_CHAT_MODEL")) },
    embed: {
      ...endpoints("embed", ["GBR_EMBED_BASE_URL", "OPENAI_BASE_URL"], ["GBR_EMBED_API_KEY", "OPENAI_API_KEY"]),
      naming,
      ...optional("lmstudio", lmstudioUrl ? { baseUrl: lmstudioUrl, ...optional("apiKey", lmstudioKey) } : undefined),
    },
    rerank: { ...endpoints("rerank", ["GBR_RERANK_BASE_URL"], ["GBR_RERANK_API_KEY"]), api },
    gemini: { ...optional("apiKey", geminiKey), ...optional("baseUrl", geminiUrl), ...optional("timeoutS", timeoutS) },
    hub: { endpoint: v("HF_ENDPOINT") ?? "https://huggingface.co", ...optional("token", hfToken), offline: flag(env.HF_HUB_OFFLINE) },
    ...optional("spacyBaseUrl", v("GBR_SPACY_BASE_URL")),
    ...optional("githubRawUrl", v("GBR_GITHUB_RAW_URL")),
    browser: browserSearch(env, v),
  };
}

/** Installed as a dependency (lib/ compiled, no sources): read-only perhaps and replaced on upgrade, so no caches in it. */
export const INSTALLED = !existsSync(path.join(PACKAGE_ROOT, "lib", "index.ts"));

/** An installed package's cache, one per user as Hugging Face's: `$XDG_CACHE_HOME/greekbar-retrieval`, else the platform's. */
export function userCacheDir(env: Environment = process.env, platform: NodeJS.Platform = process.platform, home = os.homedir()): string {
  const xdg = env.XDG_CACHE_HOME?.trim();
  if (xdg && path.isAbsolute(xdg)) return path.join(xdg, "greekbar-retrieval");
  if (platform === "darwin") return path.join(home, "Library", "Caches", "greekbar-retrieval");
  const local = env.LOCALAPPDATA?.trim();
  if (platform === "win32") return path.join(local || path.join(home, "AppData", "Local"), "greekbar-retrieval", "Cache");
  return path.join(home, ".cache", "greekbar-retrieval");
}

function browserSearch(env: Environment, v: (name: string) => string | undefined): BrowserSearch {
  const variable = v("GBR_CHROMIUM") !== undefined ? "GBR_CHROMIUM" : v("CHROME_PATH") !== undefined ? "CHROME_PATH" : undefined;
  // Windows spells its variables in any case (Path, ProgramFiles); a test's environment is a plain object.
  const anyCase = (name: string) => {
    const key = Object.keys(env).find((k) => k.toUpperCase() === name);
    return key === undefined ? undefined : v(key);
  };
  const pathDirs = (anyCase("PATH") ?? "").split(path.delimiter).filter(Boolean);
  const programDirs = ["PROGRAMFILES", "PROGRAMFILES(X86)", "LOCALAPPDATA"].map(anyCase).filter((d): d is string => d !== undefined);
  return { ...(variable ? { explicit: { path: path.resolve(v(variable)!), variable } } : {}), pathDirs, programDirs };
}

/** The data folder alone, for code that must not fail on an unrelated malformed variable. */
export function configuredDataDir(env: Environment = process.env, installed = INSTALLED): string {
  const dir = env.GBR_DATA_DIR?.trim();
  if (dir) return path.resolve(dir);
  return installed ? userCacheDir(env) : path.join(PACKAGE_ROOT, "data");
}

/** Notebooks may run a build older than the sources; read on its own because it is checked when lib/ loads. */
export function allowStaleBuild(env: Environment = process.env): boolean {
  return env.GBR_ALLOW_STALE_BUILD === "1";
}

/** The configured secrets (API keys, the Hub token) of four characters or more, for `redactSecrets`. */
export function configSecrets(c: Config): string[] {
  const keys = [c.chat.apiKey, c.embed.apiKey, c.embed.lmstudio?.apiKey, c.rerank.apiKey, c.gemini.apiKey, c.hub.token];
  return keys.filter((k): k is string => typeof k === "string" && k.length >= 4);
}

/** What a run records of its configuration (metadata.json): endpoints as scheme://host:port, keys only as set. */
export function configRecord(config: Config): Record<string, unknown> {
  const kind = (e: EndpointsConfig) => ({
    endpoints: e.baseUrls.map(endpointOrigin),
    key: e.apiKey !== undefined,
    concurrency: e.concurrency,
    timeoutS: e.timeoutMs / 1000,
    ...(e.caps ? { caps: e.caps } : {}),
  });
  return {
    chat: { ...kind(config.chat), ...(config.chat.model ? { model: config.chat.model } : {}) },
    embed: { ...kind(config.embed), naming: config.embed.naming, ...(config.embed.lmstudio ? { lmstudio: endpointOrigin(config.embed.lmstudio.baseUrl) } : {}) },
    rerank: { ...kind(config.rerank), api: config.rerank.api },
    gemini: { key: config.gemini.apiKey !== undefined, ...(config.gemini.baseUrl ? { endpoint: endpointOrigin(config.gemini.baseUrl) } : {}) },
    offline: config.offline,
    ...(config.replayFile ? { replayFile: path.basename(config.replayFile) } : {}),
  };
}

export function endpointList(value: string): string[] {
  return value.split(",").map((u) => u.trim()).filter(Boolean);
}

/** `GBR_<KIND>_CONCURRENCY`, else `--concurrency`, else `GBR_CONCURRENCY`, else the default. */
function concurrencyOf(env: Environment, kind: ProviderKind, flag: number | undefined): number {
  const own = `GBR_${kind.toUpperCase()}_CONCURRENCY`;
  const name = env[own]?.trim() ? own : flag !== undefined ? "--concurrency" : "GBR_CONCURRENCY";
  const raw = name === "--concurrency" ? String(flag) : env[name]?.trim();
  if (!raw) return DEFAULT_CONCURRENCY[kind];
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1) throw usage(name, "a positive integer (requests in flight per endpoint)", raw);
  return n;
}

function capsOf(env: Environment, kind: ProviderKind): { caps?: RateCaps } {
  const read = (unit: string) => positiveNumber(env, `GBR_${kind.toUpperCase()}_${unit}`, "a positive number (per minute)");
  const requestsPerMinute = read("RPM");
  const tokensPerMinute = read("TPM");
  if (requestsPerMinute === undefined && tokensPerMinute === undefined) return {};
  return { caps: { ...(requestsPerMinute !== undefined ? { requestsPerMinute } : {}), ...(tokensPerMinute !== undefined ? { tokensPerMinute } : {}) } };
}

/** `name`'s number, above 0 and at most `max`; undefined when unset. */
function positiveNumber(env: Environment, name: string, what: string, max = Infinity): number | undefined {
  const raw = env[name]?.trim();
  if (!raw) return undefined;
  const n = Number(raw);
  if (!(Number.isFinite(n) && n > 0 && n <= max)) throw usage(name, what, raw);
  return n;
}

function flag(raw: string | undefined): boolean {
  return /^(1|true|yes)$/i.test((raw ?? "").trim());
}

function usage(name: string, what: string, raw: string): GbrError {
  return new GbrError(`${name} must be ${what}, got '${raw}'`, "USAGE");
}
