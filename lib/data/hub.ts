/**
 * The Hugging Face Hub loader: downloads the GreekBarRetrieval subsets of
 * AUEB-NLP/greek-bar-bench at a pinned revision, verifies and caches them, and turns them into
 * a Benchmark.
 *
 * Facts about the real dataset this relies on (from the authors' quickstart notebooks in
 * github.com/nlpaueb/greek-bar-bench): the retrieval data ships as the configs `corpus`
 * (`id`, `text`; 6,308 rows), `queries` (`id`, `text`; 257 rows) and `qrels` (`query-id`,
 * `corpus-id`, `score`, always 1), each with a single `test` split; query ids join on `id` to
 * the `greekbarbench` config, whose rows also carry `area`, `date` (exam session) and
 * `number` (question number), plus fields this loader ignores (facts, question, answer,
 * chapters, spans, articles). The card's earlier revisions held only `greekbarbench` and
 * `gbb-jme` as csv files, which is why a missing config is reported by name.
 *
 * Protocol (the subset of the Hub API used, mirrored by test/fakes/hub-server.ts):
 *   GET {endpoint}/api/datasets/{repo}/revision/{rev}?blobs=true  -> { sha, siblings: [{ rfilename, size, blobId, lfs? }] }
 *   GET {endpoint}/datasets/{repo}/resolve/{sha}/{path}           -> the file's bytes
 */
import { createHash } from "node:crypto";
import { createReadStream, promises as fs } from "node:fs";
import os from "node:os";
import path from "node:path";
import { dataDir } from "../paths";
import cliProgress from "cli-progress";
import YAML from "yaml";
import type { Benchmark, Doc, DocId, Query, QueryId, QueryMeta } from "../types";
import { writeBeir } from "./beir";
import { DownloadError, downloadFile, hashFile, type DownloadOptions } from "./download";
import { DataError } from "./errors";
import { readTable, type Table } from "./tabular";

export const DEFAULT_REPO = "AUEB-NLP/greek-bar-bench";
export const DEFAULT_REVISION = "v2.0";

/** Config names in the dataset card, by role. */
export const HUB_CONFIGS = { corpus: "corpus", queries: "queries", qrels: "qrels", meta: "greekbarbench" } as const;

/** One cached file: its path in the repository, and what it must hash to on disk. */
export interface ManifestFile {
  path: string;
  size: number;
  sha256: string;
}

/** What a pull fetched, so a later run can prove its cache is whole without the network. */
export interface Manifest {
  repo: string;
  /** The revision asked for (a tag such as v2.0, a branch or a commit). */
  revision: string;
  /** The commit the revision resolved to; every file was fetched from this commit. */
  sha: string;
  /** Config name -> repository paths of its chosen split, in reading order. */
  configs: Record<string, string[]>;
  files: ManifestFile[];
  fetchedAt: string;
  /** Only in a BEIR folder's manifest: checksums of the BEIR files written from the above. */
  beir?: ManifestFile[];
}

/** Bytes received so far for one repository file; `total` is undefined without a Content-Length. */
export type ProgressFn = (file: string, received: number, total: number | undefined) => void;

export interface PullOptions {
  /** Dataset repository (default AUEB-NLP/greek-bar-bench). */
  repo?: string;
  /** Tag, branch or commit (default v2.0, the paper's release). */
  revision?: string;
  /** Hub base URL (default HF_ENDPOINT, else https://huggingface.co). */
  endpoint?: string;
  /** Sent as `Authorization: Bearer`; default HF_TOKEN. Never logged, never written. */
  token?: string;
  /** Folder holding one cache per dataset and revision (default `<dataDir()>/hf`, which follows GBR_DATA_DIR). */
  cacheRoot?: string;
  /** This pull's cache; default <cacheRoot>/<owner>__<name>/<revision>. Wins over cacheRoot. */
  cacheDir?: string;
  /** Use only the verified cache (default: HF_HUB_OFFLINE set to 1/true). */
  offline?: boolean;
  onProgress?: ProgressFn;
  log?: (msg: string) => void;
  /** Retry policy of each HTTP request; tests shorten the backoff. */
  retry?: Pick<DownloadOptions, "attempts" | "backoffMs" | "timeoutMs">;
}

export interface PullResult {
  benchmark: Benchmark;
  /** The cache folder (raw files under files/, manifest.json). */
  dir: string;
  /** The same benchmark as a BEIR folder, readable with `--data <beirDir>`. */
  beirDir: string;
  manifest: Manifest;
}

