/** metadata.json's `llm` block, from the runs' own records: what ran (the default model too), not what was asked. */
import { loadPromptSet } from "../llm/prompts";
import { runInfos } from "./setup";
import type { RunInfo } from "../types";

/** The LLM metadata of a reproduce from its experiments' run records; null when no LLM ran. */
export function llmMetadata(
  infos: ReadonlyMap<string, RunInfo>,
  opts: { repeat?: number; seed?: number; replay?: string; replayFile?: string; promptsDir?: string } = {},
) {
  const llm = [...infos].flatMap(([id, info]) => runInfos(info).flatMap((i) => (i.llm ? [{ id, l: i.llm }] : [])));
  if (llm.length === 0) return null;
  const distinct = <T>(xs: T[]) => [...new Map(xs.map((x) => [JSON.stringify(x), x])).values()];
  const models = distinct(llm.map(({ l }) => ({ model: l.model, provider: l.provider, endpoint: l.endpoint })));
  // With several chat servers, per experiment: each endpoint's requests sent, answered and failed.
  const endpoints = Object.fromEntries(llm.flatMap(({ id, l }) => (l.endpoints ? [[id, l.endpoints] as const] : [])));
  const setName = llm[0].l.prompts.name;
  let prompts: Record<string, unknown> = { name: setName, commit: llm[0].l.prompts.commit };
  try {
    const set = loadPromptSet(setName === "official" ? "official" : "project", { cacheDir: opts.promptsDir });
    prompts = { name: set.name, source: set.source, commit: set.commit ?? null, sha256: set.sha256 };
  } catch {
    // The experiments ran, so the set loaded then; keep what the runs recorded if it cannot be read now.
  }
  const rounds = distinct([...infos.values()].flatMap((i) => (i.rounds !== undefined ? [i.rounds] : [])));
  const repeat = opts.repeat ?? 1;
  return {
    model: models.length === 1 ? models[0].model : models.map((m) => m.model),
    models,
    prompts,
    parser: distinct(llm.map(({ l }) => l.parser)).join(", "),
    replay: opts.replay ?? "use",
    replayFile: opts.replayFile ?? null,
    repeat,
    seed: repeat > 1 ? (opts.seed ?? 42) : null,
    rounds: rounds.length === 0 ? null : rounds.length === 1 ? rounds[0] : rounds,
    experiments: distinct(llm.map(({ id }) => id)),
    ...(Object.keys(endpoints).length ? { endpoints } : {}),
  };
}
