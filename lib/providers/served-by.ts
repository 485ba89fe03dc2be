/** Who answered a provider call: the model the server reports, and the project's test double's mark. */

function servedBy(model: unknown, testDouble: unknown): { servedModel?: string; standIn?: true } {
  const served = typeof model === "string" && model ? { servedModel: model } : {};
  return { ...served, ...(testDouble === true ? { standIn: true as const } : {}) };
}

export function servedByOpenAI(response: unknown): { servedModel?: string; standIn?: true } {
  const r = response as { model?: unknown; gbr_test_double?: unknown } | null;
  return servedBy(r?.model, r?.gbr_test_double);
}

/** From a Gemini answer's raw body (the SDK drops fields it does not know) and, for chat, its `modelVersion`. */
export function servedByGemini(body: unknown, modelVersion?: string): { servedModel?: string; standIn?: true } {
  return servedBy(modelVersion, (body as { gbrTestDouble?: unknown } | null)?.gbrTestDouble);
}
