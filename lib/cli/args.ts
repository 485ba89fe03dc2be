import { parseArgs, type ParseArgsConfig } from "node:util";
import { GbrError } from "../util/errors";
import { didYouMean } from "../util/suggest";
import type { Config } from "../config";

/** A command-line error shown as one stderr line without a stack (then its hint); exit 2 is a usage error, 1 anything else. */
export class CliError extends GbrError {
  constructor(message: string, readonly exitCode = 1, hint?: string) {
    super(message, exitCode === 2 ? "USAGE" : "CLI", hint === undefined ? {} : { hint });
    this.name = "CliError";
  }
}

type OptionSpec = NonNullable<ParseArgsConfig["options"]>;

type CommandSpec = { name: string; summary: string; usage: string; options: OptionSpec; help: string[] };

/** Parses argv for one command, with `--help` everywhere; unknown options are usage errors naming `--help`. */
export function parseCommand(spec: CommandSpec, argv: string[]) {
  try {
    return parseArgs({
      args: negativeValuesJoined(spec, argv),
      options: { ...spec.options, help: { type: "boolean", short: "h" } },
      allowPositionals: false,
      strict: true,
    });
  } catch (err) {
    throw new CliError(`gbr ${spec.name}: ${parseProblem(err, spec)}`, 2, `Run 'gbr ${spec.name} --help' for usage.`);
  }
}

/** `--k -1` as `--k=-1`: node's parser would take "-1" for an option, not reaching the option's range check. */
function negativeValuesJoined(spec: CommandSpec, argv: readonly string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const name = argv[i].startsWith("--") ? argv[i].slice(2) : undefined;
    const next = argv[i + 1];
    if (name && spec.options[name]?.type === "string" && next !== undefined && /^-(\d|\.\d|Infinity|NaN)/.test(next)) {
      out.push(`--${name}=${next}`);
      i++;
    } else out.push(argv[i]);
  }
  return out;
}

function parseProblem(err: unknown, spec: CommandSpec): string {
  const e = err as { code?: string; message?: string };
  if (e.code !== "ERR_PARSE_ARGS_UNKNOWN_OPTION") return e.message ?? String(err);
  const quoted = /'([^']+)'/.exec(e.message ?? "")?.[1] ?? "";
  const options = Object.entries(spec.options).flatMap(([name, o]) => [`--${name}`, ...(o.short ? [`-${o.short}`] : [])]);
  return `unknown option '${quoted}'${didYouMean(quoted, options)}`;
}

export function helpText(spec: CommandSpec): string {
  return [`${spec.summary}`, "", `Usage: gbr ${spec.usage}`, "", "Options:", ...spec.help.map((l) => `  ${l}`), "  -h, --help  show this help"].join("\n");
}

/** A numeric option; a usage error naming the option when it is not a number in range. */
export function numberOption(
  raw: unknown,
  name: string,
  fallback: number,
  opts: { integer?: boolean; min?: number; max?: number } = {},
): number {
  if (raw === undefined) return fallback;
  const n = Number(raw);
  const bad =
    typeof raw !== "string" ||
    raw.trim() === "" ||
    !Number.isFinite(n) ||
    (opts.integer && !Number.isInteger(n)) ||
    (opts.min !== undefined && n < opts.min) ||
    (opts.max !== undefined && n > opts.max);
  if (bad) {
    const { min, max } = opts;
    const bounds = `${min !== undefined ? ` >= ${min}` : ""}${max !== undefined ? ` <= ${max}` : ""}`;
    const range = min !== undefined && max !== undefined ? ` from ${min} to ${max}` : bounds;
    throw new CliError(`${name} must be ${opts.integer ? "an integer" : "a number"}${range}, got '${String(raw)}'`, 2);
  }
  return n;
}

/** Injectable so tests can run commands in-process. */
export type Io = { stdout: (text: string) => void; stderr: (text: string) => void; stdin: () => Promise<string> };

/** A command; the configuration is read on first ask, so a command needing none is not stopped by a bad variable. */
export interface Command {
  spec: CommandSpec;
  run(values: Record<string, unknown>, io: Io, config: () => Config): Promise<number | void>;
}
