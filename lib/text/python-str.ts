/**
 * The few Python `str` behaviours the paper's reference code relies on, for code that must give
 * byte-identical results: Python's idea of whitespace (which differs from JavaScript's `\s` and
 * `trim()`), `str.strip()` and `str.splitlines()`.
 */

/**
 * Python 3's whitespace (`str.isspace()`, and what `\s` matches in a `str` regex): JavaScript's
 * `\s` set without U+FEFF, plus the information separators U+001C–U+001F and NEL U+0085. As a
 * regex character-class body, to be wrapped in `[…]`.
 */
export const PY_WHITESPACE = "\\t\\n\\v\\f\\r\\x1c-\\x1f \\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000";

function isPySpace(c: number): boolean {
  return (
    (c >= 0x09 && c <= 0x0d) ||
    (c >= 0x1c && c <= 0x20) ||
    c === 0x85 ||
    c === 0xa0 ||
    c === 0x1680 ||
    (c >= 0x2000 && c <= 0x200a) ||
    c === 0x2028 ||
    c === 0x2029 ||
    c === 0x202f ||
    c === 0x205f ||
    c === 0x3000
  );
}

/**
 * Python's `s.strip()`: removes Python whitespace from both ends (unlike `trim()`, it keeps
 * U+FEFF and removes U+001C–U+001F and U+0085).
 */
export function pyStrip(s: string): string {
  let start = 0;
  let end = s.length;
  while (start < end && isPySpace(s.charCodeAt(start))) start++;
  while (end > start && isPySpace(s.charCodeAt(end - 1))) end--;
  return start === 0 && end === s.length ? s : s.slice(start, end);
}

/**
 * Python's `s.splitlines()`: splits at \n, \r, \r\n, \v, \f, \x1c, \x1d, \x1e, \x85, U+2028 and
 * U+2029, drops the line breaks, and gives no empty last line for a trailing break.
 */
export function pySplitLines(s: string): string[] {
  const lines = s.split(/\r\n|[\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029]/);
  if (lines.length > 0 && lines[lines.length - 1] === "") lines.pop();
  return lines;
}
