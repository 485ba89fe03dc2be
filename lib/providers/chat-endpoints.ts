/** One chat model behind several servers (a comma-separated base URL), through `EndpointSpread`. */
import { EndpointSpread, type SpreadOptions } from "./endpoints";
import type { EndpointStats } from "../models/servers";
import { ChatError, ChatProviderError, type ChatModel } from "../models/chat";

export type { EndpointStats, SpreadOptions };

export interface SpreadChatModel extends ChatModel {
  endpointStats(): EndpointStats[];
}

/** Whether a chat error is the endpoint's (try another) rather than the request's. */
function serverFailure(err: unknown): boolean {
  return err instanceof ChatProviderError && (err.status === undefined || err.status === 429 || err.status >= 500);
}

/** `models` (one per endpoint, each limiting its own requests in flight) as one chat model. */
export function spreadChat(models: readonly ChatModel[], opts: SpreadOptions = {}): SpreadChatModel {
  if (models.length === 0) throw new ChatError("spreadChat: no endpoint", "NOT_CONFIGURED");
  const spread = new EndpointSpread(
    models.map((m) => ({ client: m, endpoint: m.endpoint ?? m.id })),
    serverFailure,
    opts,
  );
  return {
    id: models[0].id,
    endpoint: models.map((m) => m.endpoint ?? m.id).join(", "),
    complete: (req) => spread.run((m) => m.complete(req)),
    endpointStats: () => spread.stats(),
    capacity: models.reduce((n, m) => n + (m.capacity ?? 1), 0),
  };
}