interface Settings {
  repo: string;
  revision: string;
  endpoint: string;
  headers: Record<string, string>;
  cacheDir: string;
  offline: boolean;
  onProgress?: ProgressFn;
  log: (msg: string) => void;
  retry: Pick<DownloadOptions, "attempts" | "backoffMs" | "timeoutMs">;
}

interface Sibling {
  rfilename: string;
  size?: number;
  blobId?: string;
  lfs?: { sha256?: string; oid?: string; size?: number };
}

interface RevisionInfo {
  sha: string;
  siblings: Sibling[];
}

/** How many times a file whose bytes fail the Hub's checksum is fetched before giving up. */
const INTEGRITY_ATTEMPTS = 3;

/**
 * Downloads (or reuses from the verified cache) the benchmark at a pinned revision and returns
 * it with the manifest that proves what was read. A cached file whose size or sha256 no
 * longer matches the manifest is reported through `log` and fetched again; with no network
 * the verified cache is used as is, and without one the error says how to proceed.
 *
 * @example
 * const { benchmark, manifest } = await pullHub({ log: console.error, onProgress: progressBar().onProgress });
 * console.log(benchmark.docs.length, manifest.sha);
 */
export async function pullHub(opts: PullOptions = {}): Promise<PullResult> {
  const cfg = settings(opts);
  const cached = await inspectCache(cfg);
  const whole = cached !== undefined && cached.bad.size === 0;

  if (cfg.offline) {
    if (whole) return finish(cfg, cached.manifest, false);
    throw offlineError(cfg, cached ? `the cache at ${cfg.cacheDir} is incomplete (${[...cached.bad].join(", ")})` : `there is no cache at ${cfg.cacheDir}`, "offline mode is on");
  }

  let info: RevisionInfo;
  try {
    info = await fetchRevision(cfg);
  } catch (err) {
    const reason = (err as Error).message;
    if (whole) {
      cfg.log(`hub: cannot get ${cfg.repo}@${cfg.revision} (${reason}); using the verified cache at ${cfg.cacheDir}`);
      return finish(cfg, cached.manifest, false);
    }
    if (err instanceof DownloadError && err.code === "NETWORK") {
      throw offlineError(cfg, cached ? `the cache at ${cfg.cacheDir} is incomplete` : `there is no cache at ${cfg.cacheDir}`, `cannot reach ${cfg.endpoint} (${reason})`);
    }
    throw explainHttp(err, cfg);
  }

  // A file is reused when it verified and either comes from the same commit or its content
  // hash equals what the Hub now reports for it (an unchanged LFS file across commits).
  const reusable = new Map<string, ManifestFile>();
  if (cached) {
    const sameCommit = cached.manifest.sha === info.sha;
    const byPath = new Map(info.siblings.map((s) => [s.rfilename, s]));
    for (const f of cached.manifest.files) {
      if (cached.bad.has(f.path)) continue;
      const lfs = byPath.get(f.path)?.lfs;
      if (sameCommit || (lfs && (lfs.sha256 ?? lfs.oid) === f.sha256)) reusable.set(f.path, f);
    }
  }

  let fetchedAny = false;
  const files = new Map<string, ManifestFile>();
  const ensure = async (p: string) => {
    if (files.has(p)) return;
    const reused = reusable.get(p);
    if (reused) {
      files.set(p, reused);
      return;
    }
    files.set(p, await fetchVerified(cfg, info, p));
    fetchedAny = true;
  };

  if (!info.siblings.some((s) => s.rfilename === "README.md")) {
    throw new DataError(`the repository ${cfg.repo}@${cfg.revision} has no dataset card (README.md), so its configs are unknown`, "README.md");
  }
  await ensure("README.md");
  const cardFile = localPath(cfg.cacheDir, "README.md");
  const card = parseCard(await fs.readFile(cardFile, "utf8"), cardFile);
  const configs: Record<string, string[]> = {};
  for (const role of Object.keys(HUB_CONFIGS) as (keyof typeof HUB_CONFIGS)[]) {
    const name = HUB_CONFIGS[role];
    const specs = card.get(name);
    if (!specs) {
      if (role === "meta") {
        cfg.log(`hub: the dataset card has no '${name}' config; queries will carry no area/date/number`);
        continue;
      }
      throw new DataError(
        `the dataset card of ${cfg.repo}@${cfg.revision} has no '${name}' config (it has: ${[...card.keys()].join(", ") || "none"}); is this the right revision?`,
        cardFile,
      );
    }
    configs[name] = resolveDataFiles(name, specs, info.siblings, cardFile);
  }
  for (const paths of Object.values(configs)) for (const p of paths) await ensure(p);

  const manifest: Manifest = {
    repo: cfg.repo,
    revision: cfg.revision,
    sha: info.sha,
    configs,
    files: [...files.values()],
    fetchedAt: new Date().toISOString(),
  };
  await writeJsonAtomic(path.join(cfg.cacheDir, "manifest.json"), manifest);
  return finish(cfg, manifest, fetchedAny);
}

