/** Every command of `gbr`, keyed by its words; each is defined in its own file. */
import type { Command } from "./args";
import { dataPull, dataStats } from "./data-command";
import { stem } from "./stem-command";
import { tokenize } from "./tokenize-command";
import { search } from "./search-command";
import { evalCommand } from "./eval-command";
import { reproduceCommand } from "./reproduce-command";
import { promptsPull } from "./prompts-command";
import { replayExport, replayImport } from "./replay-command";
import { compare } from "./compare-command";
import { reproCommand } from "./repro-command";
import { errorsCommand } from "./errors-command";
import { figures } from "./figures-command";
import { report } from "./report-command";

export const COMMANDS: Record<string, Command> = {
  "data pull": dataPull,
  "data stats": dataStats,
  stem,
  tokenize,
  search,
  eval: evalCommand,
  reproduce: reproduceCommand,
  "prompts pull": promptsPull,
  "replay export": replayExport,
  "replay import": replayImport,
  // The import's earlier name, still accepted.
  "replay merge": replayImport,
  compare,
  repro: reproCommand,
  errors: errorsCommand,
  figures,
  report,
};
