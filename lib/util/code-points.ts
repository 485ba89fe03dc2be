/**
 * String order as Python compares `str` values (by code point), for tie-breaks that must agree
 * with the paper's reference code. JavaScript's `<` compares UTF-16 code units, which differs
 * for characters outside the Basic Multilingual Plane.
 */

/**
 * Negative, zero or positive as `a` sorts before, with or after `b` in code-point order.
 */
export function compareCodePoints(a: string, b: string): number {
  if (a === b) return 0;
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x === y) continue;
    // Below the surrogates, and above them, unit order is code-point order; a surrogate (a
    // character beyond U+FFFF) sorts after every BMP character.
    const sx = x >= 0xd800 && x <= 0xdfff;
    const sy = y >= 0xd800 && y <= 0xdfff;
    if (sx === sy) return x - y;
    return sx ? 1 : -1;
  }
  return a.length - b.length;
}
