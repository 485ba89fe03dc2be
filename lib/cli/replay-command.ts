/** `gbr replay export` and `gbr replay import`: the store's chat answers as a JSONL file, and back. */
import { CliError, type Command, type Io } from "./args";
import { logger, quietOption, warner } from "./options";
import type { Config } from "../config";
import { exportReplay, mergeReplay, openReplayCache } from "../store";

async function replayCacheOf(io: Io, quiet: unknown, config: Config) {
  return openReplayCache({ dataDir: config.dataDir, replayFile: config.replayFile, log: logger(io, quiet) ?? (() => {}) });
}

export const replayExport: Command = {
  spec: {
    name: "replay export",
    summary: "Write the store's chat answers as one key-sorted JSONL file, to hand a run's calls to someone else.",
    usage: "replay export --file FILE [--model NAME]",
    options: { file: { type: "string" }, model: { type: "string" }, ...quietOption },
    help: [
      "--file FILE    the JSONL file to write (one chat record a line, in key order)",
      "--model NAME   only the answers of this model (as the server knows it, e.g. openai/gpt-oss-120b)",
    ],
  },
  async run(values, io, config) {
    if (typeof values.file !== "string") throw new CliError("gbr replay export: give the file to write (--file FILE)", 2);
    const model = values.model as string | undefined;
    const r = await exportReplay(await replayCacheOf(io, values.quiet, config()), values.file, model === undefined ? undefined : (rec) => rec.model === model);
    io.stdout(`${r.records} chat answers -> ${r.file}\n`);
  },
};

export const replayImport: Command = {
  spec: {
    name: "replay import",
    summary: "Add the chat answers of a JSONL file (an export, or a v0.8 replay file) to the store; its own answers are kept.",
    usage: "replay import --file FILE",
    options: { file: { type: "string" }, ...quietOption },
    help: ["--file FILE    a file 'gbr replay export' wrote, or a v0.8 llm-calls.jsonl; damaged lines are reported and skipped"],
  },
  async run(values, io, config) {
    if (typeof values.file !== "string") throw new CliError("gbr replay import: give the file to read (--file FILE)", 2);
    const cache = await replayCacheOf(io, values.quiet, config());
    const r = await mergeReplay(cache, values.file, { log: warner(io) });
    io.stdout(`${r.added} chat answers added to ${cache.store.dir} (${r.skipped} already there)\n`);
  },
};
