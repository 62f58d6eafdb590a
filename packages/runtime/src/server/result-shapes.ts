import type { AgentMode } from "@tandem/protocol";

/** What a result's shape depends on: whether the client is a current one (it opened with `connect`). */
export interface ClientGeneration {
  readonly isCurrentClient: boolean;
}

/** `session.mode.get`: 0.2.0 clients get `{ mode }`, current ones the bare mode. */
export function modeGetResult(mode: AgentMode, client: ClientGeneration): { mode: AgentMode } | AgentMode {
  return client.isCurrentClient ? mode : { mode };
}

/**
 * `session.mode.set`: 0.2.0 clients get `{ mode }`; current ones 1.0's outcome, where `status` and
 * `modelChanged` are about the model (a mode change never switches it here).
 */
export function modeSetResult(mode: AgentMode, client: ClientGeneration): { mode: AgentMode } | { status: string; modelChanged: boolean; modeApplied: boolean } {
  return client.isCurrentClient ? { status: "unchanged", modelChanged: false, modeApplied: true } : { mode };
}

/** `session.skills.reload`: 0.2.0 clients get `{}`, current ones the (empty) load diagnostics. */
export function skillsReloadResult(client: ClientGeneration): Record<string, never> | { warnings: string[]; errors: string[] } {
  return client.isCurrentClient ? { warnings: [], errors: [] } : {};
}
