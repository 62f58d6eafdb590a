import type { ReasoningEffort, SessionCreateParams } from "@tandem/protocol";
import type { SessionScopePort } from "../ports/session-scope.js";
import type { SessionProviders } from "../providers/session-providers.js";
import type { ModelSelection } from "./model-selection.js";

/** What switching models needs of a session: its model and configuration, model switches, and reconfiguring. */
export interface ModelSwitchHost {
  readonly scope: Pick<SessionScopePort, "model" | "config">;
  readonly models: Pick<ModelSelection, "switchTo">;
  reconfigure(config: SessionCreateParams, model: string): void;
}

/**
 * `session.model.switchTo`: a model added with `session.provider.add` (`<provider>/<id>`) brings
 * its provider along; leaving such a model for another one returns to the provider the session
 * had before (its own BYOK provider, or the runtime's default).
 *
 * @example
 * switchModel(session, runtime.addedProviders, "local/llama");
 */
export function switchModel(
  session: ModelSwitchHost,
  added: { peek(session: ModelSwitchHost): SessionProviders | undefined },
  modelId: string,
  reasoningEffort?: ReasoningEffort,
  modelCapabilities?: SessionCreateParams["modelCapabilities"],
): void {
  const providers = added.peek(session);
  const leavingAdded = providers?.has(session.scope.model) === true;
  session.models.switchTo(modelId, reasoningEffort, modelCapabilities ? { modelCapabilities } : {});
  if (!providers) return;
  const { provider: current, ...rest } = session.scope.config;
  if (providers.has(modelId)) {
    if (!leavingAdded) providers.ownProvider = current;
    session.reconfigure({ ...rest, provider: providers.providerFor(modelId) }, modelId);
    return;
  }
  if (leavingAdded) session.reconfigure(providers.ownProvider ? { ...rest, provider: providers.ownProvider } : rest, modelId);
}
