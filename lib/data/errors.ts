/**
 * A problem with input data. The message always names the file and, where one exists,
 * the line or id, so a researcher can open the file and fix it.
 *
 * @example
 * throw new DataError("duplicate id 'ΑΚ::914'", "corpus.jsonl", 12);
 */
export class DataError extends Error {
  constructor(
    readonly detail: string,
    readonly file?: string,
    readonly line?: number,
  ) {
    super(file ? `${file}${line !== undefined ? `:${line}` : ""}: ${detail}` : detail);
    this.name = "DataError";
  }
}
