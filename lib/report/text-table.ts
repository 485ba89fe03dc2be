/**
 * A plain-text table for terminals: columns padded to their widest cell, numbers (cells that
 * parse as numbers) right-aligned, a rule under the header.
 *
 * @example
 * formatTable(["run", "nDCG@10"], [["bm25", "0.7025"]]);
 * // "run   nDCG@10\n----  -------\nbm25   0.7025\n"
 */
export function formatTable(header: string[], rows: string[][]): string {
  const width = header.map((h, i) => Math.max(len(h), ...rows.map((r) => len(r[i] ?? ""))));
  const numeric = header.map((_, i) => rows.length > 0 && rows.every((r) => /^-?[\d.]+%?$/.test(r[i] ?? "")));
  const cell = (text: string, i: number) => (numeric[i] ? text.padStart(width[i]) : text.padEnd(width[i]));
  const line = (cells: string[]) => cells.map((c, i) => cell(c ?? "", i)).join("  ").trimEnd();
  return [line(header), width.map((w) => "-".repeat(w)).join("  "), ...rows.map(line)].join("\n") + "\n";
}

// Greek with combining accents still occupies one column per base character.
function len(s: string): number {
  return s.normalize("NFC").length;
}

/**
 * Quotes a CSV field when needed (RFC 4180).
 *
 * @example
 * csvField('a "b", c'); // "\"a \"\"b\"\", c\""
 */
export function csvField(value: unknown): string {
  const s = value === undefined || value === null ? "" : String(value);
  return /[",\n\r]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

/**
 * CSV text from a header and rows.
 *
 * @example
 * toCsv(["a", "b"], [[1, "x"]]); // "a,b\n1,x\n"
 */
export function toCsv(header: string[], rows: unknown[][]): string {
  return [header.map(csvField).join(","), ...rows.map((r) => r.map(csvField).join(","))].join("\n") + "\n";
}
