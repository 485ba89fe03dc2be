/** One line on how a long job is going: done/total, items, calls and tokens per second, elapsed and time left. */
import type { UsageTotals } from "../providers/usage-meter";

/** Seconds as a person reads them: "42 s", "3 min 05 s", "1 h 02 min". */
export function duration(seconds: number): string {
  const s = Math.max(0, Math.round(seconds));
  if (s < 60) return `${s} s`;
  if (s < 3600) return `${Math.floor(s / 60)} min ${String(s % 60).padStart(2, "0")} s`;
  return `${Math.floor(s / 3600)} h ${String(Math.floor((s % 3600) / 60)).padStart(2, "0")} min`;
}

const rate = (n: number, seconds: number) => (seconds > 0 ? n / seconds : 0);
const short = (n: number) => (n >= 1e6 ? `${(n / 1e6).toFixed(1)}M` : n >= 1e4 ? `${Math.round(n / 1e3)}k` : String(Math.round(n)));

/** The progress line of a job `elapsed` seconds in, with its provider work; time left assumes the rate so far. */
export function progressLine(label: string, done: number, total: number, elapsed: number, work: UsageTotals): string {
  const parts = [`${label} ${done}/${total} (${total ? Math.floor((100 * done) / total) : 100}%)`, `${rate(done, elapsed).toFixed(1)}/s`];
  const plural = (n: number, word: string) => `${n.toLocaleString("en-US")} ${word}${n === 1 ? "" : "s"}`;
  if (work.chatCalls) parts.push(`${plural(work.chatCalls, "chat call")} (${rate(work.chatCalls, elapsed).toFixed(0)}/s), ${short(work.chatTokens)} tokens (${short(rate(work.chatTokens, elapsed))}/s)`);
  if (work.embedCalls) parts.push(`${plural(work.embedCalls, "embedding request")}, ${short(work.embedTokens)} tokens`);
  if (work.rerankCalls) parts.push(`${plural(work.rerankCalls, "rerank request")}, ${short(work.rerankPairs)} pairs`);
  if (work.cost > 0) parts.push(`USD ${work.cost < 10 ? work.cost.toFixed(2) : work.cost.toFixed(0)} so far`);
  const left = done > 0 && done < total ? `, about ${duration((elapsed * (total - done)) / done)} left` : "";
  parts.push(`${duration(elapsed)}${left}`);
  return parts.join(" · ");
}

/**
 * A plan's note on in-process work: `measure(sample)` timed after a warm-up on its first item, times the `todo` items.
 * @example await measuredTime("tiny", "articles to embed", ["a", "b"], 100, (xs) => embed(xs));
 */
export async function measuredTime<T>(name: string, what: string, sample: T[], todo: number, measure: (items: T[]) => Promise<unknown>): Promise<string> {
  try {
    await measure(sample.slice(0, 1));
    const t0 = performance.now();
    await measure(sample);
    const per = (performance.now() - t0) / 1000 / sample.length;
    return `${name} in-process: ${(1 / per).toFixed(1)}/s measured here on ${sample.length}; the ${todo} ${what} take about ${duration(per * todo)}, once`;
  } catch (err) {
    return `${name} in-process: no rate measured (${(err as Error).message.split("\n")[0]})`;
  }
}

/** The provider work between two snapshots. */
export function workSince(before: UsageTotals, now: UsageTotals): UsageTotals {
  const keys = Object.keys(now) as (keyof UsageTotals)[];
  return Object.fromEntries(keys.map((k) => [k, now[k] - before[k]])) as unknown as UsageTotals;
}
