/** Text from outside the project (server messages, ids, file names) made safe to print on a terminal or in a log. */

// Beyond C0: DEL, C1 (U+0080–U+009F: 8-bit CSI/OSC), bidi embeddings, overrides and isolates, line and paragraph separators.
const BEYOND_C0 = "\\u007f-\\u009f\\u2028\\u2029\\u202a-\\u202e\\u2066-\\u2069";
const CONTROL = new RegExp(`[\\u0000-\\u001f${BEYOND_C0}]`, "g");
const CONTROL_BUT_NEWLINE = new RegExp(`[\\u0000-\\u0009\\u000b-\\u001f${BEYOND_C0}]`, "g");
const BEYOND_C0_ONLY = new RegExp(`[${BEYOND_C0}]`, "g");

const hex = (c: string, digits: number) => c.charCodeAt(0).toString(16).padStart(digits, "0");

/** Every control character shown as its escape, so an ESC sequence or a bidi override cannot act; `newlines` keeps LF. */
export function printable(text: string, opts: { newlines?: boolean } = {}): string {
  return text.replace(opts.newlines ? CONTROL_BUT_NEWLINE : CONTROL, (c) => (c.charCodeAt(0) < 0x100 ? `\\x${hex(c, 2)}` : `\\u${hex(c, 4)}`));
}

/** `JSON.stringify(value, null, 2)` for a terminal: the controls beyond C0 become `\u` escapes too (same value). */
export function printableJson(value: unknown): string {
  return JSON.stringify(value, null, 2).replace(BEYOND_C0_ONLY, (c) => `\\u${hex(c, 4)}`);
}
