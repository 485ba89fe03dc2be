/**
 * The Hub protocol (test/fakes/hub-server.ts mirrors it): GET {endpoint}/api/datasets/{repo}/revision/{rev}?blobs=true
 * -> { sha, siblings: [{ rfilename, size, blobId, lfs? }] }; GET {endpoint}/datasets/{repo}/resolve/{sha}/{path}.
 * A model repository: /api/models/… and /{repo}/resolve/… (no prefix).
 */
import { createHash } from "node:crypto";
import { createReadStream, promises as fs } from "node:fs";
import os from "node:os";
import path from "node:path";
import { DownloadError, downloadFile } from "../util/download";
import { parsedOr } from "../util/errors";
import type { Manifest, ManifestFile } from "./hub-manifest";
import { localPath, type HubSettings } from "./hub-settings";

type Sibling = { rfilename: string; size?: number; blobId?: string; lfs?: { sha256?: string; oid?: string; size?: number } };

/** A revision resolved to a commit, and its files. */
export type RevisionInfo = { sha: string; siblings: Sibling[] };

/** Resolves the revision to a commit and its file list, via downloadFile (retries) into a temp folder. */
export async function fetchRevision(cfg: HubSettings): Promise<RevisionInfo> {
  const url = `${cfg.endpoint}/api/${cfg.kind}/${cfg.repo}/revision/${encodeURIComponent(cfg.revision)}?blobs=true`;
  const tmp = await fs.mkdtemp(path.join(os.tmpdir(), "gbr-hub-"));
  try {
    const { path: file } = await downloadFile(url, path.join(tmp, "revision.json"), { ...cfg.retry, headers: cfg.headers });
    const text = await fs.readFile(file, "utf8");
    const body = parsedOr(() => JSON.parse(text) as { sha?: unknown; siblings?: unknown }, (why) => new DownloadError(`${url}: the Hub answered with malformed JSON (${why})`, "HTTP"));
    if (!Array.isArray(body.siblings)) throw new DownloadError(`${url}: the answer has no 'siblings' file list`, "HTTP");
    const siblings = (body.siblings as Sibling[]).filter((s) => s && typeof s.rfilename === "string");
    return { sha: typeof body.sha === "string" && body.sha ? body.sha : cfg.revision, siblings };
  } finally {
    await fs.rm(tmp, { recursive: true, force: true });
  }
}

/** One file from the resolved commit (so a tag moved mid-pull cannot mix commits), checked against the Hub's hashes. */
export async function fetchVerified(cfg: HubSettings, info: RevisionInfo, repoPath: string): Promise<ManifestFile> {
  const dest = localPath(cfg.cacheDir, repoPath);
  const encoded = [info.sha, ...repoPath.split("/")].map(encodeURIComponent).join("/");
  const url = `${cfg.endpoint}/${cfg.kind === "models" ? "" : "datasets/"}${cfg.repo}/resolve/${encoded}`;
  const sibling = info.siblings.find((s) => s.rfilename === repoPath);
  const res = await downloadFile(url, dest, { ...cfg.retry, headers: cfg.headers });
  const problem = sibling ? await mismatch(dest, res, sibling) : "";
  if (problem) {
    await fs.rm(dest, { force: true });
    throw new DownloadError(`${url}: ${problem}; pull again to fetch it anew`, "INTEGRITY");
  }
  cfg.log(`hub: fetched ${repoPath} (${res.size} bytes)`);
  return { path: repoPath, size: res.size, sha256: res.sha256 };
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

/** The revision from the Hub, or undefined when a whole cache serves (offline, or the Hub unreachable or refusing); else
 *  the error saying why. `missing`: what the cache lacks. @example (await revisionOrCache(cfg, manifest, [])) ?? "use the cache" */
export async function revisionOrCache(cfg: HubSettings, cached: Manifest | undefined, missing: string[]): Promise<RevisionInfo | undefined> {
  const whole = cached !== undefined && missing.length === 0;
  const state = cached ? `the cache at ${cfg.cacheDir} is incomplete` : `there is no cache at ${cfg.cacheDir}`;
  if (cfg.offline) {
    if (whole) return undefined;
    throw offlineError(cfg, cached ? `${state} (${missing.join(", ")})` : state, "offline mode is on");
  }
  try {
    return await fetchRevision(cfg);
  } catch (err) {
    const reason = (err as Error).message;
    if (whole) return void cfg.log(`hub: cannot get ${cfg.repo}@${cfg.revision} (${reason}); using the verified cache at ${cfg.cacheDir}`);
    if (err instanceof DownloadError && err.code === "NETWORK") throw offlineError(cfg, state, `cannot reach ${cfg.endpoint} (${reason})`);
    throw explainHttp(err, cfg);
  }
}

/** The error for "no usable cache and no Hub": what is missing, why, and the ways on. */
function offlineError(cfg: HubSettings, cacheState: string, why: string): DownloadError {
  return new DownloadError(
    `cannot load ${cfg.repo}@${cfg.revision}: ${why} and ${cacheState}. ` +
      `Run once with access to a Hub (set HF_ENDPOINT to a reachable mirror if huggingface.co is blocked)` +
      (cfg.kind === "models" ? "." : `, or use --data sample for the bundled demo set.`),
    "OFFLINE",
    undefined,
    false,
    undefined,
    { brief: `${cfg.repo}@${cfg.revision}: ${why.replace(/ \(.*\)$/, "")}, and nothing usable is cached (HF_ENDPOINT sets a mirror)` },
  );
}

/** A Hub HTTP error with its likely cause (token for 401/403, repo or revision for 404); others as is. */
function explainHttp(err: unknown, cfg: HubSettings): unknown {
  if (!(err instanceof DownloadError) || err.code !== "HTTP") return err;
  const hint =
    err.status === 401 || err.status === 403
      ? cfg.kind === "models"
        ? "the Hub refused access: gated models (such as google's EmbeddingGemma) need HF_TOKEN set to a token of an account that accepted the model's licence on its page"
        : "the Hub refused access: set HF_TOKEN to a token that can read this dataset"
      : err.status === 404
        ? `no ${cfg.kind.slice(0, -1)} ${cfg.repo} with revision '${cfg.revision}' at ${cfg.endpoint}`
        : undefined;
  return hint ? new DownloadError(`${err.message} (${hint})`, "HTTP", err.status) : err;
}
