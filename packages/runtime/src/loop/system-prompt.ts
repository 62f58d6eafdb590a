import type { SystemMessageConfig } from "@tandem/protocol";

/** Facts the base prompt mentions. */
export interface PromptFacts {
  workingDirectory: string;
  now: Date;
}

/**
 * The system prompt: Tandem's own base instructions, with the application's `systemMessage`
 * appended (`append`, the default) or used instead (`replace`).
 */
export function buildSystemPrompt(config: SystemMessageConfig | undefined, facts: PromptFacts): string {
  if (config?.mode === "replace") return config.content;
  const base = [
    "You are an autonomous software agent working for the user through the tools you are given.",
    "Work step by step: look before you change things, prefer small verifiable actions, and check results.",
    "Call tools when they help; when the task is done, answer concisely with what you did and found.",
    `The working directory is ${facts.workingDirectory}. The current date is ${facts.now.toISOString().slice(0, 10)}.`,
  ].join("\n");
  const extra = config?.content?.trim();
  return extra ? `${base}\n\n${extra}` : base;
}
