import { existsSync } from "node:fs";
import path from "node:path";

/** ../shared beside the repo (CI copies it there). */
export const SHARED = path.resolve(__dirname, "..", "..", "..", "shared");
export const sharedPath = (...parts: string[]) => path.join(SHARED, ...parts);
export const REPO = path.resolve(__dirname, "..", "..");

/**
 * A path under ../shared that a test needs: returned when it exists, otherwise an Error saying
 * what is missing and how to provide it, so that a test without its data fails instead of
 * passing by skipping.
 *
 * @example
 * const dir = requireShared("data", "greeklaws-2021");
 */
export function requireShared(...parts: string[]): string {
  const p = sharedPath(...parts);
  if (!existsSync(p)) throw new Error(`${p} is missing: this test reads ../shared beside the repository (CI copies it there; locally, put the shared folder next to the clone)`);
  return p;
}
