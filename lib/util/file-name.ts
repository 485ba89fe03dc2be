/**
 * Experiment ids as file names every common file system accepts. Ids hold ":" (`oracle:bm25-…`, `rrf:a+b`), which
 * Windows refuses; the mapping is one to one, so two ids never share a file and a name reads back to its id.
 */

/** Characters Windows refuses in a name (POSIX refuses "/" and NUL, both here too), and "%", the escape itself. */
const ESCAPED = /[<>"/\\|?*%\u0000-\u001f\u007f\s]/u;
/** Names Windows reserves whatever the extension (CON.trec is the console too). */
const RESERVED = /^(con|prn|aux|nul|com[0-9¹²³]|lpt[0-9¹²³])(\.|$)/iu;

const hex = (ch: string) => [...Buffer.from(ch, "utf8")].map((b) => `%${b.toString(16).toUpperCase().padStart(2, "0")}`).join("");

/**
 * The file name (without extension) of an experiment id: ":" becomes "__" (readable, and legal everywhere), an
 * underscore next to another underscore or a colon becomes %5F (so "__" always means ":"), the characters some file
 * system refuses become %XX (their UTF-8 bytes), as do a trailing dot or space and the first letter of a reserved
 * Windows name. Everything else, "+" and Greek letters included, stays.
 *
 * @example
 * fileNameOf("rrf:bm25-greekstemmer+dense:qwen3-8b"); // "rrf__bm25-greekstemmer+dense__qwen3-8b"
 */
export function fileNameOf(id: string): string {
  if (id === "") throw new RangeError("an experiment id needs at least one character to name a file");
  const chars = [...id];
  let out = chars
    .map((ch, i) => {
      if (ch === ":") return "__";
      if (ch === "_" && [chars[i - 1], chars[i + 1]].some((n) => n === "_" || n === ":")) return "%5F";
      return ESCAPED.test(ch) ? hex(ch) : ch;
    })
    .join("");
  if (/[. ]$/.test(out)) out = out.slice(0, -1) + hex(out.slice(-1));
  if (RESERVED.test(out)) out = hex(out[0]) + out.slice(1);
  return out;
}

/**
 * The experiment id of a name `fileNameOf` made (the inverse: "__" back to ":", %XX back to bytes).
 *
 * @example
 * idOfFileName("rrf__bm25-greekstemmer+dense__qwen3-8b"); // "rrf:bm25-greekstemmer+dense:qwen3-8b"
 */
export function idOfFileName(name: string): string {
  const bytes: number[] = [];
  for (let i = 0; i < name.length; ) {
    if (name.startsWith("__", i)) {
      bytes.push(0x3a);
      i += 2;
    } else if (name[i] === "%" && /^[0-9A-F]{2}$/.test(name.slice(i + 1, i + 3))) {
      bytes.push(parseInt(name.slice(i + 1, i + 3), 16));
      i += 3;
    } else {
      const cp = name.codePointAt(i)!;
      const ch = String.fromCodePoint(cp);
      bytes.push(...Buffer.from(ch, "utf8"));
      i += ch.length;
    }
  }
  return Buffer.from(bytes).toString("utf8");
}
