/**
 * Token counting with OpenAI's o200k_harmony encoding (gpt-oss-120b's, the paper's LLM), used to
 * keep every REACT observer prompt under its 84,000-token budget exactly as the authors' code
 * measures it: tiktoken's "o200k_harmony" when available, else "o200k_base", with special-token
 * texts encoded as ordinary text (`disallowed_special=()`).
 *
 * The encoder comes from the npm package `gpt-tokenizer` (pure JavaScript, MIT). It is loaded on
 * first use (sdk.ts) because its rank table takes a tenth of a second and some megabytes to
 * build, and most commands never count tokens.
 */
import { o200kHarmony, type O200kEncoder } from "./sdk";


/**
 * Name of the encoding `countTokens` uses.
 */
export const TOKEN_ENCODING = "o200k_harmony";

let encoder: O200kEncoder | undefined;
// Special-token texts such as "<|endoftext|>" are counted as ordinary text (Python tiktoken's
// `encode(text, disallowed_special=())`): a statute never means them, and counting must not throw.
const ORDINARY_TEXT = { disallowedSpecial: new Set<string>() };

function load(): O200kEncoder {
  encoder ??= o200kHarmony();
  return encoder;
}

/**
 * The parts of gpt-tokenizer's byte-pair core (4.0.0, pinned) that counting piece by piece needs:
 * the pre-tokenizer and the per-piece encoding. Not in its declarations, so looked up at run time;
 * when absent (another version), counting falls back to the public `countTokens`.
 */
interface BpeCore {
  tokenSplitRegex: RegExp;
  getBpeRankFromString(piece: string): number | undefined;
  bytePairEncode(piece: string): number[];
}

let core: BpeCore | null | undefined;
/**
 * Whether `countTokens` counts through its piece cache (true) or had to fall back to
 * gpt-tokenizer's public count, slower on long prompts (another gpt-tokenizer version).
 */
export function piecewiseCounting(): boolean {
  return bpeCore() !== null;
}

function bpeCore(): BpeCore | null {
  if (core !== undefined) return core;
  // The module's default export is the encoding object; its byte-pair core is a private field.
  const api = (load() as unknown as { default?: { bytePairEncodingCoreProcessor?: Partial<BpeCore> } }).default;
  const c = api?.bytePairEncodingCoreProcessor;
  core =
    c && c.tokenSplitRegex instanceof RegExp && typeof c.getBpeRankFromString === "function" && typeof c.bytePairEncode === "function"
      ? (c as BpeCore)
      : null;
  return core;
}

// Tokens per pre-tokenized piece. A piece's count does not depend on its neighbours (the encoder
// splits the text with its pattern first, then encodes each piece alone), so a text's count is
// the sum over its pieces. Greek statute text repeats its words, and REACT counts prompts of
// ~100k tokens several times a round: gpt-tokenizer's own LRU merge cache (100k pieces, four map
// operations per hit, an array per piece) thrashed on it. Bounded: cleared when full.
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
    if (piece.length === 0) {
      re.lastIndex++; // never with this pattern; guards against an endless loop
      continue;
    }
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

/**
 * Number of o200k_harmony tokens in `text`. Special-token markers count as plain text. Each
 * pre-tokenized piece's count is cached, so re-counting a prompt that grew by one article costs
 * little more than finding its pieces.
 *
 * o200k_harmony shares o200k_base's vocabulary, merges and pre-tokenizer and only adds special
 * tokens, so with special tokens read as text the two counts are the same (a test checks it).
 */
export function countTokens(text: string): number {
  if (text.length === 0) return 0;
  const c = bpeCore();
  return c ? countPieces(text, c) : load().countTokens(text, ORDINARY_TEXT);
}

/**
 * The same count through gpt-tokenizer's public `countTokens`, without the piece cache: the
 * reference the tests hold `countTokens` to.
 */
export function referenceCountTokens(text: string): number {
  return text.length === 0 ? 0 : load().countTokens(text, ORDINARY_TEXT);
}

// Where the pre-tokenizer always cuts: just after a line feed, before a character that is neither
// white space nor "/". No piece of the o200k pattern holds a "\n" followed by such a character
// (letter and number pieces hold no line feed; a punctuation piece may end in line feeds and "/";
// the white-space pieces hold nothing else), so counting the two sides apart gives the same sum.
function cutsHere(left: string, right: string): boolean {
  if (left.length === 0 || right.length === 0) return true;
  if (left.charCodeAt(left.length - 1) !== 10) return false;
  const c = right.charCodeAt(0);
  return c !== 47 && !/\s/u.test(right[0]!);
}

const segmentCounts = new Map<string, number>();
const MAX_CACHED_SEGMENTS = 50_000;

/**
 * `countTokens(text)`, remembered for the next time the same text is counted (up to 50,000
 * texts): for texts counted again and again, such as an article in every round of REACT.
 */
export function countTokensRemembered(text: string): number {
  let n = segmentCounts.get(text);
  if (n === undefined) {
    n = countTokens(text);
    if (segmentCounts.size >= MAX_CACHED_SEGMENTS) segmentCounts.clear();
    segmentCounts.set(text, n);
  }
  return n;
}

/**
 * `countTokens(parts.join(""))`, computed part by part: neighbouring parts are counted apart
 * where the pre-tokenizer always cuts between them (after a line feed, before a character that
 * is neither white space nor "/"), else together, and each counted span is remembered. REACT
 * counts observer prompts that differ by which articles they hold; with each article's block as
 * a part, a recount costs little more than looking up its blocks.
 */
export function countTokensJoined(parts: readonly string[]): number {
  let total = 0;
  let span = "";
  const flush = (): void => {
    if (span.length === 0) return;
    const n = countTokensRemembered(span);
    total += n;
    span = "";
  };
  for (const part of parts) {
    if (part.length === 0) continue;
    if (!cutsHere(span, part)) {
      span += part;
      continue;
    }
    flush();
    span = part;
  }
  flush();
  return total;
}
