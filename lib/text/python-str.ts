/** Python `str` behaviours the paper's reference code relies on (whitespace, strip, splitlines), byte for byte. */

/** Python 3's whitespace (`str.isspace()`): JS's `\s` without U+FEFF, plus U+001C–U+001F and U+0085; a `[…]` body. */
export const PY_WHITESPACE = "\\t\\n\\v\\f\\r\\x1c-\\x1f \\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000";

const PY_SPACE = new RegExp(`[${PY_WHITESPACE}]`);
const isPySpace = (c: number): boolean => PY_SPACE.test(String.fromCharCode(c));

/** Python's `s.strip()`: unlike `trim()`, keeps U+FEFF and removes U+001C–U+001F and U+0085. */
export function pyStrip(s: string): string {
  let start = 0;
  let end = s.length;
  while (start < end && isPySpace(s.charCodeAt(start))) start++;
  while (end > start && isPySpace(s.charCodeAt(end - 1))) end--;
  return start === 0 && end === s.length ? s : s.slice(start, end);
}

/** Python's `s.splitlines()`: splits at Python's line breaks, drops them; no empty last line after a final break. */
export function pySplitLines(s: string): string[] {
  const lines = s.split(/\r\n|[\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029]/);
  if (lines.length > 0 && lines[lines.length - 1] === "") lines.pop();
  return lines;
}