/**
 * `gbr data pull --dir D`: pulls through the cache, then writes exactly a BEIR folder at `dir`
 * (corpus.jsonl, queries.jsonl, qrels/test.tsv, meta.jsonl when the card has metadata) plus
 * its manifest.json, so `--data D` reads the same benchmark back without the raw files.
 *
 * @example
 * await pullHubToDir("data/gbr-v2.0", { log: console.error });
 * // later: gbr search --data data/gbr-v2.0 --retriever bm25-greekstemmer
 */
export async function pullHubToDir(dir: string, opts: PullOptions = {}): Promise<PullResult> {
  const result = await pullHub(opts);
  const out = path.resolve(dir);
  await writeBeirFolder(out, result.benchmark, result.manifest);
  return { ...result, dir: out, beirDir: out };
}

/**
 * A stderr progress display for `onProgress`, silent unless stderr is a terminal and CI is
 * unset, so that scripts, logs and tests never receive control characters. `log` prints
 * above the bars instead of through them.
 *
 * @example
 * const bar = progressBar();
 * try { await pullHub({ onProgress: bar.onProgress, log: bar.log }); } finally { bar.stop(); }
 */
export function progressBar(stream: NodeJS.WriteStream = process.stderr): {
  onProgress: ProgressFn;
  log: (msg: string) => void;
  stop: () => void;
} {
  if (!stream.isTTY || process.env.CI) {
    return { onProgress: () => {}, log: (msg) => void stream.write(`${msg}\n`), stop: () => {} };
  }
  const multi = new cliProgress.MultiBar(
    { stream, format: "{file} |{bar}| {percentage}% {value}/{total} bytes", hideCursor: true, clearOnComplete: false },
    cliProgress.Presets.shades_classic,
  );
  const bars = new Map<string, cliProgress.SingleBar>();
  return {
    onProgress(file, received, total) {
      let bar = bars.get(file);
      if (!bar) bars.set(file, (bar = multi.create(total ?? 0, 0, { file })));
      if (total !== undefined) bar.setTotal(total);
      bar.update(received, { file });
    },
    log: (msg) => multi.log(`${msg}\n`),
    stop: () => multi.stop(),
  };
}

// ---------------------------------------------------------------------------------------------
// Settings, cache and transfer

