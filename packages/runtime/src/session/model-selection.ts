import type { SessionCreateParams } from "@tandem/protocol";
import type { ModelClient } from "../providers/types.js";
import { AutoModeSwitch } from "./auto-mode-switch.js";
import { clientBearerTokens, SessionModelClient } from "./model-headers.js";
import type { SessionScope } from "./scope.js";

/** How a model switch came about and what the new model can do. */
export interface ModelSwitchOptions {
  /** Why the model changed (`session.model_change.cause`), when not the user's choice. */
  readonly cause?: string;
  /** What the new model can do (e.g. vision), as the application says. */
  readonly modelCapabilities?: SessionCreateParams["modelCapabilities"];
}

/**
 * The model a session talks to: the client for the scope's model and configuration (built on first
 * use, with the bearer tokens a client provides and the running message's request headers), model
 * switches (which announce themselves with `session.model_change`), and the offer of the `auto`
 * model after a rate limit.
 *
 * @example
 * const models = new ModelSelection(scope, () => turns.turnHeaders);
 * models.switchTo("gpt-5", "high");
 * const response = await models.client().complete(request, signal);
 */
export class ModelSelection {
  /** Offers the `auto` model when the provider rate-limits the user (see `auto-mode-switch.ts`). */
  readonly autoSwitch: AutoModeSwitch;
  private current: ModelClient | undefined;

  /** @param turnHeaders the running message's `requestHeaders`, sent with its model calls. */
  constructor(
    private readonly scope: SessionScope,
    private readonly turnHeaders: () => Readonly<Record<string, string>> | undefined,
  ) {
    this.autoSwitch = new AutoModeSwitch(scope, (modelId, reasoningEffort, options) => this.switchTo(modelId, reasoningEffort, options));
  }

  /** The client for the current model and configuration. */
  client(): ModelClient {
    const { scope } = this;
    const tokens = clientBearerTokens(scope.sessionId, () => scope.clients.clientFor({ kind: "providerToken" }));
    this.current ??= new SessionModelClient(scope.services.createModelClient(scope.config, tokens, scope.logger), { turnHeaders: this.turnHeaders });
    return this.current;
  }

  /** The configuration or model changed some other way (a resume with new settings): the next call builds a new client. */
  forgetClient(): void {
    this.current = undefined;
  }

  /**
   * Switches the model (and optionally the reasoning effort and what the model can do); emits
   * `session.model_change` (with why, when given).
   */
  switchTo(modelId: string, reasoningEffort?: SessionCreateParams["reasoningEffort"], options: ModelSwitchOptions = {}): void {
    const { scope } = this;
    const { cause, modelCapabilities } = options;
    const previousModel = scope.model;
    scope.config = { ...scope.config, model: modelId, ...(reasoningEffort ? { reasoningEffort } : {}), ...(modelCapabilities ? { modelCapabilities } : {}) };
    scope.model = modelId;
    this.current = undefined;
    scope.emitter.emit("session.model_change", { previousModel, newModel: modelId, ...(reasoningEffort ? { reasoningEffort } : {}), ...(cause ? { cause } : {}) });
  }
}
