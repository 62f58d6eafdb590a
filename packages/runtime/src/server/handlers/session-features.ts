import { SessionAgentDeselect, SessionAgentGetCurrent, SessionAgentList, SessionAgentReload, SessionAgentSelect, SessionFleetStart, SessionMcpDisable, SessionMcpEnable, SessionMcpList, SessionMcpReload, SessionModeGet, SessionModeSet, SessionModelGetCurrent, SessionModelSwitchTo, SessionPlanDelete, SessionPlanRead, SessionPlanUpdate, SessionSkillsDisable, SessionSkillsEnable, SessionSkillsList, SessionSkillsReload, SessionWorkspaceCreateFile, SessionWorkspaceListFiles, SessionWorkspaceReadFile } from "@tandem/protocol";
import type { RuntimeServices } from "../runtime-services.js";
import type { MethodTable } from "../method-table.js";
import { switchModel } from "../../session/model-switch.js";
import { fleetPrompt } from "../../commands/fleet.js";

/** Per-session features: model, mode, plan and workspace files, agents, skills, MCP servers, fleet. */
export function registerSessionFeatureMethods(table: MethodTable, runtime: RuntimeServices): void {
  const sessions = runtime.sessions;
  table.on(SessionModelGetCurrent, ({ sessionId }) => {
    const session = sessions.get(sessionId);
    const { model, config } = session.scope;
    return { modelId: model, ...(config.reasoningEffort ? { reasoningEffort: config.reasoningEffort } : {}) };
  });
  table.on(SessionModelSwitchTo, ({ sessionId, modelId, reasoningEffort, modelCapabilities }) => {
    switchModel(sessions.get(sessionId), runtime.addedProviders, modelId, reasoningEffort, modelCapabilities);
    return { modelId };
  });
  table.on(SessionModeGet, ({ sessionId }, client) => client.profile.modeGetResult(sessions.get(sessionId).scope.mode));
  table.on(SessionModeSet, ({ sessionId, mode }, client) => {
    const session = sessions.get(sessionId);
    session.scope.setMode(mode);
    return client.profile.modeSetResult(session.scope.mode);
  });

  table.on(SessionPlanRead, ({ sessionId }) => sessions.get(sessionId).workspace.readPlan());
  table.on(SessionPlanUpdate, async ({ sessionId, content }) => {
    await sessions.get(sessionId).workspace.updatePlan(content);
    return {};
  });
  table.on(SessionPlanDelete, async ({ sessionId }) => {
    await sessions.get(sessionId).workspace.deletePlan();
    return {};
  });
  table.on(SessionWorkspaceListFiles, async ({ sessionId }) => ({ files: await sessions.get(sessionId).workspace.listFiles() }));
  table.on(SessionWorkspaceReadFile, async ({ sessionId, path }) => ({ content: await sessions.get(sessionId).workspace.readFile(path) }));
  table.on(SessionWorkspaceCreateFile, async ({ sessionId, path, content }) => {
    await sessions.get(sessionId).workspace.createFile(path, content);
    return {};
  });

  const summary = (agent: { name: string; displayName: string; description: string; model?: string }) => ({
    name: agent.name,
    displayName: agent.displayName,
    description: agent.description,
    ...(agent.model ? { model: agent.model } : {}),
  });
  table.on(SessionAgentList, ({ sessionId }) => ({ agents: sessions.get(sessionId).agents.customAgents().map(summary) }));
  table.on(SessionAgentGetCurrent, ({ sessionId }) => {
    const selected = sessions.get(sessionId).agents.selected;
    return { agent: selected ? summary(selected) : null };
  });
  table.on(SessionAgentSelect, ({ sessionId, name }) => ({ agent: summary(sessions.get(sessionId).agents.select(name)) }));
  table.on(SessionAgentDeselect, ({ sessionId }) => {
    sessions.get(sessionId).agents.deselect();
    return {};
  });
  table.on(SessionAgentReload, ({ sessionId }) => {
    const session = sessions.get(sessionId);
    session.agents.reload(session.scope.config.customAgents);
    return { agents: session.agents.customAgents().map(summary) };
  });

  table.on(SessionSkillsList, ({ sessionId }) => ({ skills: sessions.get(sessionId).skills.list() }));
  table.on(SessionSkillsEnable, ({ sessionId, name }) => {
    sessions.get(sessionId).skills.enable(name);
    return {};
  });
  table.on(SessionSkillsDisable, ({ sessionId, name }) => {
    sessions.get(sessionId).skills.disable(name);
    return {};
  });
  table.on(SessionSkillsReload, async ({ sessionId }, client) => {
    await sessions.get(sessionId).skills.load();
    return client.profile.skillsReloadResult();
  });

  table.on(SessionMcpList, ({ sessionId }) => {
    const { mcp } = sessions.get(sessionId).toolset;
    // Listing is what a client does to watch servers: it starts connecting them (once) if no turn has yet.
    void mcp.start();
    return { servers: mcp.list() };
  });
  table.on(SessionMcpEnable, async ({ sessionId, serverName }) => {
    await sessions.get(sessionId).toolset.mcp.enable(serverName);
    return {};
  });
  table.on(SessionMcpDisable, async ({ sessionId, serverName }) => {
    await sessions.get(sessionId).toolset.mcp.disable(serverName);
    return {};
  });
  table.on(SessionMcpReload, async ({ sessionId }) => {
    await sessions.get(sessionId).toolset.mcp.reload();
    return {};
  });
  table.on(SessionFleetStart, async ({ sessionId, prompt }) => {
    await sessions.get(sessionId).send({ sessionId, prompt: fleetPrompt(prompt) });
    return { started: true };
  });
}