function settings(opts: PullOptions): Settings {
  const repo = opts.repo ?? DEFAULT_REPO;
  const revision = opts.revision ?? DEFAULT_REVISION;
  // The repo name becomes part of URLs and of the cache path: refuse anything that could
  // climb out of either.
  if (!/^[\w.-]+\/[\w.-]+$/.test(repo) || repo.split("/").some((s) => s === "." || s === "..")) {
    throw new Error(`invalid dataset repository '${repo}': expected owner/name`);
  }
  if (revision === "" || revision.split("/").some((s) => s === "" || s === "." || s === "..")) {
    throw new Error(`invalid revision '${revision}'`);
  }
  const token = opts.token ?? process.env.HF_TOKEN;
  const offlineEnv = /^(1|true|yes)$/i.test(process.env.HF_HUB_OFFLINE ?? "");
  return {
    repo,
    revision,
    endpoint: (opts.endpoint ?? process.env.HF_ENDPOINT ?? "https://huggingface.co").replace(/\/+$/, ""),
    headers: token ? { Authorization: `Bearer ${token}` } : {},
    cacheDir: path.resolve(
      opts.cacheDir ?? path.join(opts.cacheRoot ?? path.join(dataDir(), "hf"), repo.replace(/\//g, "__"), revision.replace(/\//g, "__")),
    ),
    offline: opts.offline ?? offlineEnv,
    onProgress: opts.onProgress,
    log: opts.log ?? (() => {}),
    retry: opts.retry ?? {},
  };
}

/** Where a repository path lives in the cache; rejects paths that would escape it. */
function localPath(cacheDir: string, repoPath: string): string {
  const parts = repoPath.split("/");
  if (path.isAbsolute(repoPath) || parts.some((s) => s === "" || s === "." || s === "..") || repoPath.includes("\\")) {
    throw new DataError(`unsafe repository path '${repoPath}'`);
  }
  return path.join(cacheDir, "files", ...parts);
}

/** The cached manifest with the paths that failed verification (missing, wrong size or hash). */
async function inspectCache(cfg: Settings): Promise<{ manifest: Manifest; bad: Set<string> } | undefined> {
  const file = path.join(cfg.cacheDir, "manifest.json");
  let manifest: Manifest;
  try {
    manifest = JSON.parse(await fs.readFile(file, "utf8")) as Manifest;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "ENOENT") cfg.log(`hub: ignoring unreadable ${file} (${(err as Error).message})`);
    return undefined;
  }
  if (manifest.repo !== cfg.repo || manifest.revision !== cfg.revision || !Array.isArray(manifest.files) || !manifest.configs) {
    cfg.log(`hub: ${file} describes another dataset or is malformed; ignoring it`);
    return undefined;
  }
  const bad = new Set<string>();
  for (const f of manifest.files) {
    const problem = await verifyCached(localPath(cfg.cacheDir, f.path), f);
    if (problem) {
      bad.add(f.path);
      cfg.log(`hub: cached ${f.path} ${problem}${cfg.offline ? "" : "; fetching it again"}`);
    }
  }
  const listed = new Set(manifest.files.map((f) => f.path));
  for (const paths of Object.values(manifest.configs)) {
    for (const p of paths) if (!listed.has(p)) bad.add(p);
  }
  return { manifest, bad };
}

async function verifyCached(file: string, expected: ManifestFile): Promise<string | undefined> {
  let size: number;
  try {
    size = (await fs.stat(file)).size;
  } catch {
    return "is missing";
  }
  // A size check first: it catches truncation without reading the whole file.
  if (size !== expected.size) return `is ${size} bytes, the manifest says ${expected.size} (truncated or replaced)`;
  const { sha256 } = await hashFile(file);
  if (sha256 !== expected.sha256) return "is corrupted (sha256 differs from the manifest)";
  return undefined;
}

function fileUrl(cfg: Settings, rev: string, repoPath: string): string {
  return `${cfg.endpoint}/datasets/${cfg.repo}/resolve/${encodeURIComponent(rev)}/${repoPath.split("/").map(encodeURIComponent).join("/")}`;
}

/**
 * Resolves the revision to a commit and lists its files with sizes and checksums. The JSON goes
 * through downloadFile for its retries, into a temporary folder so a failed call leaves no
 * trace in the cache.
 */
async function fetchRevision(cfg: Settings): Promise<RevisionInfo> {
  const url = `${cfg.endpoint}/api/datasets/${cfg.repo}/revision/${encodeURIComponent(cfg.revision)}?blobs=true`;
  const tmp = await fs.mkdtemp(path.join(os.tmpdir(), "gbr-hub-"));
  try {
    const { path: file } = await downloadFile(url, path.join(tmp, "revision.json"), { ...cfg.retry, headers: cfg.headers });
    let body: { sha?: unknown; siblings?: unknown };
    try {
      body = JSON.parse(await fs.readFile(file, "utf8"));
    } catch (err) {
      throw new DownloadError(`${url}: the Hub answered with malformed JSON (${(err as Error).message})`, "HTTP");
    }
    if (!Array.isArray(body.siblings)) throw new DownloadError(`${url}: the answer has no 'siblings' file list`, "HTTP");
    const siblings = (body.siblings as Sibling[]).filter((s) => s && typeof s.rfilename === "string");
    return { sha: typeof body.sha === "string" && body.sha ? body.sha : cfg.revision, siblings };
  } finally {
    await fs.rm(tmp, { recursive: true, force: true });
  }
}

/**
 * Downloads one file from the resolved commit (so a tag moved mid-pull cannot mix commits)
 * and checks it against what the Hub lists: sha256 for LFS files, the git blob id for small
 * files, the size otherwise. downloadFile already retries dropped and short bodies; this
 * loop adds retries for bytes that arrive whole but wrong.
 */
async function fetchVerified(cfg: Settings, info: RevisionInfo, repoPath: string): Promise<ManifestFile> {
  const dest = localPath(cfg.cacheDir, repoPath);
  const url = fileUrl(cfg, info.sha, repoPath);
  const sibling = info.siblings.find((s) => s.rfilename === repoPath);
  let problem = "";
  for (let attempt = 1; attempt <= INTEGRITY_ATTEMPTS; attempt++) {
    const res = await downloadFile(url, dest, {
      ...cfg.retry,
      headers: cfg.headers,
      onProgress: cfg.onProgress && ((received, total) => cfg.onProgress!(repoPath, received, total)),
    });
    problem = sibling ? await mismatch(dest, res, sibling) : "";
    if (!problem) {
      cfg.log(`hub: fetched ${repoPath} (${res.size} bytes)`);
      return { path: repoPath, size: res.size, sha256: res.sha256 };
    }
    cfg.log(`hub: ${repoPath} ${problem}${attempt < INTEGRITY_ATTEMPTS ? "; fetching it again" : ""}`);
    await fs.rm(dest, { force: true });
  }
  throw new DownloadError(`${url}: ${problem} after ${INTEGRITY_ATTEMPTS} attempts`, "INTEGRITY");
}

async function mismatch(file: string, got: { size: number; sha256: string }, s: Sibling): Promise<string> {
  const lfsSha = s.lfs?.sha256 ?? s.lfs?.oid;
  const size = s.lfs?.size ?? s.size;
  if (typeof size === "number" && size !== got.size) return `arrived with ${got.size} bytes, the Hub lists ${size}`;
  if (lfsSha) return lfsSha === got.sha256 ? "" : "arrived corrupted (sha256 differs from the Hub's)";
  if (s.blobId && /^[0-9a-f]{40}$/.test(s.blobId)) {
    return (await gitBlobSha1(file, got.size)) === s.blobId ? "" : "arrived corrupted (git blob id differs from the Hub's)";
  }
  return "";
}

/** The id git gives a file's content; the Hub lists it for files not stored in LFS. */
async function gitBlobSha1(file: string, size: number): Promise<string> {
  const hash = createHash("sha1").update(`blob ${size}\0`);
  for await (const chunk of createReadStream(file)) hash.update(chunk as Buffer);
  return hash.digest("hex");
}

function offlineError(cfg: Settings, cacheState: string, why: string): DownloadError {
  return new DownloadError(
    `cannot load ${cfg.repo}@${cfg.revision}: ${why} and ${cacheState}. ` +
      `Run once with access to a Hub (set HF_ENDPOINT to a reachable mirror if huggingface.co is blocked), ` +
      `or use --data sample for the bundled demo set.`,
    "OFFLINE",
  );
}

function explainHttp(err: unknown, cfg: Settings): unknown {
  if (!(err instanceof DownloadError) || err.code !== "HTTP") return err;
  const hint =
    err.status === 401 || err.status === 403
      ? "the Hub refused access: set HF_TOKEN to a token that can read this dataset"
      : err.status === 404
        ? `no dataset ${cfg.repo} with revision '${cfg.revision}' at ${cfg.endpoint}`
        : undefined;
  return hint ? new DownloadError(`${err.message} (${hint})`, "HTTP", err.status) : err;
}

async function writeJsonAtomic(file: string, value: unknown): Promise<void> {
  await fs.mkdir(path.dirname(file), { recursive: true });
  const tmp = `${file}.tmp-${process.pid}`;
  await fs.writeFile(tmp, JSON.stringify(value, null, 2) + "\n");
  await fs.rename(tmp, file);
}

/** Builds the benchmark from cached files and refreshes the cache's BEIR copy when stale. */
async function finish(cfg: Settings, manifest: Manifest, changed: boolean): Promise<PullResult> {
  const benchmark = await buildBenchmark(cfg, manifest);
  const beirDir = path.join(cfg.cacheDir, "beir");
  if (changed || !(await beirIsCurrent(beirDir, manifest))) await writeBeirFolder(beirDir, benchmark, manifest);
  return { benchmark, dir: cfg.cacheDir, beirDir, manifest };
}

async function beirIsCurrent(dir: string, manifest: Manifest): Promise<boolean> {
  try {
    const prev = JSON.parse(await fs.readFile(path.join(dir, "manifest.json"), "utf8")) as Manifest;
    if (prev.sha !== manifest.sha || JSON.stringify(prev.files) !== JSON.stringify(manifest.files) || !prev.beir) return false;
    for (const f of prev.beir) if (await verifyCached(path.join(dir, ...f.path.split("/")), f)) return false;
    return true;
  } catch {
    return false;
  }
}

/** writeBeir plus a manifest that records the source commit and the BEIR files' checksums. */
async function writeBeirFolder(dir: string, b: Benchmark, manifest: Manifest): Promise<void> {
  // writeBeir skips meta.jsonl when there is no metadata; a stale one must not survive.
  if (b.meta.size === 0) await fs.rm(path.join(dir, "meta.jsonl"), { force: true });
  await writeBeir(dir, b);
  const written = ["corpus.jsonl", "queries.jsonl", "qrels/test.tsv", ...(b.meta.size > 0 ? ["meta.jsonl"] : [])];
  const beir: ManifestFile[] = [];
  for (const p of written) beir.push({ path: p, ...(await hashFile(path.join(dir, ...p.split("/")))) });
  await writeJsonAtomic(path.join(dir, "manifest.json"), { ...manifest, beir });
}

// ---------------------------------------------------------------------------------------------
// Dataset card

/** A config's data files for one split, as written in the card (paths or globs). */
interface SplitSpec {
  split: string;
  patterns: string[];
}

/**
 * The `configs` of a dataset card's YAML front matter, normalised: config name -> splits.
 * `data_files` may be a path, a list of paths, a list of `{split, path}` (path a string or a
 * list), or a `{split: path}` map, as the `datasets` library accepts; bare paths form the
 * split `train`, as there.
 *
 * @example
 * parseCard("---\nconfigs:\n- config_name: corpus\n  data_files: corpus.jsonl\n---\n").get("corpus");
 * // [{ split: "train", patterns: ["corpus.jsonl"] }]
 */
export function parseCard(text: string, file = "README.md"): Map<string, SplitSpec[]> {
  const src = text.replace(/^\uFEFF/, "").replace(/\r\n?/g, "\n");
  const m = /^---\n([\s\S]*?)\n---(?:\n|$)/.exec(src);
  if (!m) throw new DataError("the dataset card has no YAML front matter (--- ... ---)", file, 1);
  let meta: unknown;
  try {
    meta = YAML.parse(m[1]);
  } catch (err) {
    throw new DataError(`malformed YAML front matter (${(err as Error).message})`, file);
  }
  const configs = (meta as { configs?: unknown } | null)?.configs;
  if (!Array.isArray(configs)) throw new DataError("the front matter has no 'configs' list", file);
  const out = new Map<string, SplitSpec[]>();
  for (const c of configs as Record<string, unknown>[]) {
    const name = c?.config_name;
    if (typeof name !== "string") throw new DataError("a config has no 'config_name'", file);
    out.set(name, normaliseDataFiles(c.data_files, name, file));
  }
  return out;
}

function normaliseDataFiles(df: unknown, config: string, file: string): SplitSpec[] {
  const bad = () => new DataError(`config '${config}': data_files has an unexpected shape: ${JSON.stringify(df)}`, file);
  const paths = (p: unknown): string[] => {
    if (typeof p === "string") return [p];
    if (Array.isArray(p) && p.every((x) => typeof x === "string")) return p as string[];
    throw bad();
  };
  if (typeof df === "string") return [{ split: "train", patterns: [df] }];
  if (Array.isArray(df)) {
    if (df.every((x) => typeof x === "string")) return [{ split: "train", patterns: df as string[] }];
    return df.map((entry) => {
      if (!entry || typeof entry !== "object" || typeof (entry as { split?: unknown }).split !== "string") throw bad();
      const e = entry as { split: string; path?: unknown };
      return { split: e.split, patterns: paths(e.path) };
    });
  }
  if (df && typeof df === "object") return Object.entries(df).map(([split, p]) => ({ split, patterns: paths(p) }));
  throw bad();
}

/**
 * The repository files of a config: the `test` split (the benchmark's only one), or the sole
 * split when there is exactly one. Globs follow fsspec: `*` and `?` stay within one folder,
 * `**` crosses folders; matches are sorted by path so sharded files keep their shard order.
 *
 * @example
 * resolveDataFiles("corpus", [{ split: "test", patterns: ["data/corpus-*.parquet"] }],
 *   [{ rfilename: "data/corpus-00001.parquet" }, { rfilename: "data/corpus-00000.parquet" }]);
 * // ["data/corpus-00000.parquet", "data/corpus-00001.parquet"]
 */
export function resolveDataFiles(config: string, specs: SplitSpec[], siblings: { rfilename: string }[], file = "README.md"): string[] {
  const spec = specs.find((s) => s.split === "test") ?? (specs.length === 1 ? specs[0] : undefined);
  if (!spec) {
    throw new DataError(`config '${config}' has no 'test' split (splits: ${specs.map((s) => s.split).join(", ")})`, file);
  }
  const names = siblings.map((s) => s.rfilename).sort();
  const out: string[] = [];
  for (const raw of spec.patterns) {
    const pattern = raw.replace(/^\.\//, "");
    const matches = isGlob(pattern) ? names.filter((n) => globToRegExp(pattern).test(n)) : names.filter((n) => n === pattern);
    if (matches.length === 0) {
      throw new DataError(`config '${config}' names '${raw}', which matches no file of the repository at this revision`, file);
    }
    for (const n of matches) if (!out.includes(n)) out.push(n);
  }
  return out;
}

function isGlob(p: string): boolean {
  return /[*?[]/.test(p);
}

function globToRegExp(glob: string): RegExp {
  let re = "";
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i];
    if (c === "*") {
      if (glob[i + 1] === "*") {
        i++;
        if (glob[i + 1] === "/") {
          i++;
          re += "(?:.*/)?";
        } else re += ".*";
      } else re += "[^/]*";
    } else if (c === "?") re += "[^/]";
    else if (c === "[") {
      const end = glob.indexOf("]", i + 1);
      if (end < 0) re += "\\[";
      else {
        const body = glob.slice(i + 1, end).replace(/^!/, "^").replace(/\\/g, "\\\\");
        re += `[${body}]`;
        i = end;
      }
    } else re += c.replace(/[.+^${}()|\\\]]/g, "\\$&");
  }
  return new RegExp(`^${re}$`);
}

