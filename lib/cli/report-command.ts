/** `gbr report`: the HTML report of each dataset folder reproduce wrote. */
import type { Command } from "./args";
import { writeReports } from "../report/html";

export const report: Command = {
  spec: {
    name: "report",
    summary: "The HTML report from outputs: one self-contained page per dataset folder (plotly inlined, works offline).",
    usage: "report [--out DIR] [--data NAME]",
    options: { out: { type: "string" }, data: { type: "string" } },
    help: [
      "--out DIR      output root that 'gbr reproduce --out DIR' wrote (default outputs)",
      "--data NAME    only the dataset folder DIR/NAME (default: every folder under DIR with a summary.csv)",
      "Writes DIR/<dataset>/report.html and prints each path.",
    ],
  },
  async run(values, io) {
    const written = await writeReports(String(values.out ?? "outputs"), values.data === undefined ? undefined : String(values.data));
    io.stdout(written.map((f) => `${f}\n`).join(""));
  },
};
