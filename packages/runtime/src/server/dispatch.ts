import {
  AccountGetQuota,
  AuthGetStatus,
  Connect,
  ModelsList,
  Ping,
  SessionAgentDeselect,
  SessionAgentGetCurrent,
  SessionAgentList,
  SessionAgentReload,
  SessionAgentSelect,
  SessionExitPlanModeHandlePendingRequest,
  SessionFleetStart,
  SessionAbort,
  SessionCreate,
  SessionDelete,
  SessionDestroy,
  SessionGetForeground,
  SessionGetLastId,
  SessionGetMessages,
  SessionList,
  SessionLog,
  SessionModelGetCurrent,
  SessionModelSwitchTo,
  SessionModeGet,
  SessionModeSet,
  SessionPermissionsHandlePendingPermissionRequest,
  SessionPlanDelete,
  SessionPlanRead,
  SessionPlanUpdate,
  SessionWorkspaceCreateFile,
  SessionWorkspaceListFiles,
  SessionWorkspaceReadFile,
  SessionResume,
  SessionSend,
  SessionSetForeground,
  SessionSkillsDisable,
  SessionMcpList,
  SessionMcpEnable,
  SessionMcpDisable,
  SessionMcpReload,
  SessionUiHandlePendingElicitation,
  SessionSkillsEnable,
  SessionSkillsList,
  SessionSkillsReload,
  SessionToolsHandlePendingToolCall,
  StatusGet,
  ToolsList,
  clientToServerRequests,
  type RequestToken,
} from "@tandem/protocol";
import { ErrorCodes } from "@tandem/protocol/errors";
import { z } from "zod";
import { invalidParams, TandemError } from "../errors.js";
import type { Runtime } from "../runtime.js";
import type { ClientConnection } from "./connection.js";
import { connectResult } from "./connect.js";
import { pingResult } from "./ping.js";
import { PreSerializedJson } from "./writer.js";
import { listBuiltinTools } from "../tools/registry.js";
import { readDecision } from "../permissions/decision.js";

type AnyToken = RequestToken<string, z.ZodType, z.ZodType>;
type Handler<T extends AnyToken> = (params: z.infer<T["params"]>, client: ClientConnection) => Promise<z.infer<T["result"]>> | z.infer<T["result"]>;

/** The method table: one handler per request token, params validated once, here. */
export class Dispatcher {
  private readonly handlers = new Map<string, { token: AnyToken; handle: (params: unknown, client: ClientConnection) => unknown }>();

  constructor(private readonly runtime: Runtime) {
    this.registerAll();
  }

  /** Validates params against the method's schema and runs its handler. */
  async dispatch(method: string, params: unknown, client: ClientConnection): Promise<unknown> {
    const entry = this.handlers.get(method);
    if (!entry) throw new TandemError(ErrorCodes.MethodNotFound, `Unhandled method ${method}`);
    const parsed = entry.token.params.safeParse(params ?? undefined);
    if (!parsed.success) throw invalidParams(`Invalid params for ${method}: ${z.prettifyError(parsed.error)}`, { issues: parsed.error.issues });
    return entry.handle(parsed.data, client);
  }

  private on<T extends AnyToken>(token: T, handle: Handler<T>): void {
    this.handlers.set(token.method, { token, handle: handle as (params: unknown, client: ClientConnection) => unknown });
  }

