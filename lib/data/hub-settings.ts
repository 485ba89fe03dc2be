/** A Hub pull's dataset, revision, endpoint, token and cache folder, resolved once from its options. */
import path from "node:path";
import type { DownloadOptions } from "../util/download";
import { DataError } from "../util/errors";
import { checkedBaseUrl } from "../util/http";

/** The paper's dataset on the Hugging Face Hub. */
export const DEFAULT_REPO = "AUEB-NLP/greek-bar-bench";
/** The paper's release of the dataset (a tag of {@link DEFAULT_REPO}). */
export const DEFAULT_REVISION = "v2.0";

/** Config names in the dataset card, by role. */
export const HUB_CONFIGS = { corpus: "corpus", queries: "queries", qrels: "qrels", meta: "greekbarbench" } as const;

/** What a caller says about a pull; a configuration's `hub` (HF_ENDPOINT, HF_TOKEN, HF_HUB_OFFLINE) fits in it. */
export interface PullOptions {
  /** Dataset repository (default AUEB-NLP/greek-bar-bench). */
  repo?: string;
  /** Tag, branch or commit (default v2.0, the paper's release). */
  revision?: string;
  /** Hub base URL (default https://huggingface.co). */
  endpoint?: string;
  /** Sent as `Authorization: Bearer`. Never logged, never written. */
  token?: string;
  /** Folder holding one cache per dataset and revision (`<dataDir>/hf`); needed without `cacheDir`. */
  cacheRoot?: string;
  /** This pull's cache; default <cacheRoot>/<owner>__<name>/<revision>. Wins over cacheRoot. */
  cacheDir?: string;
  /** Use only the verified cache. */
  offline?: boolean;
  log?: (msg: string) => void;
  /** Retry policy of each HTTP request; tests shorten the backoff. */
  retry?: Pick<DownloadOptions, "attempts" | "backoffMs" | "timeoutMs">;
}

/** A pull's options with every default applied (see {@link hubSettings}); the token as the header it is sent in. */
export interface HubSettings extends Required<Omit<PullOptions, "token" | "cacheRoot">> {
  headers: Record<string, string>;
}

/** Resolves pull options, refusing what could climb out of a URL or the cache. */
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
  if (opts.cacheDir === undefined && opts.cacheRoot === undefined) throw new Error("a Hub pull needs cacheDir or cacheRoot (<data folder>/hf)");
  return {
    repo,
    revision,
    endpoint: checkedBaseUrl("HF_ENDPOINT", opts.endpoint ?? "https://huggingface.co", "HF_TOKEN").replace(/\/+$/, ""),
    headers: opts.token ? { Authorization: `Bearer ${opts.token}` } : {},
    cacheDir: path.resolve(
      opts.cacheDir ?? path.join(opts.cacheRoot!, repo.replace(/\//g, "__"), revision.replace(/\//g, "__")),
    ),
    offline: opts.offline ?? false,
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
