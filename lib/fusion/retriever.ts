import type { Query, Retriever, Run } from "../types";
import { GbrError } from "../util/errors";
import { didYouMean } from "../util/suggest";
import { COMB_METHODS, combFuse, type CombMethod } from "./comb";
import { SCORE_NORMS, type ScoreNorm } from "./normalize";
import { rrf } from "./rrf";

/** `rrf:<a>+<b>[+<c>…]`: reciprocal rank fusion (k = 60) of its inputs' top 100, named as its string form. */
export function rrfRetriever(inputs: readonly Retriever[], name = `rrf:${namesOf(inputs)}`): Retriever {
  // Weighted RRF with every weight 1 is plain RRF, to the bit (w / (k + rank) with w = 1).
  return fuseRetriever(inputs, { kind: "wrrf", weights: inputs.map(() => 1) }, name);
}

/** What `fuse:<method>:…` asks for: a score fusion over normalised scores, or weighted RRF. */
export type Fusion = { kind: "comb"; method: CombMethod; norm: ScoreNorm } | { kind: "wrrf"; weights: number[] };

/** The comb methods' names, `<method>-<norm>`, as the grammar and its messages spell them. */
export const FUSION_METHODS: readonly string[] = [...COMB_METHODS.flatMap((m) => SCORE_NORMS.map((n) => `${m}-${n}`)), "wrrf"];

const FORMS = "fuse:<comb>-<norm>:<a>+<b> (comb: combsum, combmnz; norm: minmax, max, zscore) or fuse:wrrf:<w1>,<w2>:<a>+<b>";

/** A `fuse:` name as its fusion and its inputs' names (which may hold colons: the method and weights never do). */
export function parseFuseName(name: string): { fusion: Fusion; parts: string[] } {
  const m = /^fuse:([^:]*):(.*)$/s.exec(name);
  if (!m) throw usage(`'${name}': expected ${FORMS}`);
  const [, method, rest] = m;
  if (method === "wrrf") {
    const w = /^([^:]*):(.*)$/s.exec(rest);
    const weights = w ? parseWeights(w[1]) : undefined;
    if (!w || !weights) throw usage(`'${name}': expected fuse:wrrf:<w1>,<w2>[,…]:<a>+<b>[+…] with positive weights, one per retriever, e.g. fuse:wrrf:0.7,0.3:bm25-greekstemmer+dense:qwen3-8b`);
    const parts = splitParts(name, w[2]);
    if (weights.length !== parts.length) throw usage(`'${name}': ${weights.length} weight${weights.length === 1 ? "" : "s"} for ${parts.length} retrievers; give one per retriever`);
    return { fusion: { kind: "wrrf", weights }, parts };
  }
  const dash = method.indexOf("-");
  const comb = method.slice(0, dash) as CombMethod;
  const normName = method.slice(dash + 1);
  const norm = SCORE_NORMS.find((n) => n === normName);
  if (dash < 0 || !COMB_METHODS.includes(comb) || !norm) {
    // Plain RRF keeps its own form (the paper's method, exactly); say so rather than only suggest wrrf.
    const rrfHint = method === "rrf" ? "; plain RRF is rrf:<a>+<b>" : "";
    throw usage(`'${name}': unknown fusion '${method}'${didYouMean(method, FUSION_METHODS)}${rrfHint}; expected ${FORMS}`);
  }
  return { fusion: { kind: "comb", method: comb, norm }, parts: splitParts(name, rest) };
}

/** `fuse:…`: its inputs' top 100 fused by CombSUM or CombMNZ over normalised scores or by weighted RRF. */
export function fuseRetriever(inputs: readonly Retriever[], fusion: Fusion, name = `fuse:${fusion.kind === "wrrf" ? `wrrf:${fusion.weights.join(",")}` : `${fusion.method}-${fusion.norm}`}:${namesOf(inputs)}`): Retriever {
  return {
    name,
    async retrieve(queries: Query[], k: number) {
      // Each input's top 100, one input after another (parts may share a server).
      const runs: Run[] = [];
      for (const r of inputs) runs.push(await r.retrieve(queries, 100));
      return fusion.kind === "wrrf" ? rrf(runs, { top: k, name, weights: fusion.weights }) : combFuse(runs, { method: fusion.method, norm: fusion.norm, top: k, name });
    },
  };
}

const namesOf = (inputs: readonly Retriever[]) => inputs.map((r) => r.name).join("+");

function splitParts(name: string, rest: string): string[] {
  const parts = rest.split("+");
  if (parts.length < 2 || parts.some((p) => !p)) throw usage(`'${name}': fuse needs at least two retrievers joined by +, as ${FORMS}`);
  return parts;
}

/** "0.7,0.3" as [0.7, 0.3]; undefined unless every item is a plain positive decimal number. */
function parseWeights(text: string): number[] | undefined {
  const items = text.split(",");
  if (!items.every((x) => /^(\d+\.?\d*|\.\d+)(e[-+]?\d+)?$/i.test(x))) return undefined;
  const weights = items.map(Number);
  return weights.every((x) => Number.isFinite(x) && x > 0) ? weights : undefined;
}

function usage(message: string): GbrError {
  return new GbrError(message, "USAGE");
}
