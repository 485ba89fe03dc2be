/** "Did you mean …": the nearest valid name to a mistyped one, by edit distance. */
import { distance } from "fastest-levenshtein";

/** The nearest candidate within edit distance max(2, length/3) (a prefix or substring is near), or undefined. */
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

/** " (did you mean 'x'?)" for the nearest candidate, or "" when none is near. */
export function didYouMean(input: string, candidates: readonly string[]): string {
  const n = nearest(input, candidates);
  return n && n !== input ? ` (did you mean '${n}'?)` : "";
}
