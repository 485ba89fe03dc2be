/** Score normalisations applied to one query's result list before a score fusion, with ranx's definitions. */

/** min-max: (s − min) / (max − min); max: s / max; zscore: (s − mean) / std, the population std (ranx's "zmuv"). */
export const SCORE_NORMS = ["minmax", "max", "zscore"] as const;
export type ScoreNorm = (typeof SCORE_NORMS)[number];

/** ranx floors every denominator at 1e-9: a constant list is all zeros under min-max and z-score. Kept, as ranx. */
const FLOOR = 1e-9;

export function normalizeScores(scores: readonly number[], norm: ScoreNorm): number[] {
  if (scores.length === 0) return [];
  switch (norm) {
    case "minmax": {
      const lo = scores.reduce((a, b) => Math.min(a, b));
      const den = Math.max(scores.reduce((a, b) => Math.max(a, b)) - lo, FLOOR);
      return scores.map((s) => (s - lo) / den);
    }
    case "max": {
      const den = Math.max(scores.reduce((a, b) => Math.max(a, b)), FLOOR);
      return scores.map((s) => s / den);
    }
    case "zscore": {
      const mean = scores.reduce((a, b) => a + b, 0) / scores.length;
      // Population (ddof 0), as numpy's default np.std that ranx calls.
      const std = Math.sqrt(scores.reduce((a, s) => a + (s - mean) * (s - mean), 0) / scores.length);
      const den = Math.max(std, FLOOR);
      return scores.map((s) => (s - mean) / den);
    }
  }
}