  private registerAll(): void {
    const runtime = this.runtime;
    const sessions = runtime.sessions;

    this.on(Ping, (params) => pingResult(params, runtime.protocolVersion));
    // TCP clients were authenticated before they got here (see TcpAccessGate); stdio needs none.
    this.on(Connect, () => connectResult(runtime.protocolVersion, runtime.version));
    this.on(StatusGet, () => ({ version: runtime.version, protocolVersion: runtime.protocolVersion }));
    this.on(AuthGetStatus, () => runtime.authStatus());
    this.on(ModelsList, async () => ({ models: await runtime.listModels() }));
    this.on(ToolsList, () => ({ tools: listBuiltinTools() }));
    this.on(AccountGetQuota, () => {
      throw new TandemError(ErrorCodes.NotAvailable, "Quota information is not available: Tandem does not meter usage; see your provider's dashboard.");
    });

    this.on(SessionCreate, (params, client) => sessions.create(params, client));
    this.on(SessionResume, (params, client) => sessions.resume(params, client));
    this.on(SessionSend, async (params) => ({ messageId: await sessions.get(params.sessionId).send(params) }));
    this.on(SessionAbort, async ({ sessionId }) => {
      const session = sessions.find(sessionId);
      if (!session) return { success: false, error: "Session not found or not currently active" };
      await session.abort();
      return { success: true };
    });
    // The events are spliced in as stored JSON text (100k events would otherwise be re-serialised).
    this.on(SessionGetMessages, ({ sessionId }) => new PreSerializedJson(sessions.get(sessionId).eventsJson()) as never);
    this.on(SessionDestroy, async ({ sessionId }, client) => {
      await sessions.release(sessionId, client);
      return { success: true };
    });
    this.on(SessionDelete, ({ sessionId }) => sessions.delete(sessionId));
    this.on(SessionList, async (params) => ({ sessions: await sessions.list(params?.filter) }));
    this.on(SessionGetLastId, async () => {
      const sessionId = await sessions.lastId();
      return sessionId ? { sessionId } : {};
    });
    this.on(SessionGetForeground, () => sessions.getForeground());
    this.on(SessionSetForeground, async ({ sessionId }) => {
      await sessions.setForeground(sessionId);
      return { success: true };
    });
    this.on(SessionLog, ({ sessionId, message, level, url }) => {
      const emitter = sessions.get(sessionId).emitter;
      const extra = url ? { url } : {};
      if (level === "error") return { eventId: emitter.emit("session.error", { errorType: "notification", message, ...extra }).id };
      if (level === "warning") return { eventId: emitter.emit("session.warning", { warningType: "notification", message, ...extra }).id };
      return { eventId: emitter.emit("session.info", { infoType: "notification", message, ...extra }).id };
    });

    this.on(SessionToolsHandlePendingToolCall, ({ sessionId, requestId, result, error }) => {
      const settled = sessions.get(sessionId).pending.settle(requestId, "tool", { result, error });
      return settled ? { success: true } : { success: false, error: `No pending tool call with requestId ${requestId}` };
    });
    this.on(SessionPermissionsHandlePendingPermissionRequest, ({ sessionId, requestId, result }) => {
      const session = sessions.get(sessionId);
      const decision = readDecision(result);
      const settled = session.pending.settle(requestId, "permission", decision.result);
      if (decision.valid) return settled ? { success: true } : { success: false, error: `No pending permission request with requestId ${requestId}` };
      // An answer the runtime cannot read still ends the wait (as a denial); the caller is told why.
      if (settled) runtime.logger.warn(`session ${sessionId}: permission request ${requestId} answered with an invalid decision (${decision.reason}); denied`);
      const outcome = settled ? `Permission request ${requestId} was resolved as denied.` : `No pending permission request with requestId ${requestId}.`;
      throw invalidParams(`Invalid permission decision: ${decision.reason}. ${outcome}`, { requestId });
    });

    this.on(SessionModelGetCurrent, ({ sessionId }) => ({ modelId: sessions.get(sessionId).model }));
    this.on(SessionModelSwitchTo, ({ sessionId, modelId, reasoningEffort }) => {
      sessions.get(sessionId).switchModel(modelId, reasoningEffort);
      return { modelId };
    });
    this.on(SessionModeGet, ({ sessionId }) => ({ mode: sessions.get(sessionId).mode }));
    this.on(SessionModeSet, ({ sessionId, mode }) => {
      const session = sessions.get(sessionId);
      session.setMode(mode);
      return { mode: session.mode };
    });

    this.on(SessionPlanRead, ({ sessionId }) => sessions.get(sessionId).workspace.readPlan());
    this.on(SessionPlanUpdate, async ({ sessionId, content }) => {
      await sessions.get(sessionId).workspace.updatePlan(content);
      return {};
    });
    this.on(SessionPlanDelete, async ({ sessionId }) => {
      await sessions.get(sessionId).workspace.deletePlan();
      return {};
    });
    this.on(SessionWorkspaceListFiles, async ({ sessionId }) => ({ files: await sessions.get(sessionId).workspace.listFiles() }));
    this.on(SessionWorkspaceReadFile, async ({ sessionId, path }) => ({ content: await sessions.get(sessionId).workspace.readFile(path) }));
    this.on(SessionWorkspaceCreateFile, async ({ sessionId, path, content }) => {
      await sessions.get(sessionId).workspace.createFile(path, content);
      return {};
    });

    const summary = (agent: { name: string; displayName: string; description: string }) => ({
      name: agent.name,
      displayName: agent.displayName,
      description: agent.description,
    });
    this.on(SessionAgentList, ({ sessionId }) => ({ agents: sessions.get(sessionId).agents.customAgents().map(summary) }));
    this.on(SessionAgentGetCurrent, ({ sessionId }) => {
      const selected = sessions.get(sessionId).agents.selected;
      return { agent: selected ? summary(selected) : null };
    });
    this.on(SessionAgentSelect, ({ sessionId, name }) => ({ agent: summary(sessions.get(sessionId).agents.select(name)) }));
    this.on(SessionAgentDeselect, ({ sessionId }) => {
      sessions.get(sessionId).agents.deselect();
      return {};
    });
    this.on(SessionAgentReload, ({ sessionId }) => {
      const session = sessions.get(sessionId);
      session.agents.reload(session.config.customAgents);
      return { agents: session.agents.customAgents().map(summary) };
    });

    this.on(SessionSkillsList, ({ sessionId }) => ({ skills: sessions.get(sessionId).skills.list() }));
    this.on(SessionSkillsEnable, ({ sessionId, name }) => {
      sessions.get(sessionId).skills.enable(name);
      return {};
    });
    this.on(SessionSkillsDisable, ({ sessionId, name }) => {
      sessions.get(sessionId).skills.disable(name);
      return {};
    });
    this.on(SessionSkillsReload, async ({ sessionId }) => {
      await sessions.get(sessionId).skills.load();
      return {};
    });

    this.on(SessionMcpList, ({ sessionId }) => ({ servers: sessions.get(sessionId).mcp.list() }));
    this.on(SessionMcpEnable, async ({ sessionId, serverName }) => {
      await sessions.get(sessionId).mcp.enable(serverName);
      return {};
    });
    this.on(SessionMcpDisable, async ({ sessionId, serverName }) => {
      await sessions.get(sessionId).mcp.disable(serverName);
      return {};
    });
    this.on(SessionMcpReload, async ({ sessionId }) => {
      await sessions.get(sessionId).mcp.reload();
      return {};
    });
    this.on(SessionUiHandlePendingElicitation, ({ sessionId, requestId, result }) => {
      const settled = sessions.get(sessionId).pending.settle(requestId, "elicitation", result);
      return settled ? { success: true } : { success: false, error: `No pending elicitation with requestId ${requestId}` };
    });
    this.on(SessionExitPlanModeHandlePendingRequest, ({ sessionId, requestId, action, feedback }) => {
      const settled = sessions.get(sessionId).pending.settle(requestId, "exitPlanMode", { action, feedback });
      return settled ? { success: true } : { success: false, error: `No pending exit-plan-mode request with requestId ${requestId}` };
    });
    this.on(SessionFleetStart, async ({ sessionId, prompt }) => {
      await sessions.get(sessionId).startFleet(prompt);
      return { started: true };
    });

    // Methods of the protocol that later work implements answer with a clear, typed error.
    for (const token of clientToServerRequests) {
      if (this.handlers.has(token.method)) continue;
      this.on(token as AnyToken, () => {
        throw new TandemError(ErrorCodes.NotAvailable, `${token.method} is not available in this version of Tandem`);
      });
    }
  }
}
