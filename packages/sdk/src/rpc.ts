import {
  AccountGetQuota,
  AuthGetStatus,
  ModelsList,
  Ping,
  SessionAgentDeselect,
  SessionAgentGetCurrent,
  SessionAgentList,
  SessionAgentReload,
  SessionAgentSelect,
  SessionCommandsExecute,
  SessionCommandsHandlePendingCommand,
  SessionCommandsInvoke,
  SessionCommandsList,
  SessionCommandsRespondToQueuedCommand,
  SessionCompactionCompact,
  SessionExitPlanModeHandlePendingRequest,
  SessionFleetStart,
  SessionHistoryListRewindPoints,
  SessionHistoryPreviewRewind,
  SessionHistoryRewind,
  SessionHistoryTruncate,
  SessionLog,
  SessionMcpDisable,
  SessionMcpEnable,
  SessionMcpList,
  SessionMcpReload,
  SessionModeGet,
  SessionModeSet,
  SessionModelGetCurrent,
  SessionModelSwitchTo,
  SessionPermissionsHandlePendingPermissionRequest,
  SessionPlanDelete,
  SessionPlanRead,
  SessionPlanUpdate,
  SessionSandboxDisableForSession,
  SessionSandboxGetEnforcementStatus,
  SessionSkillsDisable,
  SessionSkillsEnable,
  SessionSkillsList,
  SessionSkillsReload,
  SessionToolsHandlePendingToolCall,
  SessionUiHandlePendingElicitation,
  SessionUiHandlePendingExitPlanMode,
  SessionWorkspaceCreateFile,
  SessionWorkspaceListFiles,
  SessionWorkspaceReadFile,
  SessionWorkspacesDiff,
  SessionWorkspacesGetWorkspace,
  SessionWorkspacesListCheckpoints,
  SessionWorkspacesReadCheckpoint,
  StatusGet,
  ToolsList,
  SessionEventLogRead,
  SessionEventLogTail,
  SessionNameGet,
  SessionNameSet,
  SessionOptionsUpdate,
  SessionPermissionsConfigure,
  SessionPermissionsSetApproveAll,
  SessionQueueClear,
  SessionQueuePendingItems,
  SessionQueueRemoveAt,
  SessionQueueRemoveMostRecent,
  SessionsFork,
  SessionWorkspacesCreateFile,
  SessionWorkspacesListFiles,
  SessionWorkspacesReadFile,
} from "@tandem/protocol";
import type { AgentMode, RequestToken, ResultOf } from "@tandem/protocol";
import type { MessageConnection } from "vscode-jsonrpc/node.js";
import type { z } from "zod";
import { readModeGet, readModeSet, readPing, type PingResponse } from "./result-shapes.js";
import type { WithoutSessionId } from "./type-utils.js";

type AnyRequestToken = RequestToken<string, z.ZodType, z.ZodType>;

/** The params a caller may send for a token (the schema's input type, before defaults apply). */
type InputOf<T extends AnyRequestToken> = z.input<T["params"]>;


/** A server-scoped call: params as the token declares them. */
type ServerCall<T extends AnyRequestToken> = undefined extends InputOf<T>
  ? (params?: InputOf<T>) => Promise<ResultOf<T>>
  : (params: InputOf<T>) => Promise<ResultOf<T>>;

/**
 * A session-scoped call: the session id is filled in. Methods with nothing else to send take no
 * params; params are optional when none is required.
 */
type SessionCall<T extends AnyRequestToken> = keyof WithoutSessionId<InputOf<T>> extends never
  ? () => Promise<ResultOf<T>>
  : {} extends WithoutSessionId<InputOf<T>>
    ? (params?: WithoutSessionId<InputOf<T>>) => Promise<ResultOf<T>>
    : (params: WithoutSessionId<InputOf<T>>) => Promise<ResultOf<T>>;

function serverCall<T extends AnyRequestToken>(connection: MessageConnection, token: T): ServerCall<T> {
  const call = async (params?: unknown) => connection.sendRequest(token.method, params ?? {});
  return call as ServerCall<T>;
}

function sessionCall<T extends AnyRequestToken>(connection: MessageConnection, sessionId: string, token: T): SessionCall<T> {
  const call = async (params?: object) => connection.sendRequest(token.method, { sessionId, ...params });
  return call as SessionCall<T>;
}

