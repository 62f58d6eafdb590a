import type { RequestToken } from "@tandem/protocol";
import { ErrorCodes } from "@tandem/protocol/errors";
import { z } from "zod";
import { invalidParams, TandemError } from "../errors.js";
import type { Runtime } from "../runtime.js";
import type { RequestingClient } from "./requesting-client.js";
import { registerHistoryMethods } from "./handlers/history.js";
import { registerPendingAnswerMethods } from "./handlers/pending-answers.js";
import { registerServerMethods } from "./handlers/server.js";
import { registerSessionApiMethods } from "./handlers/session-api.js";
import { registerSessionFeatureMethods } from "./handlers/session-features.js";
import { registerCurrentClientMethods } from "./handlers/current-client.js";
import { registerSessionLifecycleMethods } from "./handlers/session-lifecycle.js";
import { registerCompactionMethods } from "./handlers/compaction.js";
import { registerCommandMethods } from "./handlers/commands.js";
import { registerExtensionMethods } from "./handlers/extensions.js";
import { registerClusterMethods } from "./handlers/cluster.js";
import { registerSessionsAdminMethods } from "./handlers/sessions-admin.js";
import { registerRemoteControlMethods } from "./handlers/remote-control.js";
import { registerServerMiscMethods } from "./handlers/server-misc.js";
import { registerUserSettingsMethods } from "./handlers/user-settings.js";
import { registerDiscoveryMethods } from "./handlers/discovery.js";
import { registerSessionAuthMethods } from "./handlers/session-auth.js";
import { registerAccountMethods } from "./handlers/accounts.js";
import { registerMcpMethods } from "./handlers/mcp.js";
import { registerMcpConfigMethods } from "./handlers/mcp-config.js";
import { registerSkillsPluginsMethods } from "./handlers/skills-plugins.js";
import { McpUserConfig } from "../mcp/user-config.js";
import { registerPluginMethods } from "./handlers/plugins.js";
import { PluginStore } from "../plugins/plugin-store.js";
import { registerSessionStateMethods } from "./handlers/session-state.js";
import { registerSessionExtrasMethods } from "./handlers/session-extras.js";
import { registerCompactionControlMethods } from "./handlers/compaction-control.js";
import { registerCanvasMethods } from "./handlers/canvas.js";
import { registerPermissionLocationMethods } from "./handlers/permission-locations.js";
import { registerPermissionPolicyMethods } from "./handlers/permission-policy.js";
import { registerTaskMethods } from "./handlers/tasks.js";
import { registerShellMethods } from "./handlers/shell.js";
import { registerUiMethods } from "./handlers/ui.js";
import { registerLifecycleMethods } from "./handlers/lifecycle.js";
import { registerLlmInferenceMethods } from "./handlers/llm-inference.js";
import { registerSessionFsMethods } from "./handlers/session-fs.js";
import { registerFactoryMethods } from "./handlers/factory.js";

type AnyToken = RequestToken<string, z.ZodType, z.ZodType>;

/** A method's handler: its validated params and the calling client in, its result out. */
export type Handler<T extends AnyToken> = (params: z.infer<T["params"]>, client: RequestingClient) => Promise<z.infer<T["result"]>> | z.infer<T["result"]>;

/** Where method handlers are registered (one per request token). */
export interface MethodTable {
  on<T extends AnyToken>(token: T, handle: Handler<T>): void;
}

/**
 * The method table: one handler per request token, params validated once, here. The handlers live
 * in `handlers/`, one file per area of the protocol.
 */
export class Dispatcher implements MethodTable {
  private readonly handlers = new Map<string, { token: AnyToken; handle: (params: unknown, client: RequestingClient) => unknown }>();
  /** Resolves once the events of a live session emitted so far have reached its clients. */
  private readonly eventsDelivered: (sessionId: string) => Promise<void> | undefined;

  constructor(runtime: Runtime) {
    this.eventsDelivered = (sessionId) => runtime.sessions.find(sessionId)?.emitter.delivered();
    registerServerMethods(this, runtime);
    registerSessionLifecycleMethods(this, runtime);
    registerPendingAnswerMethods(this, runtime);
    registerSessionFeatureMethods(this, runtime);
    registerSessionApiMethods(this, runtime);
    registerCurrentClientMethods(this, runtime);
    registerHistoryMethods(this, runtime);
    registerCompactionMethods(this, runtime);
    registerCommandMethods(this, runtime);
    registerExtensionMethods(this, runtime);
    registerClusterMethods(this, runtime);
    registerSessionsAdminMethods(this, runtime);
    registerRemoteControlMethods(this, runtime);
    registerServerMiscMethods(this, runtime);
    registerUserSettingsMethods(this, runtime);
    registerDiscoveryMethods(this, runtime);
    registerSessionAuthMethods(this, runtime);
    registerAccountMethods(this, runtime);
    registerMcpMethods(this, { session: (sessionId) => runtime.sessions.get(sessionId), env: runtime.environment });
    registerMcpConfigMethods(this, new McpUserConfig(runtime.store.home));
    const plugins = new PluginStore(runtime.store.home);
    registerPluginMethods(this, plugins, () => process.cwd());
    registerSkillsPluginsMethods(this, {
      skillsOf: (sessionId) => runtime.sessions.get(sessionId).skills,
      requireSession: (sessionId) => void runtime.sessions.get(sessionId),
      plugins: () => plugins.list(),
    });
    registerSessionStateMethods(this, runtime);
    registerSessionExtrasMethods(this, runtime);
    registerCompactionControlMethods(this, runtime);
    registerCanvasMethods(this, runtime);
    registerPermissionLocationMethods(this, runtime);
    registerPermissionPolicyMethods(this, (sessionId) => runtime.sessions.get(sessionId));
    registerTaskMethods(this, runtime);
    registerShellMethods(this, runtime);
    registerUiMethods(this, runtime);
    registerLifecycleMethods(this, runtime);
    registerLlmInferenceMethods(this, runtime.inferenceTransport);
    registerSessionFsMethods(this, runtime.sessionFs);
    registerFactoryMethods(this, runtime);
  }

  /**
   * Validates params against the method's schema and runs its handler. A method without a handler
   * (unknown, or in the protocol but not implemented by Tandem) answers -32601 `Unhandled method
   * <name>`, as the reference runtime does: the official SDKs test for it (e.g. to fall back).
   */
  async dispatch(method: string, params: unknown, client: RequestingClient): Promise<unknown> {
    const entry = this.handlers.get(method);
    if (!entry) throw new TandemError(ErrorCodes.MethodNotFound, `Unhandled method ${method}`);
    const parsed = entry.token.params.safeParse(params ?? undefined);
    if (!parsed.success) throw invalidParams(`Invalid params for ${method}: ${z.prettifyError(parsed.error)}`, { issues: parsed.error.issues });
    const result = await entry.handle(parsed.data, client);
    // The events a request caused reach the clients before its answer (they wait for the log's write).
    const sessionId = (parsed.data as { sessionId?: unknown } | undefined)?.sessionId;
    if (typeof sessionId === "string") await this.eventsDelivered(sessionId);
    return result;
  }

  /** Registers the handler of one method. */
  on<T extends AnyToken>(token: T, handle: Handler<T>): void {
    this.handlers.set(token.method, { token, handle: handle as (params: unknown, client: RequestingClient) => unknown });
  }
}
