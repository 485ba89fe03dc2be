/** A Hub pull's repository (a dataset or a model), revision, endpoint, token and cache folder, resolved once from its options. */
import path from "node:path";
import type { DownloadOptions } from "../util/download";
import { DataError } from "../util/errors";
import { checkedBaseUrl } from "../util/http";

/** The paper's dataset on the Hugging Face Hub and its release (a tag). */
export const DEFAULT_REPO = "AUEB-NLP/greek-bar-bench";
export const DEFAULT_REVISION = "v2.0";

/** Config names in the dataset card, by role. */
export const HUB_CONFIGS = { corpus: "corpus", queries: "queries", qrels: "qrels", meta: "greekbarbench" } as const;

/** A pull's options (a configuration's `hub` fits): `cacheDir` defaults to <cacheRoot>[/models]/<owner>__<name>/<revision>. */
export interface PullOptions {
  repo?: string;
  revision?: string;
  endpoint?: string;
  /** Sent as `Authorization: Bearer`. Never logged, never written. */
  token?: string;
  cacheRoot?: string;
  cacheDir?: string;
  offline?: boolean;
  log?: (msg: string) => void;
  retry?: Pick<DownloadOptions, "attempts" | "backoffMs" | "timeoutMs">;
}

/** A pull's options with every default applied; the token as the header it is sent in. */
export interface HubSettings extends Required<Omit<PullOptions, "token" | "cacheRoot">> {
  headers: Record<string, string>;
  /** The Hub's URL segment for the repository's kind; its singular names the repository in messages. */
  kind: "datasets" | "models";
}

/** Resolves pull options, refusing what could climb out of a URL or the cache; a model's cache is under <cacheRoot>/models. */
export function hubSettings(opts: PullOptions, kind: HubSettings["kind"] = "datasets"): HubSettings {
  const repo = opts.repo ?? DEFAULT_REPO;
  const revision = opts.revision ?? DEFAULT_REVISION;
  if (!/^[\w.-]+\/[\w.-]+$/.test(repo) || repo.split("/").some((s) => s === "." || s === "..")) {
    throw new Error(`invalid ${kind.slice(0, -1)} repository '${repo}': expected owner/name`);
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
    kind,
    cacheDir: path.resolve(
      opts.cacheDir ?? path.join(opts.cacheRoot!, kind === "models" ? "models" : "", repo.replace(/\//g, "__"), revision.replace(/\//g, "__")),
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
