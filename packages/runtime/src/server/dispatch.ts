import {
  accountMethods,
  canvasMethods,
  commandMethods,
  compactionControlMethods,
  discoveryMethods,
  extensionMethods,
  factoryMethods,
  historyMethods,
  lifecycleMethods,
  llmInferenceMethods,
  mcpConfigMethods,
  mcpMethods,
  permissionLocationMethods,
  permissionPolicyMethods,
  pluginMethods,
  remoteControlMethods,
  sandboxMethods,
  serverMiscMethods,
  sessionApiMethods,
  sessionAuthMethods,
  sessionExtrasMethods,
  sessionFsMethods,
  sessionsAdminMethods,
  sessionStateMethods,
  shellMethods,
  skillsPluginsMethods,
  taskMethods,
  uiMethods,
  userSettingsMethods,
} from "./area-methods.js";
import type { PluginStore } from "../plugins/plugin-store.js";
import type { RuntimeServices } from "./runtime-services.js";
import type { RequestingClient } from "./requesting-client.js";
import { LazyMethodTable } from "./method-areas.js";
import { registerClusterMethods } from "./handlers/cluster.js";
import { registerCompactionMethods } from "./handlers/compaction.js";
import { registerCurrentClientMethods } from "./handlers/current-client.js";
import { registerPendingAnswerMethods } from "./handlers/pending-answers.js";
import { registerServerMethods } from "./handlers/server.js";
import { registerSessionFeatureMethods } from "./handlers/session-features.js";
import { registerSessionLifecycleMethods } from "./handlers/session-lifecycle.js";

export type { AnyToken, Handler, MethodTable } from "./method-table.js";

/**
 * The method table: one handler per request token, params validated once (in {@link LazyMethodTable}).
 * The handlers live in `handlers/`, one file per area of the protocol. What a session's first
 * create and its turns use is registered at once; every other area is one line naming its methods
 * (by name, `area-methods.ts`) and importing its module on the first call of one of them, so a
 * runtime compiles and builds only the areas its clients use: their handlers, tokens and schemas
 * load with the area's module.
 */
export class Dispatcher extends LazyMethodTable {
  /** The plugin store shared by `plugins.*` and `session.plugins.list`, made on first use. */
  private plugins: Promise<PluginStore> | undefined;
  /** Resolves once the events of a live session emitted so far have reached its clients. */
  private readonly eventsDelivered: (sessionId: string) => Promise<void> | undefined;