// ---------------------------------------------------------------------------------------------
// Rows -> Benchmark

async function buildBenchmark(cfg: Settings, manifest: Manifest): Promise<Benchmark> {
  const tables = async (config: string) =>
    Promise.all((manifest.configs[config] ?? []).map((p) => readTable(localPath(cfg.cacheDir, p))));

  const docs = toItems(await tables(HUB_CONFIGS.corpus), "corpus", true);
  const queries = toItems(await tables(HUB_CONFIGS.queries), "queries", false);
  const qrelTables = await tables(HUB_CONFIGS.qrels);
  const qrels = toQrels(qrelTables, docs.items, queries.items);

  for (const q of queries.items) {
    if (!qrels.has(q.id)) {
      const at = queries.where.get(q.id)!;
      throw new DataError(
        `query '${q.id}' has no relevant article in ${qrelTables.map((t) => t.file).join(", ")}`,
        at.table.file,
        at.table.lineOf(at.i),
      );
    }
  }
  const meta = manifest.configs[HUB_CONFIGS.meta]
    ? toMeta(await tables(HUB_CONFIGS.meta), new Set(queries.items.map((q) => q.id)), cfg.log)
    : new Map<QueryId, QueryMeta>();

  return { name: manifest.repo, revision: manifest.revision, docs: docs.items, queries: queries.items, qrels, meta };
}

