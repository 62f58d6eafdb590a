import type { SessionCreate, SessionResume } from "@tandem/protocol";
import type { z } from "zod";
import { toCommandRegistrations } from "./commands.js";
import { hasHooks } from "./hooks.js";
import type { SessionHandlers } from "./session-backend.js";
import { splitSystemMessage } from "./system-message.js";
import type { TraceContext } from "./telemetry.js";
import { toToolDefinition } from "./tools.js";
import type { WithoutSessionId } from "./type-utils.js";
import type { ResumeSessionConfig, SessionConfig } from "./types.js";

/** The `session.create` params as the SDK sends them. */
export type SessionCreatePayload = z.input<typeof SessionCreate.params>;
/** The `session.resume` params as the SDK sends them. */
export type SessionResumePayload = z.input<typeof SessionResume.params>;

/** What a session config becomes: the local handlers and the wire fields shared by create and resume. */
export interface PreparedSessionConfig {
  handlers: SessionHandlers;
  wire: WithoutSessionId<SessionCreatePayload>;
}

/**
 * Splits a session config into the handlers that stay in this process and the wire fields the
 * official SDK sends (tools without handlers, zod parameters as JSON Schema, flags for the handlers).
 */
export function prepareSessionConfig(config: SessionConfig | ResumeSessionConfig): PreparedSessionConfig {
  const systemMessage = splitSystemMessage(config.systemMessage);
  const handlers: SessionHandlers = {
    tools: config.tools,
    onPermissionRequest: config.onPermissionRequest,
    onUserInputRequest: config.onUserInputRequest,
    hooks: config.hooks,
    transforms: systemMessage.transforms,
    onEvent: config.onEvent,
    onExitPlanModeRequest: config.onExitPlanModeRequest,
    onElicitationRequest: config.onElicitationRequest,
    commands: config.commands,
  };
  const wire = {
    model: config.model,
    clientName: config.clientName,
    reasoningEffort: config.reasoningEffort,
    tools: config.tools?.map(toToolDefinition),
    systemMessage: systemMessage.wire as SessionCreatePayload["systemMessage"],
    availableTools: config.availableTools,
    excludedTools: config.excludedTools,
    provider: config.provider,
    requestPermission: true,
    requestUserInput: !!config.onUserInputRequest,
    // Only when there is a handler, so the payload stays 0.2.0's otherwise.
    requestExitPlanMode: config.onExitPlanModeRequest ? true : undefined,
    hooks: hasHooks(config.hooks),
    workingDirectory: config.workingDirectory,
    streaming: config.streaming,
    mcpServers: config.mcpServers,
    envValueMode: "direct",
    customAgents: config.customAgents,
    agent: config.agent,
    configDir: config.configDir,
    skillDirectories: config.skillDirectories,
    disabledSkills: config.disabledSkills,
    excludedBuiltinAgents: config.excludedBuiltinAgents,
    instructionDirectories: config.instructionDirectories,
    skipCustomInstructions: config.skipCustomInstructions,
    organizationCustomInstructions: config.organizationCustomInstructions,
    infiniteSessions: config.infiniteSessions,
    enableFileChangeTracking: config.enableFileChangeTracking,
    worktreeIsolation: config.worktreeIsolation,
    reportIntent: config.reportIntent,
    sandbox: config.sandbox,
    commands: toCommandRegistrations(config.commands),
  } satisfies WithoutSessionId<SessionCreatePayload>;
  return { handlers, wire };
}

/** The `session.create` params, keys in the official SDK's order. */
export function buildCreatePayload(sessionId: string, prepared: PreparedSessionConfig, trace: TraceContext): SessionCreatePayload {
  const { wire } = prepared;
  return { ...trace, model: wire.model, sessionId, ...wire };
}

/** The `session.resume` params, keys in the official SDK's order. */
export function buildResumePayload(
  sessionId: string,
  prepared: PreparedSessionConfig,
  trace: TraceContext,
  disableResume: boolean | undefined,
): SessionResumePayload {
  const { wire } = prepared;
  return {
    ...trace,
    sessionId,
    clientName: wire.clientName,
    model: wire.model,
    reasoningEffort: wire.reasoningEffort,
    systemMessage: wire.systemMessage,
    availableTools: wire.availableTools,
    excludedTools: wire.excludedTools,
    tools: wire.tools,
    provider: wire.provider,
    requestPermission: wire.requestPermission,
    requestUserInput: wire.requestUserInput,
    hooks: wire.hooks,
    workingDirectory: wire.workingDirectory,
    configDir: wire.configDir,
    ...wire,
    disableResume,
  };
}
