import type { ModelInfo } from "@tandem/protocol";
import { ErrorCodes } from "@tandem/protocol/errors";
import { TandemError, errorMessage } from "../errors.js";
import type { ModelClient, ModelRequest, ModelResponse, ModelStreamPart } from "../providers/types.js";
import type { ClientPort } from "./client-port.js";

/** The provider name the SDK uses for the session's single `provider` (SDK 1.0.x `DEFAULT_PROVIDER_NAME`). */
export const defaultProviderName = "default";

/** What the per-request headers come from. */
export interface RequestHeadersSource {
  readonly sessionId: string;
  /** The `requestHeaders` of the message being answered, if it gave any. */
  turnHeaders(): Readonly<Record<string, string>> | undefined;
  /** Whether the provider's bearer token comes from the client before each request. */
  readonly tokenFromClient: boolean;
  /** The client to ask for the token: the most recent one that registered a token provider. */
  tokenClient(): ClientPort | undefined;
}

/**
 * A session's model client: the provider's client with the headers of each request added — the
 * turn's `requestHeaders` and, for a provider configured with `hasBearerTokenProvider`,
 * `Authorization: Bearer <token>` with a token the client supplies (`providerToken.getToken`,
 * asked once per request: the client owns caching and refresh).
 *
 * @example
 * const client = new SessionModelClient(providerClient, session);
 */
export class SessionModelClient implements ModelClient {
  readonly name: string;

  constructor(
    private readonly inner: ModelClient,
    private readonly source: RequestHeadersSource,
  ) {
    this.name = inner.name;
  }

  async generate(request: ModelRequest, onPart: (part: ModelStreamPart) => void): Promise<ModelResponse> {
    const headers = { ...this.source.turnHeaders(), ...(await this.authorization(request.signal)) };
    if (Object.keys(headers).length === 0) return this.inner.generate(request, onPart);
    return this.inner.generate({ ...request, headers: { ...request.headers, ...headers } }, onPart);
  }

  listModels(): Promise<ModelInfo[]> {
    return this.inner.listModels();
  }

  private async authorization(signal: AbortSignal): Promise<Record<string, string>> {
    if (!this.source.tokenFromClient) return {};
    const client = this.source.tokenClient();
    if (!client) {
      throw new TandemError(ErrorCodes.NotConfigured, "The provider's bearer token comes from the client (hasBearerTokenProvider), but no connected client supplies it.");
    }
    let reply: { token?: unknown } | undefined;
    try {
      reply = await client.sendRequest<{ token?: unknown }>("providerToken.getToken", { sessionId: this.source.sessionId, providerName: defaultProviderName }, signal);
    } catch (error) {
      if (signal.aborted) throw error;
      throw new TandemError(ErrorCodes.NotConfigured, `The client could not supply the provider's bearer token: ${errorMessage(error)}`);
    }
    if (typeof reply?.token !== "string" || reply.token.length === 0) {
      throw new TandemError(ErrorCodes.NotConfigured, "The client answered providerToken.getToken without a token.");
    }
    return { Authorization: `Bearer ${reply.token}` };
  }
}
