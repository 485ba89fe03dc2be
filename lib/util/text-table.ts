import { printable } from "../util/printable";

/** A plain-text table, numeric cells right-aligned; control characters of cells shown as escapes (`printable`). */
export function formatTable(head: string[], body: string[][]): string {
  const header = head.map((h) => printable(h));
  const rows = body.map((r) => r.map((c) => printable(c ?? "")));
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

/** `text` in at most `max` characters: whole, or cut at the last space that leaves room for " …". */
export function clipAtWord(text: string, max: number): string {
  if (len(text) <= max) return text;
  const space = text.lastIndexOf(" ", max - 2);
  return space > 0 ? `${text.slice(0, space).trimEnd()} …` : `${text.slice(0, Math.max(0, max - 1))}…`;
}
