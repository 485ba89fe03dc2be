/** A Hub pull's dataset, revision, endpoint, token and cache folder, resolved once from options and env. */
import path from "node:path";
import { dataDir } from "../paths";
import type { DownloadOptions } from "../util/download";
import { DataError } from "../util/errors";
import type { ProgressFn } from "./progress-bar";
import { checkedBaseUrl } from "../util/http";
import { readConfig } from "../config";

/** The paper's dataset on the Hugging Face Hub. */
export const DEFAULT_REPO = "AUEB-NLP/greek-bar-bench";
/** The paper's release of the dataset (a tag of {@link DEFAULT_REPO}). */
export const DEFAULT_REVISION = "v2.0";

/** Config names in the dataset card, by role. */
export const HUB_CONFIGS = { corpus: "corpus", queries: "queries", qrels: "qrels", meta: "greekbarbench" } as const;

/** What a caller may say about a pull; everything has a default. */
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

/** A pull's options with every default applied (see {@link hubSettings}). */
export interface HubSettings {
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

/** Resolves pull options against the environment (HF_ENDPOINT, HF_TOKEN, HF_HUB_OFFLINE, GBR_DATA_DIR). */
export function hubSettings(opts: PullOptions): HubSettings {
  const repo = opts.repo ?? DEFAULT_REPO;
  const revision = opts.revision ?? DEFAULT_REVISION;
  // Repo and revision become parts of URLs and the cache path: refuse anything that could climb out.
  if (!/^[\w.-]+\/[\w.-]+$/.test(repo) || repo.split("/").some((s) => s === "." || s === "..")) {
    throw new Error(`invalid dataset repository '${repo}': expected owner/name`);
  }
  if (revision === "" || revision.split("/").some((s) => s === "" || s === "." || s === "..")) {
    throw new Error(`invalid revision '${revision}'`);
  }
  const hub = readConfig().hub;
  const token = opts.token ?? hub.token;
  return {
    repo,
    revision,
    endpoint: checkedBaseUrl(opts.endpoint ? "the Hub endpoint" : "HF_ENDPOINT", opts.endpoint ?? hub.endpoint, "HF_TOKEN").replace(/\/+$/, ""),
    headers: token ? { Authorization: `Bearer ${token}` } : {},
    cacheDir: path.resolve(
      opts.cacheDir ?? path.join(opts.cacheRoot ?? path.join(dataDir(), "hf"), repo.replace(/\//g, "__"), revision.replace(/\//g, "__")),
    ),
    offline: opts.offline ?? hub.offline,
    onProgress: opts.onProgress,
    log: opts.log ?? (() => {}),
    retry: opts.retry ?? {},
  };
}

/** Where a repository path lives in the cache; rejects paths that would escape it. */
export function localPath(cacheDir: string, repoPath: string): string {
  const parts = repoPath.split("/");
  if (path.isAbsolute(repoPath) || parts.some((s) => s === "" || s === "." || s === "..") || repoPath.includes("\\")) {
    throw new DataError(`unsafe repository path '${repoPath}'`);
  }
  return path.join(cacheDir, "files", ...parts);
}
