/** Progress of long steps on stderr (`gbr reproduce` without -q): redrawn on a terminal, throttled in a log. */
import type { Io } from "./args";
import { progressLine, workSince } from "../util/progress-line";
import { printable } from "../util/printable";
import type { UsageMeter, UsageTotals } from "../providers/usage-meter";

type ProgressOptions = { tty: boolean; intervalMs?: number; now?: () => number; quiet?: boolean; meter: UsageMeter };

/** An `onProgress(label, done, total)` that reports to `io.stderr` (each line with the meter's work per second). */
export function progressReporter(io: Io, opts: ProgressOptions): (label: string, done: number, total: number) => void {
  const now = opts.now ?? (() => performance.now());
  const interval = opts.intervalMs ?? (opts.tty ? 250 : 5000);
  const steps = new Map<string, { started: number; before: UsageTotals; printed: number }>();
  return (label, done, total) => {
    const t = now();
    let step = steps.get(label);
    if (!step || done < 1) steps.set(label, (step = { started: t, before: opts.meter.snapshot(), printed: -Infinity }));
    const finished = done >= total;
    if (finished) {
      const seconds = (t - step.started) / 1000;
      opts.meter.noteStep({ label, done, total, seconds, perSecond: seconds > 0 ? done / seconds : 0, work: workSince(step.before, opts.meter.snapshot()) });
    }
    // Early on a rate means little and a step that ends soon has nothing to tell: a terminal waits 1 s, a log an interval.
    const early = t - step.started < (opts.tty ? Math.min(1000, interval) : interval);
    const show = !opts.quiet && (finished ? !early || step.printed > -Infinity : !early && t - step.printed >= interval);
    if (show) {
      step.printed = t;
      const line = printable(progressLine(label, done, total, (t - step.started) / 1000, workSince(step.before, opts.meter.snapshot())));
      io.stderr(opts.tty ? `\r\x1b[K${line}${finished ? "\n" : ""}` : `${line}\n`);
    }
    if (finished) steps.delete(label);
  };
}
