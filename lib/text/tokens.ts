/** o200k_harmony counts (gpt-oss-120b's), so REACT prompts keep the 84,000-token budget as the authors' tiktoken. */
import { o200kHarmony } from "../util/sdk";

/** gpt-tokenizer 4.0.0's private byte-pair core (pinned in package.json), found at run time. */
interface BpeCore {
  tokenSplitRegex: RegExp;
  getBpeRankFromString(piece: string): number | undefined;
  bytePairEncode(piece: string): number[];
}

let core: BpeCore | undefined;

function bpeCore(): BpeCore {
  if (core) return core;
  const c = (o200kHarmony() as unknown as { default?: { bytePairEncodingCoreProcessor?: Partial<BpeCore> } }).default?.bytePairEncodingCoreProcessor;
  if (!(c && c.tokenSplitRegex instanceof RegExp && typeof c.getBpeRankFromString === "function" && typeof c.bytePairEncode === "function")) {
    throw new Error("gpt-tokenizer's byte-pair core is not where version 4.0.0 has it: install the version package.json pins");
  }
  return (core = c as BpeCore);
}

// Tokens per pre-tokenized piece: pieces are encoded independently, so a text's count is their sum. Our own cache
// because gpt-tokenizer's LRU thrashed on REACT's repeated ~100k-token prompts. Bounded: cleared when full.
const pieceCounts = new Map<string, number>();
const MAX_CACHED_PIECES = 1_000_000;

let splitter: RegExp | undefined; // the core's pattern, global, owned here (exec moves lastIndex)

function countPieces(text: string, c: BpeCore): number {
  const f = c.tokenSplitRegex.flags;
  const re = (splitter ??= new RegExp(c.tokenSplitRegex.source, f.includes("g") ? f : f + "g"));
  re.lastIndex = 0;
  let total = 0;
  for (let m = re.exec(text); m !== null; m = re.exec(text)) {
    const piece = m[0];
    let n = pieceCounts.get(piece);
    if (n === undefined) {
      n = c.getBpeRankFromString(piece) !== undefined ? 1 : c.bytePairEncode(piece).length;
      if (pieceCounts.size >= MAX_CACHED_PIECES) pieceCounts.clear();
      pieceCounts.set(piece, n);
    }
    total += n;
  }
  return total;
}

/** o200k_harmony tokens in `text`, cached per piece; equal to o200k_base's count (same vocabulary, merges; tested). */
export function countTokens(text: string): number {
  return text.length === 0 ? 0 : countPieces(text, bpeCore());
}

// Where the pre-tokenizer always cuts, so both sides count apart: after "\n" before neither white space nor "/" (no
// o200k piece holds that), and after a mark before a space ("[3] text": marks stop there, the rest never looks back).
const MARK = /[^\s\p{L}\p{N}]/u;
function cutsHere(left: string, right: string): boolean {
  if (left.length === 0 || right.length === 0) return true;
  const last = left.charCodeAt(left.length - 1);
  if (last === 10) return right.charCodeAt(0) !== 47 && !/\s/u.test(right[0]!);
  return right.charCodeAt(0) === 32 && last < 0xd800 && MARK.test(left[left.length - 1]!);
}

const segmentCounts = new Map<string, number>();
const MAX_CACHED_SEGMENTS = 50_000;

/** `countTokens(text)`, remembered (up to 50,000 texts) for texts recounted, e.g. an article each REACT round. */
export function countTokensRemembered(text: string): number {
  let n = segmentCounts.get(text);
  if (n === undefined) {
    n = countTokens(text);
    if (segmentCounts.size >= MAX_CACHED_SEGMENTS) segmentCounts.clear();
    segmentCounts.set(text, n);
  }
  return n;
}

/** `countTokens(parts.join(""))`, parts counted apart where the pre-tokenizer always cuts, each span remembered. */
export function countTokensJoined(parts: readonly string[]): number {
  let total = 0;
  let span = "";
  for (const part of parts) {
    if (part.length === 0) continue;
    if (!cutsHere(span, part)) span += part;
    else {
      if (span) total += countTokensRemembered(span);
      span = part;
    }
  }
  return span ? total + countTokensRemembered(span) : total;
}

/**
 * `countTokens` of `template` ("query: {text}") filled with `text`, the lead counted apart: an article is counted once.
 *
 * @example
 * countTemplated("query: {text}", "query: Τι ισχύει;") === countTokens("query: Τι ισχύει;"); // true
 */
export function countTemplated(template: string, text: string): number {
  const lead = template.slice(0, Math.max(0, template.indexOf("{text}"))).trimEnd();
  return countTokensJoined(lead && text.startsWith(lead) ? [lead, text.slice(lead.length)] : [text]);
}
