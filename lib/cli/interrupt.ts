/** Ctrl-C or SIGTERM during a long command: one line on stderr (what was kept, how to go on), then the usual exit. */
import type { Io } from "./args";

/** Until the returned function is called, SIGINT/SIGTERM print `say`'s line and exit 130/143; a second signal at once. */
export function onInterrupt(say: (signal: NodeJS.Signals) => Promise<string>, io: Io): () => void {
  let told = false;
  const handler = (signal: NodeJS.Signals) => {
    if (told) process.exit(signal === "SIGINT" ? 130 : 143);
    told = true;
    void say(signal)
      .catch((err: unknown) => `interrupted (${signal}); ${(err as Error).message}`)
      .then((line) => {
        // A progress line of a terminal may be open: the message starts on its own line.
        io.stderr(`${process.stderr.isTTY ? "\n" : ""}${line}\n`);
        process.exit(signal === "SIGINT" ? 130 : 143);
      });
  };
  // Kept until the exit, not `once`: signal-exit (under proper-lockfile) re-raises a signal nobody else listens to.
  process.on("SIGINT", handler);
  process.on("SIGTERM", handler);
  return () => {
    process.off("SIGINT", handler);
    process.off("SIGTERM", handler);
  };
}
