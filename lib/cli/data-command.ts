/** `gbr data pull` and `gbr data stats`: the benchmark from the Hub, and its tables 1 and 6. */
import path from "node:path";
import type { Command } from "./args";
import { dataHelp, dataOption, load, quietOption } from "./options";
import { pullHub, pullHubToDir } from "../data/hub";
import { pullLog } from "../data/pull-log";
import { areaStats, datasetStats } from "../data/stats";
import { formatStats } from "./print-stats";
import { printableJson } from "../util/printable";

export const dataPull: Command = {
  spec: {
    name: "data pull",
    summary: "Download the benchmark from the Hugging Face Hub, verify it, and cache it (or write it as a BEIR folder).",
    usage: "data pull [--repo R] [--revision V] [--dir D]",
    options: { repo: { type: "string" }, revision: { type: "string" }, dir: { type: "string" }, ...quietOption },
    help: [
      "--repo R       dataset repository (default AUEB-NLP/greek-bar-bench)",
      "--revision V   tag, branch or commit (default v2.0)",
      "--dir D        also write the benchmark to D in BEIR layout",
      "-q, --quiet    no progress on stderr",
      "Environment: HF_ENDPOINT (default https://huggingface.co), HF_TOKEN for gated or private copies.",
    ],
  },
  async run(values, io, configOf) {
    const config = configOf();
    const log = values.quiet ? () => {} : pullLog();
    const opts = { ...config.hub, cacheRoot: path.join(config.dataDir, "hf"), repo: values.repo as string | undefined, revision: values.revision as string | undefined, log };
    const result = values.dir ? await pullHubToDir(String(values.dir), opts) : await pullHub(opts);
    const b = result.benchmark;
    io.stdout(`${b.docs.length} articles, ${b.queries.length} queries, ${[...b.qrels.values()].reduce((s, r) => s + r.size, 0)} judgments -> ${values.dir ?? result.dir}\n`);
  },
};

export const dataStats: Command = {
  spec: {
    name: "data stats",
    summary: "Dataset statistics: the paper's Table 1 (sizes and judgments) and Table 6 (per legal area).",
    usage: "data stats --data SRC [--json]",
    options: { ...dataOption, json: { type: "boolean" } },
    help: [...dataHelp, "--json           machine-readable output"],
  },
  async run(values, io, config) {
    const bench = (await load(values, io, config())).benchmark;
    const [table1, table6] = [datasetStats(bench), areaStats(bench)];
    const json = { dataset: bench.name, table1, table6 };
    io.stdout(values.json ? printableJson(json) + "\n" : formatStats(bench.name, table1, table6));
  },
};
