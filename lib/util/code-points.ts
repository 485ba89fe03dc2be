/** Python's `str` order (by code point, unlike JS's UTF-16 `<`), for tie-breaks matching the reference code. */

export function compareCodePoints(a: string, b: string): number {
  if (a === b) return 0;
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x === y) continue;
    // Off the surrogates unit order is code-point order; a surrogate (beyond U+FFFF) sorts after all BMP chars.
    const sx = x >= 0xd800 && x <= 0xdfff;
    const sy = y >= 0xd800 && y <= 0xdfff;
    if (sx === sy) return x - y;
    return sx ? 1 : -1;
  }
  return a.length - b.length;
}
