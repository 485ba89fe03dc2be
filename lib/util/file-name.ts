/** Experiment ids as file names every common file system accepts, one to one (ids hold ":", which Windows refuses). */

/** Characters Windows or POSIX refuse in a name, and "%", the escape itself. */
const ESCAPED = /[<>"/\\|?*%\u0000-\u001f\u007f\s]/u;
/** Names Windows reserves whatever the extension (CON.trec is the console too). */
const RESERVED = /^(con|prn|aux|nul|com[0-9¹²³]|lpt[0-9¹²³])(\.|$)/iu;

const hex = (ch: string) => [...Buffer.from(ch, "utf8")].map((b) => `%${b.toString(16).toUpperCase().padStart(2, "0")}`).join("");

/**
 * The file name of an experiment id: ":" becomes "__", an underscore beside one or a colon %5F, refused characters
 * (and a trailing dot or space, a reserved name's first letter) %XX of their UTF-8 bytes; "+" and Greek stay.
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

/** The experiment id of a name `fileNameOf` made. */
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