function fail(t: Table, i: number, detail: string): never {
  throw new DataError(`${detail} (${t.describe(i)})`, t.file, t.lineOf(i));
}

function field(t: Table, i: number, names: string[], what: string): unknown {
  const row = t.rows[i];
  for (const n of names) if (row[n] !== undefined && row[n] !== null) return row[n];
  return fail(t, i, `missing ${what} field ${names.map((n) => `"${n}"`).join(" or ")}`);
}

function idOf(t: Table, i: number, names: string[], what = "id"): string {
  const v = field(t, i, names, what);
  if (typeof v !== "string" && typeof v !== "number" && typeof v !== "bigint") fail(t, i, `${what} is not a string or number`);
  const id = String(v);
  // Ids end up in whitespace-separated run files and tab-separated qrels.
  if (id === "" || /\s/.test(id)) fail(t, i, `${what} '${id}' is empty or contains whitespace`);
  return id;
}

/**
 * Docs or queries, in file order. Text is the `text` field verbatim: the paper indexes it so,
 * and prepending a `title` would change every BM25 score. A corpus row without `text` falls
 * back to its `title`, so title-only passages are not lost.
 */
function toItems(tables: Table[], what: string, titleFallback: boolean) {
  const items: { id: string; text: string }[] = [];
  const where = new Map<string, { table: Table; i: number }>();
  for (const t of tables) {
    for (let i = 0; i < t.rows.length; i++) {
      const id = idOf(t, i, ["id", "_id"]);
      const row = t.rows[i];
      let text = row.text;
      if ((text === undefined || text === null) && titleFallback && typeof row.title === "string") text = row.title;
      if (text === undefined || text === null) fail(t, i, `missing field "text" for ${what} id '${id}'`);
      if (typeof text !== "string") fail(t, i, `field "text" of ${what} id '${id}' is not a string`);
      if (text.trim() === "") fail(t, i, `empty text for ${what} id '${id}'`);
      const first = where.get(id);
      if (first) fail(t, i, `duplicate ${what} id '${id}' (first at ${first.table.file}, ${first.table.describe(first.i)})`);
      where.set(id, { table: t, i });
      items.push({ id, text });
    }
  }
  return { items, where };
}

