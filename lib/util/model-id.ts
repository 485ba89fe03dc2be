/**
 * Chat model ids are "<provider>:<model>" ("openai:openai/gpt-oss-120b", "gemini:gemini-2.5-flash");
 * the model part may itself contain ":" (Ollama's "gpt-oss:120b"), so only the first one splits.
 */

/**
 * The provider and the model name of a chat model id ("" as provider when the id names none).
 */
export function splitModelId(id: string): { provider: string; model: string } {
  const i = id.indexOf(":");
  return i < 0 ? { provider: "", model: id } : { provider: id.slice(0, i), model: id.slice(i + 1) };
}
