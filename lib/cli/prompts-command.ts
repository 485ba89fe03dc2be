/** `gbr prompts pull`: the authors' official prompts, fetched and cached. */
import type { Command } from "./args";
import { logger, quietOption } from "./options";
import { pullOfficialPrompts } from "../llm/official-prompts";
import { officialPromptsDir } from "../llm/prompts";

export const promptsPull: Command = {
  spec: {
    name: "prompts pull",
    summary: "Fetch the authors' official Greek prompts from their public repository at the pinned commit (cached, never committed).",
    usage: "prompts pull [--commit SHA]",
    options: { commit: { type: "string" }, ...quietOption },
    help: [
      "--commit SHA   repository commit (default 992f5224a6cb75d12d956994a820a9b83e18c0f5, the paper's)",
      "Environment: GBR_GITHUB_RAW_URL for a mirror of raw.githubusercontent.com. Use them with --prompts official.",
    ],
  },
  async run(values, io, configOf) {
    const config = configOf();
    const r = await pullOfficialPrompts({ commit: values.commit as string | undefined, log: logger(io, values.quiet), baseUrl: config.githubRawUrl, cacheDir: officialPromptsDir(config.dataDir) });
    io.stdout(`${Object.keys(r.manifest.prompts).length} official prompts -> ${r.cacheDir}\n`);
  },
};
