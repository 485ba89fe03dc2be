import { readFileSync } from "node:fs";
import path from "node:path";
import { CliError, helpText, parseCommand, type Io } from "./args";
import { COMMANDS } from "./commands";
import { configFlags } from "./options";
import { GbrError } from "../util/errors";
import { didYouMean } from "../util/suggest";
import { PACKAGE_ROOT, readConfig, type Config, type Environment } from "../config";
import { decodeUtf8 } from "../data/beir";
import { printable } from "../util/printable";

/** Read when asked: importing package.json would make tsc copy it into build/, a second package.json inside the package. */
function packageVersion(): string {
  return (JSON.parse(readFileSync(path.join(PACKAGE_ROOT, "package.json"), "utf8")) as { version: string }).version;
}

const USAGE = `gbr — GreekBarRetrieval toolkit

Usage: gbr <command> [options]   (gbr <command> --help for details)

Commands:
${Object.entries(COMMANDS)
  .map(([name, c]) => `  ${name.padEnd(11)} ${c.spec.summary}`)
  .join("\n")}
`;

/** The sub-commands of a group ("pull" and "stats" of "data") as listed in its help; an alias is listed once. */
function groupListing(group: string): string {
  const all = Object.entries(COMMANDS);
  const subs = all.filter(([w, c], i) => w.startsWith(`${group} `) && all.findIndex(([, d]) => d === c) === i);
  const lines = subs.map(([w, c]) => `  ${w.slice(group.length + 1).padEnd(9)} ${c.spec.summary}`);
  return `(gbr ${group} <sub-command> --help for details):\n\n${lines.join("\n")}\n`;
}

/** Runs the command line in-process to its exit code; errors become one stderr line; the environment is read once here. */
export async function main(argv: string[], io: Io, env?: Environment): Promise<number> {
  const [first, second] = argv;
  if (!first) {
    // No command is a usage error: the usage goes where errors go, so `gbr | …` does not pass it on as output.
    io.stderr(USAGE);
    return 2;
  }
  if (first === "help" && second) return main([...argv.slice(1), "--help"], io, env);
  if (first === "--help" || first === "-h" || first === "help") {
    io.stdout(USAGE);
    return 0;
  }
  if (first === "--version" || first === "-V" || first === "version") {
    io.stdout(`${packageVersion()}\n`);
    return 0;
  }
  const two = `${first} ${second ?? ""}`.trim();
  const [name, rest] = COMMANDS[two] ? [two, argv.slice(2)] : [first, argv.slice(1)];
  const command = COMMANDS[name];
  const subs = command ? [] : Object.keys(COMMANDS).filter((w) => w.startsWith(`${first} `));
  if (subs.length && (second === undefined || second === "--help" || second === "-h")) {
    // A group: its help on stdout, or, with no sub-command, the same listing as a usage error.
    if (second) io.stdout(`gbr ${first}: its sub-commands ${groupListing(first)}`);
    else io.stderr(`gbr ${first}: give a sub-command ${groupListing(first)}`);
    return second ? 0 : 2;
  }
  if (!command) {
    const hint = subs.length ? didYouMean(`gbr ${two}`, subs.map((w) => `gbr ${w}`)) : didYouMean(first, Object.keys(COMMANDS));
    io.stderr(`gbr: unknown command '${printable(argv.slice(0, 2).join(" "))}'${hint}\n\n${USAGE}`);
    return 2;
  }
  let config: Config | undefined;
  try {
    const { values } = parseCommand(command.spec, rest);
    if (values.help) {
      io.stdout(helpText(command.spec) + "\n");
      return 0;
    }
    return (await command.run(values, io, () => (config ??= readConfig(env, configFlags(values))))) ?? 0;
  } catch (err) {
    const said = (text: string) => printable(text, { newlines: true });
    if (err instanceof CliError) {
      io.stderr(`${printable(err.message)}${err.hint ? `\n${said(err.hint)}` : ""}\n`);
      return err.exitCode;
    }
    if (err instanceof GbrError) {
      io.stderr(`gbr ${name}: ${said(err.message)}${err.hint ? `\n  ${said(err.hint)}` : ""}\n`);
      return err.code === "USAGE" ? 2 : 1;
    }
    io.stderr(`gbr ${name}: ${said((err as Error).message ?? String(err))}\n`);
    if (debugOn(config, env)) io.stderr(`${(err as Error).stack}\n`);
    return 1;
  }
}

/** GBR_DEBUG, from the configuration the command read, or else read now; a bad environment shows no stack. */
function debugOn(config: Config | undefined, env: Environment | undefined): boolean {
  try {
    return (config ?? readConfig(env)).debug;
  } catch {
    return false;
  }
}

export function processIo(): Io {
  // A reader that stops early (`gbr search … | head -1`) closes the pipe: that ends the output, not in a stack trace.
  process.stdout.on("error", (err: NodeJS.ErrnoException) => {
    if (err.code !== "EPIPE") throw err;
    process.exit(process.exitCode ?? 0);
  });
  return {
    stdout: (t) => void process.stdout.write(t),
    stderr: (t) => void process.stderr.write(t),
    stdin: async () => {
      const chunks: Buffer[] = [];
      for await (const c of process.stdin) chunks.push(c as Buffer);
      // As strict as every file reader: invalid bytes are an error naming where they are, not U+FFFD.
      return decodeUtf8(Buffer.concat(chunks), "<stdin>");
    },
  };
}
