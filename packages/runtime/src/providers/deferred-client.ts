import type { ModelInfo } from "@tandem/protocol";
import type { ModelClient, ModelRequest, ModelResponse, ModelStreamPart } from "./types.js";

/**
 * A model client whose real client is built on its first call, by `load` (which may import the
 * module that holds it). A failed load is tried again on the next call.
 *
 * @example
 * const client = new DeferredModelClient("anthropic", async () => new (await import("./ai-sdk-client.js")).AiSdkModelClient(adapter, timeouts));
 * await client.generate(request, onPart); // imports and builds the client here, once
 */
export class DeferredModelClient implements ModelClient {
  private client: Promise<ModelClient> | undefined;

  constructor(
    readonly name: string,
    private readonly load: () => Promise<ModelClient>,
  ) {}

  async generate(request: ModelRequest, onPart: (part: ModelStreamPart) => void): Promise<ModelResponse> {
    return (await this.loaded()).generate(request, onPart);
  }

  async listModels(): Promise<ModelInfo[]> {
    return (await this.loaded()).listModels();
  }

  private loaded(): Promise<ModelClient> {
    if (this.client) return this.client;
    const client = this.load();
    this.client = client;
    client.catch(() => {
      if (this.client === client) this.client = undefined;
    });
    return client;
  }
}