function toQrels(tables: Table[], docs: Doc[], queries: Query[]): Map<QueryId, Set<DocId>> {
  const docIds = new Set(docs.map((d) => d.id));
  const queryIds = new Set(queries.map((q) => q.id));
  const pairs = new Map<QueryId, Set<DocId>>();
  for (const t of tables) {
    for (let i = 0; i < t.rows.length; i++) {
      const qid = idOf(t, i, ["query-id", "query_id"], "query id");
      const did = idOf(t, i, ["corpus-id", "corpus_id"], "corpus id");
      const raw = field(t, i, ["score"], "relevance");
      const score = typeof raw === "number" ? raw : typeof raw === "string" && raw.trim() !== "" ? Number(raw) : NaN;
      if (!Number.isFinite(score)) fail(t, i, `score ${JSON.stringify(raw)} is not a number`);
      if (!queryIds.has(qid)) fail(t, i, `qrels name query '${qid}', which is not in the queries config`);
      if (!docIds.has(did)) fail(t, i, `qrels name article '${did}', which is not in the corpus config`);
      if (score <= 0) continue;
      let set = pairs.get(qid);
      if (!set) pairs.set(qid, (set = new Set()));
      set.add(did);
    }
  }
  // Map order follows the queries, so anything that iterates qrels sees the benchmark's order.
  const ordered = new Map<QueryId, Set<DocId>>();
  for (const q of queries) if (pairs.has(q.id)) ordered.set(q.id, pairs.get(q.id)!);
  return ordered;
}

