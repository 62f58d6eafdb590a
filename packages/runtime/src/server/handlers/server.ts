import { AuthGetStatus, Connect, ModelsList, Ping, StatusGet, ToolsList } from "@tandem/protocol";
import type { RuntimeServices } from "../runtime-services.js";
import type { MethodTable } from "../method-table.js";
import { listBuiltinTools } from "../../tools/registry.js";
import { connectResult } from "../connect.js";
import { pingResult } from "../ping.js";

/** Server-scoped methods: health, status, auth, models, the built-in tool list. */
export function registerServerMethods(table: MethodTable, runtime: RuntimeServices): void {
  table.on(Ping, (params, client) => pingResult(params, runtime.protocolVersion, client.profile));
  // TCP clients were authenticated before they got here (see TcpAccessGate); stdio needs none.
  table.on(Connect, () => connectResult(runtime.protocolVersion, runtime.version));
  table.on(StatusGet, () => ({ version: runtime.version, protocolVersion: runtime.protocolVersion }));
  table.on(AuthGetStatus, () => runtime.authStatus());
  table.on(ModelsList, async () => ({ models: await runtime.listModels() }));
  table.on(ToolsList, () => ({ tools: listBuiltinTools() }));
}
