import type { ReasoningEffort } from "@tandem/protocol";
import type { Session } from "./session.js";
import { moveWorkingDirectory } from "./working-directory.js";

/** The options `session.options.update` changes with effect; anything else is reported as ignored. */
export interface OptionsPatch {
  model?: string;
  reasoningEffort?: ReasoningEffort;
  availableTools?: string[];
  excludedTools?: string[];
  skillDirectories?: string[];
  disabledSkills?: string[];
  excludedBuiltinAgents?: string[];
  instructionDirectories?: string[];
  skipCustomInstructions?: boolean;
  workingDirectory?: string;
  [other: string]: unknown;
}

/**
 * Applies a `session.options.update` patch to a live session: a new `model` (with its
 * `reasoningEffort`) switches the model (`session.model_change`); a `reasoningEffort` alone applies
 * to the next model call; `availableTools` / `excludedTools` rebuild the offered tools
 * (`session.tools_updated`); `skillDirectories` / `disabledSkills` reload the skills;
 * `excludedBuiltinAgents`, `instructionDirectories` and `skipCustomInstructions` rebuild the agents
 * and the system prompt (reconfigure does both); `workingDirectory` moves the session (see
 * {@link moveWorkingDirectory}; `persist` writes its `workspace.yaml`). The other
 * 1.0.x fields (client names, feature flags, CAPI and shell settings…) mean nothing to Tandem and
 * are returned as `ignored` for the caller to log.
 */
export async function applyOptions(session: Session, patch: OptionsPatch, persist: () => Promise<void> = async () => undefined): Promise<{ ignored: string[] }> {
  const { sessionId: _sessionId, workingDirectory, model, reasoningEffort, availableTools, excludedTools, skillDirectories, disabledSkills, excludedBuiltinAgents, instructionDirectories, skipCustomInstructions, ...rest } = patch;
  const ignored = Object.keys(rest).filter((key) => rest[key] !== undefined);
  // Checked first: a folder that does not exist refuses the whole patch before anything changed.
  if (workingDirectory !== undefined) await moveWorkingDirectory(session.scope, workingDirectory, persist, (folder) => session.toolset.followWorkingDirectory(folder));
  if (model !== undefined && model !== session.scope.model) session.models.switchTo(model, reasoningEffort);
  else if (reasoningEffort !== undefined) session.reconfigure({ ...session.scope.config, reasoningEffort }, session.scope.model);
  if (availableTools !== undefined || excludedTools !== undefined) {
    session.reconfigure({ ...session.scope.config, ...(availableTools !== undefined ? { availableTools } : {}), ...(excludedTools !== undefined ? { excludedTools } : {}) }, session.scope.model);
  }
  const prompt = { excludedBuiltinAgents, instructionDirectories, skipCustomInstructions };
  const promptChanges = Object.fromEntries(Object.entries(prompt).filter(([, value]) => value !== undefined));
  if (Object.keys(promptChanges).length > 0) session.reconfigure({ ...session.scope.config, ...promptChanges }, session.scope.model);
  if (skillDirectories !== undefined || disabledSkills !== undefined) {
    const directories = skillDirectories ?? session.scope.config.skillDirectories ?? [];
    const disabled = disabledSkills ?? session.scope.config.disabledSkills ?? [];
    session.reconfigure({ ...session.scope.config, skillDirectories: directories, disabledSkills: disabled }, session.scope.model);
    await session.skills.reconfigure(directories, disabled);
  }
  return { ignored };
}