/**
 * Area, exam session and question number per query, from the `greekbarbench` rows. That
 * config also holds questions outside the retrieval subset (held-out 2024 exams), so rows
 * that match no query are counted and skipped rather than rejected.
 */
function toMeta(tables: Table[], queryIds: Set<string>, log: (msg: string) => void): Map<QueryId, QueryMeta> {
  const meta = new Map<QueryId, QueryMeta>();
  let unmatched = 0;
  for (const t of tables) {
    for (let i = 0; i < t.rows.length; i++) {
      const row = t.rows[i];
      const id = idOf(t, i, ["id", "_id"]);
      for (const key of ["area", "date", "number"]) if (!(key in row)) fail(t, i, `missing field "${key}" for id '${id}'`);
      if (!queryIds.has(id)) {
        unmatched++;
        continue;
      }
      if (meta.has(id)) fail(t, i, `duplicate id '${id}'`);
      const m: QueryMeta = {};
      if (present(row.area)) m.area = String(row.area).trim();
      if (present(row.date)) m.date = row.date instanceof Date ? row.date.toISOString().slice(0, 10) : String(row.date).trim();
      if (present(row.number)) {
        const n = Number(row.number);
        if (!Number.isFinite(n)) fail(t, i, `number ${JSON.stringify(row.number)} of id '${id}' is not a number`);
        m.number = n;
      }
      meta.set(id, m);
    }
  }
  if (unmatched > 0) log(`hub: ${unmatched} ${HUB_CONFIGS.meta} rows match no query of the retrieval subset; skipped`);
  return meta;
}

function present(v: unknown): boolean {
  return v !== undefined && v !== null && !(typeof v === "string" && v.trim() === "") && !(typeof v === "number" && Number.isNaN(v));
}
