/** Chat model ids are "<provider>:<model>", split at the first ":" only (Ollama's "gpt-oss:120b" holds one). */

/** The provider ("" when none) and the model name of a chat model id. */
export function splitModelId(id: string): { provider: string; model: string } {
  const i = id.indexOf(":");
  return i < 0 ? { provider: "", model: id } : { provider: id.slice(0, i), model: id.slice(i + 1) };
}
