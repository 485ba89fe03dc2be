/**
 * Token counting with OpenAI's o200k_harmony encoding (gpt-oss-120b's, the paper's LLM), used to
 * keep every REACT observer prompt under its 84,000-token budget exactly as the authors' code
 * measures it: tiktoken's "o200k_harmony" when available, else "o200k_base", with special-token
 * texts encoded as ordinary text (`disallowed_special=()`).
 *
 * The encoder comes from the npm package `gpt-tokenizer` (pure JavaScript, MIT). It is loaded on
 * first use because its rank table takes a few hundred milliseconds and some megabytes to build,
 * and most commands never count tokens.
 */

// The little of the module this file uses, declared here rather than imported: the package's
// own declarations use `export { x as "quoted-name" }`, which TypeScript before 5.6 cannot
// parse, and the project must also compile with TypeScript 5.0.
interface O200kModule {
  countTokens(text: string, options?: { disallowedSpecial?: Set<string> }): number;
}

/**
 * Name of the encoding `countTokens` uses.
 *
 * @example
 * console.log(`observer prompts counted with ${TOKEN_ENCODING}`); // "o200k_harmony"
 */
export const TOKEN_ENCODING = "o200k_harmony";

let encoder: O200kModule | undefined;
// Special-token texts such as "<|endoftext|>" are counted as ordinary text (Python tiktoken's
// `encode(text, disallowed_special=())`): a statute never means them, and counting must not throw.
const ORDINARY_TEXT = { disallowedSpecial: new Set<string>() };

function load(): O200kModule {
  // A CommonJS deep path: the package's root export is ESM-first under classic resolution, while
  // this file's `exports` entry ("./cjs/*") resolves under require() on Node 20 and in tsx.
  encoder ??= require("gpt-tokenizer/cjs/encoding/o200k_harmony") as O200kModule;
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
