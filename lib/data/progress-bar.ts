/** Byte-level progress of a pull, for people at a terminal and for nobody else. */
import cliProgress from "cli-progress";
import { printable } from "../util/printable";

/** Bytes received so far for one repository file; `total` is undefined without a Content-Length. */
export type ProgressFn = (file: string, received: number, total: number | undefined) => void;

/**
 * A stderr progress display, silent unless stderr is a TTY and `ci` (the configuration's, CI) is false (no control
 * characters in logs).
 *
 * @example
 * const bar = progressBar(config.ci);
 */
export function progressBar(ci: boolean, stream: NodeJS.WriteStream = process.stderr): {
  onProgress: ProgressFn;
  log: (msg: string) => void;
  stop: () => void;
} {
  if (!stream.isTTY || ci) {
    return { onProgress: () => {}, log: (msg) => void stream.write(`${printable(msg)}\n`), stop: () => {} };
  }
  const multi = new cliProgress.MultiBar(
    { stream, format: "{file} |{bar}| {percentage}% {value}/{total} bytes", hideCursor: true, clearOnComplete: false },
    cliProgress.Presets.shades_classic,
  );
  const bars = new Map<string, cliProgress.SingleBar>();
  return {
    onProgress(file, received, total) {
      let bar = bars.get(file);
      // A file name from the Hub is shown, never obeyed: its control characters as escapes.
      const shown = printable(file);
      if (!bar) bars.set(file, (bar = multi.create(total ?? 0, 0, { file: shown })));
      if (total !== undefined) bar.setTotal(total);
      bar.update(received, { file: shown });
    },
    log: (msg) => multi.log(`${printable(msg)}\n`),
    stop: () => multi.stop(),
  };
}