  constructor(runtime: RuntimeServices) {
    super();
    this.eventsDelivered = (sessionId) => runtime.sessions.find(sessionId)?.emitter.delivered();
    registerServerMethods(this, runtime);
    registerSessionLifecycleMethods(this, runtime);
    registerPendingAnswerMethods(this, runtime);
    registerSessionFeatureMethods(this, runtime);
    registerCurrentClientMethods(this, runtime);
    registerCompactionMethods(this, runtime);
    registerClusterMethods(this, runtime);
    this.area(sessionApiMethods, async (table) => (await import("./handlers/session-api.js")).registerSessionApiMethods(table, runtime));
    this.area(historyMethods, async (table) => (await import("./handlers/history.js")).registerHistoryMethods(table, runtime));
    this.area(commandMethods, async (table) => (await import("./handlers/commands.js")).registerCommandMethods(table, runtime));
    this.area(extensionMethods, async (table) => (await import("./handlers/extensions.js")).registerExtensionMethods(table, runtime));
    this.area(sessionsAdminMethods, async (table) => (await import("./handlers/sessions-admin.js")).registerSessionsAdminMethods(table, runtime));
    this.area(remoteControlMethods, async (table) => (await import("./handlers/remote-control.js")).registerRemoteControlMethods(table, runtime));
    this.area(serverMiscMethods, async (table) => (await import("./handlers/server-misc.js")).registerServerMiscMethods(table, runtime));
    this.area(userSettingsMethods, async (table) => (await import("./handlers/user-settings.js")).registerUserSettingsMethods(table, runtime));
    this.area(discoveryMethods, async (table) => (await import("./handlers/discovery.js")).registerDiscoveryMethods(table, runtime));
    this.area(sessionAuthMethods, async (table) => (await import("./handlers/session-auth.js")).registerSessionAuthMethods(table, runtime));
    this.area(accountMethods, async (table) => (await import("./handlers/accounts.js")).registerAccountMethods(table, runtime));
    this.area(mcpMethods, async (table) => (await import("./handlers/mcp.js")).registerMcpMethods(table, { session: (sessionId) => runtime.sessions.get(sessionId), env: runtime.environment }));
    this.area(mcpConfigMethods, async (table) => (await import("./handlers/mcp-config.js")).registerMcpConfigMethods(table, new (await import("../mcp/user-config.js")).McpUserConfig(runtime.store.home)));
    this.area(pluginMethods, async (table) => (await import("./handlers/plugins.js")).registerPluginMethods(table, await this.pluginStore(runtime), () => process.cwd()));
    this.area(skillsPluginsMethods, async (table) => (await import("./handlers/skills-plugins.js")).registerSkillsPluginsMethods(table, {
      skillsOf: (sessionId) => runtime.sessions.get(sessionId).skills,
      requireSession: (sessionId) => void runtime.sessions.get(sessionId),
      plugins: async () => (await this.pluginStore(runtime)).list(),
    }));
    this.area(sessionStateMethods, async (table) => (await import("./handlers/session-state.js")).registerSessionStateMethods(table, runtime));
    this.area(sessionExtrasMethods, async (table) => (await import("./handlers/session-extras.js")).registerSessionExtrasMethods(table, runtime));
    this.area(compactionControlMethods, async (table) => (await import("./handlers/compaction-control.js")).registerCompactionControlMethods(table, runtime));
    this.area(canvasMethods, async (table) => (await import("./handlers/canvas.js")).registerCanvasMethods(table, runtime));
    this.area(permissionLocationMethods, async (table) => (await import("./handlers/permission-locations.js")).registerPermissionLocationMethods(table, runtime));
    this.area(taskMethods, async (table) => (await import("./handlers/tasks.js")).registerTaskMethods(table, runtime));
    this.area(shellMethods, async (table) => (await import("./handlers/shell.js")).registerShellMethods(table, runtime));
    this.area(uiMethods, async (table) => (await import("./handlers/ui.js")).registerUiMethods(table, runtime));
    this.area(lifecycleMethods, async (table) => (await import("./handlers/lifecycle.js")).registerLifecycleMethods(table, runtime));
    this.area(llmInferenceMethods, async (table) => (await import("./handlers/llm-inference.js")).registerLlmInferenceMethods(table, runtime.inferenceTransport));
    this.area(permissionPolicyMethods, async (table) => (await import("./handlers/permission-policy.js")).registerPermissionPolicyMethods(table, (sessionId) => runtime.sessions.get(sessionId)));
    this.area(sessionFsMethods, async (table) => (await import("./handlers/session-fs.js")).registerSessionFsMethods(table, runtime.sessionFs));
    this.area(factoryMethods, async (table) => (await import("./handlers/factory.js")).registerFactoryMethods(table, runtime));
    this.area(sandboxMethods, async (table) => (await import("./handlers/sandbox.js")).registerSandboxMethods(table, runtime));
  }

  private pluginStore(runtime: RuntimeServices): Promise<PluginStore> {
    this.plugins ??= import("../plugins/plugin-store.js").then(({ PluginStore }) => new PluginStore(runtime.store.home));
    return this.plugins;
  }

  /**
   * Runs the method (see {@link LazyMethodTable.dispatch}); a request naming a session is answered
   * only once the events it caused have reached that session's clients, which get an event only
   * once the log holds it: events come before the answer that follows them.
   */
  override async dispatch(method: string, params: unknown, client: RequestingClient): Promise<unknown> {
    const result = await super.dispatch(method, params, client);
    const sessionId = (params as { sessionId?: unknown } | null | undefined)?.sessionId;
    const delivered = typeof sessionId === "string" ? this.eventsDelivered(sessionId) : undefined;
    if (delivered) await delivered;
    return result;
  }
}
