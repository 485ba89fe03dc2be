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
 *
 * @example
 * console.log(`observer prompts counted with ${TOKEN_ENCODING}`); // "o200k_harmony"
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
 * Number of o200k_harmony tokens in `text`. Special-token markers count as plain text. Repeated
 * words are served from the encoder's merge cache, so re-counting a prompt that grew by one
 * article costs little more than the article.
 *
 * o200k_harmony shares o200k_base's vocabulary, merges and pre-tokenizer and only adds special
 * tokens, so with special tokens read as text the two counts are the same (a test checks it).
 *
 * @example
 * countTokens("hello world"); // 2
 * countTokens("Η αγωγή απορρίπτεται ως αόριστη."); // 16
 */
export function countTokens(text: string): number {
  if (text.length === 0) return 0;
  return load().countTokens(text, ORDINARY_TEXT);
}
