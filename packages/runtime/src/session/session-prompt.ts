import { buildSystemPrompt, type PromptFacts } from "../loop/system-prompt.js";
import { loadCustomInstructions } from "../loop/custom-instructions.js";
import type { SessionScopePort } from "../ports/session-scope.js";

/**
 * What {@link SessionPrompt} reads of its session's scope, at each build (a reconfigured session
 * builds from its new config): the system message, the working folder and the client that owns the
 * system message's `transform` sections.
 */
export type PromptHost = Pick<SessionScopePort, "sessionId" | "workingDirectory" | "config" | "logger" | "clients">;

/**
 * A session's base system prompt: built once per configuration from the config's system message
 * and the instruction files (read ahead by {@link prefetchFacts}), with the context a sessionStart
 * hook supplied appended.
 *
 * @example
 * const prompt = new SessionPrompt(scope);
 * prompt.prefetchFacts();
 * const system = await prompt.base();
 */
export class SessionPrompt {
  private cachedSystemPrompt: Promise<string> | undefined;
  /** The instruction files read for the system prompt (see {@link prefetchFacts}). */
  private cachedPromptFacts: Promise<PromptFacts> | undefined;

  constructor(private readonly host: PromptHost) {}

  /** The base system prompt, built once per configuration (a `transform` section asks the client). */
  async base(): Promise<string> {
    this.cachedSystemPrompt ??= (this.cachedPromptFacts ?? this.promptFacts())
      .then((facts) => buildSystemPrompt(this.host.config.systemMessage, facts, (sections) => this.transformSections(sections)))
      .catch((error: unknown) => {
        this.cachedSystemPrompt = undefined;
        throw error;
      });
    this.cachedPromptFacts = undefined;
    return this.cachedSystemPrompt;
  }

  /**
   * Starts reading the instruction files the system prompt includes, so that the first message
   * does not wait for them (a created session is usually sent a message at once). The prompt
   * itself is built on the first message: a `transform` section asks the client then, not before.
   */
  prefetchFacts(): void {
    if (this.cachedSystemPrompt || this.cachedPromptFacts) return;
    const facts = this.promptFacts();
    facts.catch(() => undefined);
    this.cachedPromptFacts = facts;
  }

  /** The configuration changed: the next prompt is built (and the instruction files read) again. */
  reset(): void {
    this.cachedSystemPrompt = undefined;
    this.cachedPromptFacts = undefined;
  }

  private async promptFacts(): Promise<PromptFacts> {
    const { config, workingDirectory } = this.host;
    // A replaced prompt has no place for instructions: nothing is read.
    const customInstructions = config.systemMessage?.mode === "replace" ? "" : await loadCustomInstructions({ ...config, workingDirectory });
    return { workingDirectory, now: new Date(), customInstructions };
  }

  private async transformSections(sections: Record<string, { content: string }>): Promise<Record<string, { content: string }>> {
    // The client that sent the system message holds its transform callbacks.
    const owner = this.host.clients.clientFor({ kind: "systemMessage" });
    if (!owner) return sections;
    try {
      const response = await owner.sendRequest<{ sections?: Record<string, { content: string }> }>("systemMessage.transform", {
        sessionId: this.host.sessionId,
        sections,
      });
      return response?.sections ?? sections;
    } catch (error) {
      this.host.logger.warn("systemMessage.transform failed; using the sections untransformed", error);
      return sections;
    }
  }
}
