/** Who answered a provider call: the model the server reports, and the project's test double's mark. */

export function servedByOpenAI(response: unknown): { servedModel?: string; standIn?: true } {
  const r = response as { model?: unknown; gbr_test_double?: unknown } | null;
  return {
    ...(typeof r?.model === "string" && r.model ? { servedModel: r.model } : {}),
    ...(r?.gbr_test_double === true ? { standIn: true as const } : {}),
  };
}

/** From a Gemini answer's raw body (the SDK drops fields it does not know) and, for chat, its `modelVersion`. */
export function servedByGemini(body: unknown, modelVersion?: string): { servedModel?: string; standIn?: true } {
  return {
    ...(modelVersion ? { servedModel: modelVersion } : {}),
    ...((body as { gbrTestDouble?: unknown } | null)?.gbrTestDouble === true ? { standIn: true as const } : {}),
  };
}
