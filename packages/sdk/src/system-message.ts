/**
 * Identifiers of the system prompt sections that `customize` mode can override.
 *
 * @example
 * const section: SystemPromptSection = "tone";
 */
export type SystemPromptSection =
  | "identity"
  | "tone"
  | "tool_efficiency"
  | "environment_context"
  | "code_change_rules"
  | "guidelines"
  | "safety"
  | "tool_instructions"
  | "custom_instructions"
  | "last_instructions";

/**
 * What each {@link SystemPromptSection} holds, for documentation and tooling.
 *
 * @example
 * for (const [id, { description }] of Object.entries(SYSTEM_PROMPT_SECTIONS)) console.log(id, description);
 */
export const SYSTEM_PROMPT_SECTIONS: Record<SystemPromptSection, { description: string }> = {
  identity: { description: "Who the agent is and which mode it runs in" },
  tone: { description: "Answer style: brevity and output formatting" },
  tool_efficiency: { description: "How to use tools: parallel calls and batching" },
  environment_context: { description: "Working directory, OS, git root, directory listing and available tools" },
  code_change_rules: { description: "Rules for changing code: linting, tests, ecosystem tools, style" },
  guidelines: { description: "General working advice and good practice" },
  safety: { description: "Environment limits, forbidden actions and security policy" },
  tool_instructions: { description: "Instructions for individual tools" },
  custom_instructions: { description: "Repository and organisation custom instructions" },
  last_instructions: { description: "Closing instructions: parallel calls, persistence, finishing the task" },
};

/**
 * Rewrites one section: receives its current text, returns the new text.
 *
 * @example
 * const shout: SectionTransformFn = (content) => content.toUpperCase();
 */
export type SectionTransformFn = (currentContent: string) => string | Promise<string>;

/**
 * What to do with a section: a fixed action, or a {@link SectionTransformFn} run in this process.
 *
 * @example
 * const action: SectionOverrideAction = "remove";
 */
export type SectionOverrideAction = "replace" | "remove" | "append" | "prepend" | SectionTransformFn;

/**
 * One section override.
 *
 * @example
 * const override: SectionOverride = { action: "append", content: "Always answer in French." };
 */
export interface SectionOverride {
  action: SectionOverrideAction;
  /** Text for replace/append/prepend (ignored by remove). */
  content?: string;
}

/**
 * Append mode (the default): the runtime's prompt plus your text.
 *
 * @example
 * const systemMessage: SystemMessageAppendConfig = { content: "Be terse." };
 */
export interface SystemMessageAppendConfig {
  mode?: "append";
  content?: string;
}

/**
 * Replace mode: your text is the whole system prompt (the runtime's guardrails are dropped).
 *
 * @example
 * const systemMessage: SystemMessageReplaceConfig = { mode: "replace", content: "You are a calculator." };
 */
export interface SystemMessageReplaceConfig {
  mode: "replace";
  content: string;
}

/**
 * Customize mode: override individual sections and append text.
 *
 * @example
 * const systemMessage: SystemMessageCustomizeConfig = { mode: "customize", sections: { tone: { action: "replace", content: "Be formal." } } };
 */
export interface SystemMessageCustomizeConfig {
  mode: "customize";
  sections?: Partial<Record<SystemPromptSection, SectionOverride>>;
  content?: string;
}

/**
 * The `systemMessage` option of a session.
 *
 * @example
 * const systemMessage: SystemMessageConfig = { mode: "append", content: "Prefer small commits." };
 */
export type SystemMessageConfig = SystemMessageAppendConfig | SystemMessageReplaceConfig | SystemMessageCustomizeConfig;

/** The wire form of a system message, plus the transform callbacks that stay in this process. */
export interface SplitSystemMessage {
  wire: Record<string, unknown> | undefined;
  transforms: Map<string, SectionTransformFn> | undefined;
}

/**
 * Replaces function actions by `{action: "transform"}` on the wire; the runtime then asks for the
 * new text with `systemMessage.transform`.
 */
export function splitSystemMessage(config: SystemMessageConfig | undefined): SplitSystemMessage {
  if (!config || config.mode !== "customize" || !config.sections) {
    return { wire: config as Record<string, unknown> | undefined, transforms: undefined };
  }
  const transforms = new Map<string, SectionTransformFn>();
  const sections: Record<string, { action: string; content?: string }> = {};
  for (const [sectionId, override] of Object.entries(config.sections)) {
    if (!override) continue;
    if (typeof override.action === "function") {
      transforms.set(sectionId, override.action);
      sections[sectionId] = { action: "transform" };
      continue;
    }
    sections[sectionId] = { action: override.action, content: override.content };
  }
  if (transforms.size === 0) return { wire: config as unknown as Record<string, unknown>, transforms: undefined };
  return { wire: { ...config, sections }, transforms };
}

/** Runs the transform callbacks over the sections the runtime sent; a failing callback keeps the text. */
export async function applySectionTransforms(
  transforms: Map<string, SectionTransformFn> | undefined,
  sections: Record<string, { content: string }>,
): Promise<{ sections: Record<string, { content: string }> }> {
  const result: Record<string, { content: string }> = {};
  for (const [sectionId, { content }] of Object.entries(sections)) {
    const transform = transforms?.get(sectionId);
    if (!transform) {
      result[sectionId] = { content };
      continue;
    }
    try {
      result[sectionId] = { content: await transform(content) };
    } catch {
      result[sectionId] = { content };
    }
  }
  return { sections: result };
}
