/** String constants out of Python source without running Python, for the authors' notebook. */
import { GbrError } from "../util/errors";

/** An f-string, bytes literal, `\N{…}` escape or unterminated literal we will not read; `pos` is the offset. */
export class PythonLiteralError extends GbrError {
  constructor(message: string, readonly pos: number) {
    super(message, "PYTHON_LITERAL");
    this.name = "PythonLiteralError";
  }
}

const LITERAL_START = /([A-Za-z]{0,2})("""|'''|"|')/y;

export function literalStartsAt(src: string, pos: number): boolean {
  LITERAL_START.lastIndex = pos;
  const m = LITERAL_START.exec(src);
  return m !== null && /^(|[rRuUbBfF]|[rR][bBfF]|[bBfF][rR])$/.test(m[1]);
}

const SIMPLE_ESCAPES: Record<string, string> = { "\\": "\\", "'": "'", '"': '"', a: "\x07", b: "\b", f: "\f", n: "\n", r: "\r", t: "\t", v: "\v" };

/** The literal at `pos`, every str escape decoded; f-strings, bytes and \N{NAME} raise rather than yield a wrong text. */
export function parsePythonStringLiteral(src: string, pos: number): { value: string; end: number } {
  LITERAL_START.lastIndex = pos;
  const m = LITERAL_START.exec(src);
  if (!m) throw new PythonLiteralError("expected a string literal", pos);
  const prefix = m[1].toLowerCase();
  if (!["", "r", "u"].includes(prefix)) {
    const what = prefix.includes("b") ? "a bytes literal" : prefix.includes("f") ? "an f-string" : `prefix '${m[1]}'`;
    throw new PythonLiteralError(`${what} cannot be read without running Python`, pos);
  }
  const raw = prefix === "r";
  const quote = m[2];
  const triple = quote.length === 3;
  let i = pos + m[0].length;
  let out = "";
  for (;;) {
    if (i >= src.length) throw new PythonLiteralError(`unterminated string literal (opened with ${quote})`, pos);
    if (src.startsWith(quote, i)) return { value: out, end: i + quote.length };
    const ch = src[i];
    if (ch === "\n" && !triple) throw new PythonLiteralError("line break inside a single-quoted string literal", i);
    const next = src[i + 1];
    if (ch === "\\" && next === undefined) throw new PythonLiteralError("unterminated string literal (ends with a backslash)", pos);
    const [text, width] = ch !== "\\" ? [ch, 1] : raw ? [ch + next, 2] : escapeAt(src, i);
    out += text;
    i += width;
  }
}

/** The escape at `i` (a backslash, then `src[i + 1]`): its text and width; a raw literal keeps both characters. */
function escapeAt(src: string, i: number): [string, number] {
  const next = src[i + 1];
  if (next === "\n") return ["", 2]; // backslash-newline: the line continues, neither character is part of the value
  if (SIMPLE_ESCAPES[next] !== undefined) return [SIMPLE_ESCAPES[next], 2];
  if (next >= "0" && next <= "7") {
    const oct = /^[0-7]{1,3}/.exec(src.slice(i + 1, i + 4))![0];
    return [String.fromCodePoint(parseInt(oct, 8)), 1 + oct.length];
  }
  if (next === "x" || next === "u" || next === "U") {
    const width = next === "x" ? 2 : next === "u" ? 4 : 8;
    const hex = src.slice(i + 2, i + 2 + width);
    if (!new RegExp(`^[0-9A-Fa-f]{${width}}$`).test(hex)) throw new PythonLiteralError(`truncated \\${next} escape (needs ${width} hex digits)`, i);
    const cp = parseInt(hex, 16);
    if (cp > 0x10ffff) throw new PythonLiteralError(`\\U${hex} is beyond U+10FFFF`, i);
    return [String.fromCodePoint(cp), 2 + width];
  }
  if (next === "N") throw new PythonLiteralError("\\N{…} escapes are not supported", i);
  return ["\\" + next, 2]; // unknown escape: Python keeps the backslash
}

// Not decoded; an unterminated one-line literal ends at its line, so one bad line does not hide the rest of the cell.
const ANY_LITERAL = /"""(?:\\[\s\S]?|[^\\])*?(?:"""|$)|'''(?:\\[\s\S]?|[^\\])*?(?:'''|$)|"(?:\\[\s\S]?|[^\\"\n])*"?|'(?:\\[\s\S]?|[^\\'\n])*'?/y;

/** A right-hand side of (adjacent) literals only; anything else (a call, `+`, `.strip()`) would need Python. */
function parseStringExpression(src: string, pos: number): { value: string; end: number } {
  let i = pos;
  while (src[i] === " " || src[i] === "\t") i++;
  const paren = src[i] === "(";
  if (paren) i++;
  const parts: string[] = [];
  for (;;) {
    // Between literals: inside parentheses any whitespace and comments; outside, spaces and continuations only.
    for (;;) {
      if (src[i] === " " || src[i] === "\t" || src[i] === "\f") i++;
      else if (src[i] === "\\" && src[i + 1] === "\n") i += 2;
      else if (paren && (src[i] === "\n" || src[i] === "\r")) i++;
      else if (paren && src[i] === "#") while (i < src.length && src[i] !== "\n") i++;
      else break;
    }
    if (paren && src[i] === ")") {
      i++;
      break;
    }
    if (literalStartsAt(src, i)) {
      const lit = parsePythonStringLiteral(src, i);
      parts.push(lit.value);
      i = lit.end;
      continue;
    }
    if (paren) throw new PythonLiteralError(`unexpected ${describeAt(src, i)} inside the parentheses`, i);
    break;
  }
  if (parts.length === 0) throw new PythonLiteralError(`the value is ${describeAt(src, pos)}, not a string literal`, pos);
  let j = i;
  while (src[j] === " " || src[j] === "\t") j++;
  if (j < src.length && src[j] !== "\n" && src[j] !== "#" && src[j] !== ";") {
    throw new PythonLiteralError(`the string literal is followed by ${describeAt(src, j)}; only plain literals can be read`, j);
  }
  return { value: parts.join(""), end: i };
}

function describeAt(src: string, pos: number): string {
  const line = src.slice(pos).split("\n", 1)[0].trim();
  return pos >= src.length ? "the end of the cell" : `'${line.length > 40 ? line.slice(0, 40) + "…" : line}'`;
}

export type ConstantResult =
  | { ok: true; value: string; offset: number }
  | { ok: false; error: string; offset: number };

// `NAME =` or `NAME: type =` (not `==`); a `%magic` or `!shell` line; `NAME += …` and friends (code we do not run).
const ASSIGNMENT = /[ \t]*([A-Za-z_][A-Za-z0-9_]*)[ \t]*(?::[^=\n]*)?=(?!=)/y;
const IPYTHON_LINE = /[ \t]*[%!]/y;
const AUGMENTED = /[ \t]*([A-Za-z_][A-Za-z0-9_]*)[ \t]*(?:\+|-|\*\*?|\/\/?|%|@|&|\||\^|<<|>>)=/y;

/** `NAME = <literal>` at a logical line start, the last one winning; a non-literal or a later `+=` is an error result. */
export function extractStringConstants(source: string, names: Iterable<string>): Map<string, ConstantResult> {
  const wanted = new Set(names);
  const found = new Map<string, ConstantResult>();
  const src = source.replace(/\r\n?/g, "\n"); // Python reads source with universal newlines
  let i = 0;
  let depth = 0;
  let lineStart = true;
  while (i < src.length) {
    if (lineStart && depth === 0) {
      lineStart = false;
      IPYTHON_LINE.lastIndex = i;
      if (IPYTHON_LINE.test(src)) {
        // `%pip …`, `!ls …`: IPython syntax, not Python; a stray quote in it must not open a string.
        while (i < src.length && src[i] !== "\n") i++;
        continue;
      }
      AUGMENTED.lastIndex = i;
      const aug = AUGMENTED.exec(src);
      if (aug && wanted.has(aug[1])) {
        found.set(aug[1], { ok: false, error: "changed by an augmented assignment (+= …)", offset: i });
      } else {
        ASSIGNMENT.lastIndex = i;
        const m = ASSIGNMENT.exec(src);
        if (m && wanted.has(m[1])) {
          const rhs = ASSIGNMENT.lastIndex;
          try {
            const { value, end } = parseStringExpression(src, rhs);
            found.set(m[1], { ok: true, value, offset: i });
            i = end;
            continue;
          } catch (err) {
            found.set(m[1], { ok: false, error: (err as Error).message, offset: i });
            i = rhs; // scan the value as ordinary code
            continue;
          }
        }
      }
    }
    const c = src[i];
    if (c === "#") {
      while (i < src.length && src[i] !== "\n") i++;
    } else if (c === '"' || c === "'") {
      ANY_LITERAL.lastIndex = i;
      i = ANY_LITERAL.test(src) ? ANY_LITERAL.lastIndex : src.length;
    } else if (c === "\\" && src[i + 1] === "\n") {
      i += 2; // explicit continuation: still the same logical line
    } else {
      if (c === "(" || c === "[" || c === "{") depth++;
      else if (c === ")" || c === "]" || c === "}") depth = Math.max(0, depth - 1);
      else if (c === "\n" && depth === 0) lineStart = true;
      i++;
    }
  }
  return found;
}