/**
 * Typed server-scoped calls, built from the protocol's request tokens.
 *
 * @example
 * const { models } = await client.rpc.models.list();
 */
export function createServerRpc(connection: MessageConnection) {
  return {
    /** The time is epoch ms whichever shape the runtime answers in (see result-shapes.ts). */
    ping: async (params?: InputOf<typeof Ping>): Promise<PingResponse> => readPing(await serverCall(connection, Ping)(params)),
    status: { get: serverCall(connection, StatusGet) },
    auth: { getStatus: serverCall(connection, AuthGetStatus) },
    models: { list: serverCall(connection, ModelsList) },
    tools: { list: serverCall(connection, ToolsList) },
    account: { getQuota: serverCall(connection, AccountGetQuota) },
    /** @experimental */
    sessions: { fork: serverCall(connection, SessionsFork) },
  };
}

/**
 * The object behind `client.rpc`.
 *
 * @example
 * const rpc: ServerRpc = client.rpc;
 */
export type ServerRpc = ReturnType<typeof createServerRpc>;

/**
 * Typed session-scoped calls, built from the protocol's request tokens; `sessionId` is filled in.
 *
 * @example
 * await session.rpc.mode.set({ mode: "plan" });
 * const { content } = await session.rpc.plan.read();
 */
export function createSessionRpc(connection: MessageConnection, sessionId: string) {
  return {
    model: {
      getCurrent: sessionCall(connection, sessionId, SessionModelGetCurrent),
      switchTo: sessionCall(connection, sessionId, SessionModelSwitchTo),
    },
    mode: (() => {
      // Either shape of answer is read as 0.2.0's `{ mode }` (see result-shapes.ts).
      const get = async (): Promise<{ mode: AgentMode }> => readModeGet(await sessionCall(connection, sessionId, SessionModeGet)());
      const set = async (params: { mode: AgentMode }): Promise<{ mode: AgentMode }> =>
        readModeSet(await sessionCall(connection, sessionId, SessionModeSet)(params), params.mode, get);
      return { get, set };
    })(),
    plan: {
      read: sessionCall(connection, sessionId, SessionPlanRead),
      update: sessionCall(connection, sessionId, SessionPlanUpdate),
      delete: sessionCall(connection, sessionId, SessionPlanDelete),
    },
    workspace: {
      listFiles: sessionCall(connection, sessionId, SessionWorkspaceListFiles),
      readFile: sessionCall(connection, sessionId, SessionWorkspaceReadFile),
      createFile: sessionCall(connection, sessionId, SessionWorkspaceCreateFile),
    },
    /** The 1.0.x names of `workspace.*`. */
    workspaces: {
      listFiles: sessionCall(connection, sessionId, SessionWorkspacesListFiles),
      readFile: sessionCall(connection, sessionId, SessionWorkspacesReadFile),
      createFile: sessionCall(connection, sessionId, SessionWorkspacesCreateFile),
      /** @experimental The session's workspace, git checkpoints and diffs. */
      getWorkspace: sessionCall(connection, sessionId, SessionWorkspacesGetWorkspace),
      listCheckpoints: sessionCall(connection, sessionId, SessionWorkspacesListCheckpoints),
      readCheckpoint: sessionCall(connection, sessionId, SessionWorkspacesReadCheckpoint),
      diff: sessionCall(connection, sessionId, SessionWorkspacesDiff),
    },
    /** @experimental Rewind points, rewinds and truncation (the names of the official SDK 1.0). */
    history: {
      truncate: sessionCall(connection, sessionId, SessionHistoryTruncate),
      listRewindPoints: sessionCall(connection, sessionId, SessionHistoryListRewindPoints),
      previewRewind: sessionCall(connection, sessionId, SessionHistoryPreviewRewind),
      rewind: sessionCall(connection, sessionId, SessionHistoryRewind),
    },
    /** @experimental */
    name: {
      get: sessionCall(connection, sessionId, SessionNameGet),
      set: sessionCall(connection, sessionId, SessionNameSet),
    },
    /** @experimental */
    options: { update: sessionCall(connection, sessionId, SessionOptionsUpdate) },
    /** @experimental */
    eventLog: {
      read: sessionCall(connection, sessionId, SessionEventLogRead),
      tail: sessionCall(connection, sessionId, SessionEventLogTail),
    },
    /** @experimental Slash commands (1.0.x `session.commands.*`). */
    commands: {
      list: sessionCall(connection, sessionId, SessionCommandsList),
      invoke: sessionCall(connection, sessionId, SessionCommandsInvoke),
      execute: sessionCall(connection, sessionId, SessionCommandsExecute),
      handlePendingCommand: sessionCall(connection, sessionId, SessionCommandsHandlePendingCommand),
      respondToQueuedCommand: sessionCall(connection, sessionId, SessionCommandsRespondToQueuedCommand),
    },
    /** @experimental */
    queue: {
      pendingItems: sessionCall(connection, sessionId, SessionQueuePendingItems),
      removeAt: sessionCall(connection, sessionId, SessionQueueRemoveAt),
      removeMostRecent: sessionCall(connection, sessionId, SessionQueueRemoveMostRecent),
      clear: sessionCall(connection, sessionId, SessionQueueClear),
    },
    /** @experimental */
    fleet: { start: sessionCall(connection, sessionId, SessionFleetStart) },
    /** @experimental */
    agent: {
      list: sessionCall(connection, sessionId, SessionAgentList),
      getCurrent: sessionCall(connection, sessionId, SessionAgentGetCurrent),
      select: sessionCall(connection, sessionId, SessionAgentSelect),
      deselect: sessionCall(connection, sessionId, SessionAgentDeselect),
      reload: sessionCall(connection, sessionId, SessionAgentReload),
    },
    /** @experimental */
    compaction: { compact: sessionCall(connection, sessionId, SessionCompactionCompact) },
    mcp: {
      list: sessionCall(connection, sessionId, SessionMcpList),
      enable: sessionCall(connection, sessionId, SessionMcpEnable),
      disable: sessionCall(connection, sessionId, SessionMcpDisable),
      reload: sessionCall(connection, sessionId, SessionMcpReload),
    },
    /** The session's OS sandbox: what it really enforces, and turning it off (only with `allowBypass`). */
    sandbox: {
      getEnforcementStatus: sessionCall(connection, sessionId, SessionSandboxGetEnforcementStatus),
      disableForSession: sessionCall(connection, sessionId, SessionSandboxDisableForSession),
    },
    skills: {
      list: sessionCall(connection, sessionId, SessionSkillsList),
      enable: sessionCall(connection, sessionId, SessionSkillsEnable),
      disable: sessionCall(connection, sessionId, SessionSkillsDisable),
      reload: sessionCall(connection, sessionId, SessionSkillsReload),
    },
    /**
     * Answers to `elicitation.requested` (Tandem; the `onElicitationRequest` handler uses it) and, by
     * the official 1.0.x name, to `exit_plan_mode.requested` when no `onExitPlanModeRequest` handler is set.
     */
    ui: {
      handlePendingElicitation: sessionCall(connection, sessionId, SessionUiHandlePendingElicitation),
      handlePendingExitPlanMode: sessionCall(connection, sessionId, SessionUiHandlePendingExitPlanMode),
    },
    /** Tandem: answers to `exit_plan_mode.requested` (the `onExitPlanModeRequest` handler uses it). */
    exitPlanMode: { handlePendingRequest: sessionCall(connection, sessionId, SessionExitPlanModeHandlePendingRequest) },
    tools: { handlePendingToolCall: sessionCall(connection, sessionId, SessionToolsHandlePendingToolCall) },
    permissions: {
      handlePendingPermissionRequest: sessionCall(connection, sessionId, SessionPermissionsHandlePendingPermissionRequest),
      setApproveAll: sessionCall(connection, sessionId, SessionPermissionsSetApproveAll),
      configure: sessionCall(connection, sessionId, SessionPermissionsConfigure),
    },
    log: sessionCall(connection, sessionId, SessionLog),
  };
}

/**
 * The object behind `session.rpc`.
 *
 * @example
 * const rpc: SessionRpc = session.rpc;
 */
export type SessionRpc = ReturnType<typeof createSessionRpc>;
