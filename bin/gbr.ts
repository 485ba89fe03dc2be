import { main, processIo } from "../lib/cli/main";

main(process.argv.slice(2), processIo()).then(
  (code) => {
    process.exitCode = code;
  },
  (err) => {
    process.stderr.write(`gbr: ${(err as Error).stack ?? err}\n`);
    process.exitCode = 1;
  },
);
