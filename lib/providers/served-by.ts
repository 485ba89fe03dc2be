/**
 * Who answered a provider call, as the answer itself says: the model name the server reports,
 * and whether it is the project's own test double, which marks every answer (`gbr_test_double`
 * in OpenAI-style bodies, `gbrTestDouble` in Gemini-style ones) so that results made through it
 * are shown as stand-ins.
 */

/**
 * From an OpenAI-style answer (chat or embeddings): its `model`, and the double's mark.
 */
export function servedByOpenAI(response: unknown): { servedModel?: string; standIn?: true } {
  const r = response as { model?: unknown; gbr_test_double?: unknown } | null;
  return {
    ...(typeof r?.model === "string" && r.model ? { servedModel: r.model } : {}),
    ...(r?.gbr_test_double === true ? { standIn: true as const } : {}),
  };
}

/**
 * From a Gemini answer's raw body (the SDK drops fields it does not know) and, for chat, the
 * `modelVersion` it reports.
 */
export function servedByGemini(body: unknown, modelVersion?: string): { servedModel?: string; standIn?: true } {
  return {
    ...(modelVersion ? { servedModel: modelVersion } : {}),
    ...((body as { gbrTestDouble?: unknown } | null)?.gbrTestDouble === true ? { standIn: true as const } : {}),
  };
}
