/**
 * "Did you mean …": the nearest valid name to a mistyped one (a command, an option, a retriever,
 * a preset, an experiment id), by edit distance.
 */
import { distance } from "fastest-levenshtein";

/**
 * The candidate nearest to `input`, when it is near enough to be a likely typo (an edit distance
 * of at most a third of the input's length, at least 2), else undefined. A candidate that starts
 * with the input, or contains it, counts as near.
 */
export function nearest(input: string, candidates: readonly string[]): string | undefined {
  const needle = input.toLowerCase();
  let best: { name: string; d: number } | undefined;
  for (const name of candidates) {
    const hay = name.toLowerCase();
    const d = hay.startsWith(needle) || (needle.length >= 4 && hay.includes(needle)) ? 0.5 : distance(needle, hay);
    if (!best || d < best.d) best = { name, d };
  }
  if (!best) return undefined;
  return best.d <= Math.max(2, Math.floor(input.length / 3)) ? best.name : undefined;
}

/**
 * " (did you mean 'x'?)" for the nearest candidate, or "" when none is near.
 */
export function didYouMean(input: string, candidates: readonly string[]): string {
  const n = nearest(input, candidates);
  return n && n !== input ? ` (did you mean '${n}'?)` : "";
}
