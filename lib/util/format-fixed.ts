/**
 * Fixed-point formatting with exact ties half to even, as printf (trec_eval) and Python (toFixed rounds 0.03125 up).
 *
 * @example
 * formatFixed(0.03125, 4); // "0.0312"
 * formatFixed(0.03135, 4); // "0.0314" (0.03135 is slightly above the tie in binary)
 */
export function formatFixed(x: number, digits = 4): string {
  if (!Number.isFinite(x)) return String(x);
  const plain = x.toFixed(digits);
  // toFixed(100) is exact for every metric value we print; a tie is "5" followed only by zeros.
  const exact = Math.abs(x).toFixed(100);
  const dot = exact.indexOf(".");
  const tail = exact.slice(dot + 1 + digits);
  if (!/^50*$/.test(tail)) return plain;
  const truncated = exact.slice(0, dot + 1 + digits).replace(/\.$/, "");
  const lastDigit = Number(truncated[truncated.length - 1]);
  const sign = x < 0 ? "-" : "";
  if (lastDigit % 2 === 0) return sign + truncated;
  return plain;
}
