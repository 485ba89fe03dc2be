/** A Hugging Face dataset card's `configs` (which repository files hold which config and split); pure. */
import YAML from "yaml";
import { DataError, parsedOr } from "../util/errors";
import { compileGlob, matchGlob } from "./glob";

/** A config's data files for one split, as written in the card (paths or globs). */
export type SplitSpec = { split: string; patterns: string[] };

/** The card's YAML `configs` as name -> splits, `data_files` read as `datasets` reads it (bare paths: `train`). */
export function parseCard(text: string, file = "README.md"): Map<string, SplitSpec[]> {
  const src = text.replace(/^\uFEFF/, "").replace(/\r\n?/g, "\n");
  const m = /^---\n([\s\S]*?)\n---(?:\n|$)/.exec(src);
  if (!m) throw new DataError("the dataset card has no YAML front matter (--- ... ---)", file, 1);
  const meta: unknown = parsedOr(() => YAML.parse(m[1]), (why) => new DataError(`malformed YAML front matter (${why})`, file));
  const configs = (meta as { configs?: unknown } | null)?.configs;
  if (!Array.isArray(configs)) throw new DataError("the front matter has no 'configs' list", file);
  const out = new Map<string, SplitSpec[]>();
  for (const c of configs as Record<string, unknown>[]) {
    const name = c?.config_name;
    if (typeof name !== "string") throw new DataError("a config has no 'config_name'", file);
    out.set(name, normaliseDataFiles(c.data_files, name, file));
  }
  return out;
}

function normaliseDataFiles(df: unknown, config: string, file: string): SplitSpec[] {
  const bad = () => new DataError(`config '${config}': data_files has an unexpected shape: ${JSON.stringify(df)}`, file);
  const paths = (p: unknown): string[] => {
    if (typeof p === "string") return [p];
    if (Array.isArray(p) && p.every((x) => typeof x === "string")) return p as string[];
    throw bad();
  };
  if (typeof df === "string") return [{ split: "train", patterns: [df] }];
  if (Array.isArray(df)) {
    if (df.every((x) => typeof x === "string")) return [{ split: "train", patterns: df as string[] }];
    return df.map((entry) => {
      if (!entry || typeof entry !== "object" || typeof (entry as { split?: unknown }).split !== "string") throw bad();
      const e = entry as { split: string; path?: unknown };
      return { split: e.split, patterns: paths(e.path) };
    });
  }
  if (df && typeof df === "object") return Object.entries(df).map(([split, p]) => ({ split, patterns: paths(p) }));
  throw bad();
}

/** A config's files: the `test` split or the sole one; fsspec globs, sorted by path so shards keep their order. */
export function resolveDataFiles(config: string, specs: SplitSpec[], siblings: { rfilename: string }[], file = "README.md"): string[] {
  const spec = specs.find((s) => s.split === "test") ?? (specs.length === 1 ? specs[0] : undefined);
  if (!spec) {
    throw new DataError(`config '${config}' has no 'test' split (splits: ${specs.map((s) => s.split).join(", ")})`, file);
  }
  const names = siblings.map((s) => s.rfilename).sort();
  const out: string[] = [];
  for (const raw of spec.patterns) {
    const pattern = raw.replace(/^\.\//, "");
    // A plain path is a glob matching itself.
    const matches = names.filter(globMatcher(pattern, config, file));
    if (matches.length === 0) {
      throw new DataError(`config '${config}' names '${raw}', which matches no file of the repository at this revision`, file);
    }
    for (const n of matches) if (!out.includes(n)) out.push(n);
  }
  return out;
}

/** A test of names against one of the card's globs; a malformed one is a DataError naming the card and the pattern. */
function globMatcher(pattern: string, config: string, file: string): (name: string) => boolean {
  try {
    const steps = compileGlob(pattern);
    return (name) => matchGlob(steps, name);
  } catch (err) {
    throw new DataError(`config '${config}' names the pattern '${pattern}', which is malformed: ${(err as Error).message}`, file);
  }
}
