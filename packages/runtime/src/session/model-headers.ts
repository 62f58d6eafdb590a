import type { ModelInfo } from "@tandem/protocol";
import { ErrorCodes } from "@tandem/protocol/errors";
import { TandemError, errorMessage } from "../errors.js";
import type { BearerTokenSource } from "../providers/routing.js";
import type { ModelClient, ModelRequest, ModelResponse, ModelStreamPart } from "../providers/types.js";
import type { ClientPort } from "./client-port.js";

/** What the per-request headers come from. */
export interface RequestHeadersSource {
  /** The `requestHeaders` of the message being answered, if it gave any. */
  turnHeaders(): Readonly<Record<string, string>> | undefined;
}

/**
 * A session's model client: the provider's client with the turn's `requestHeaders` added to
 * each request.
 *
 * @example
 * const client = new SessionModelClient(providerClient, { turnHeaders: () => runner.turnHeaders });
 */
export class SessionModelClient implements ModelClient {
  readonly name: string;

  constructor(
    private readonly inner: ModelClient,
    private readonly source: RequestHeadersSource,
  ) {
    this.name = inner.name;
  }

  generate(request: ModelRequest, onPart: (part: ModelStreamPart) => void): Promise<ModelResponse> {
    const headers = this.source.turnHeaders();
    if (!headers || Object.keys(headers).length === 0) return this.inner.generate(request, onPart);
    return this.inner.generate({ ...request, headers: { ...request.headers, ...headers } }, onPart);
  }

  listModels(): Promise<ModelInfo[]> {
    return this.inner.listModels();
  }
}

/**
 * Bearer tokens a client supplies for providers configured with `hasBearerTokenProvider`: asked
 * with `providerToken.getToken` (the session and the provider's name) once per request; the client
 * owns caching and refresh. The client asked is the most recent one that registered a token provider.
 *
 * @example
 * const tokens = clientBearerTokens(sessionId, () => session.clientFor({ kind: "providerToken" }));
 * const token = await tokens("default", signal);
 */
export function clientBearerTokens(sessionId: string, tokenClient: () => ClientPort | undefined): BearerTokenSource {
  return async (providerName, signal) => {
    const client = tokenClient();
    if (!client) {
      throw new TandemError(ErrorCodes.NotConfigured, `The bearer token of provider "${providerName}" comes from the client (hasBearerTokenProvider), but no connected client supplies it.`);
    }
    let reply: { token?: unknown } | undefined;
    try {
      reply = await client.sendRequest<{ token?: unknown }>("providerToken.getToken", { sessionId, providerName }, signal);
    } catch (error) {
      if (signal.aborted) throw error;
      throw new TandemError(ErrorCodes.NotConfigured, `The client could not supply the bearer token of provider "${providerName}": ${errorMessage(error)}`);
    }
    if (typeof reply?.token !== "string" || reply.token.length === 0) {
      throw new TandemError(ErrorCodes.NotConfigured, `The client answered providerToken.getToken for provider "${providerName}" without a token.`);
    }
    return reply.token;
  };
}
