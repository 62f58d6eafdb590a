import { SessionFsSetProvider } from "@tandem/protocol/methods/server-misc";
import type { SessionFsConfig } from "../../session-fs/client-file-system.js";
import type { MethodTable } from "../method-table.js";
import type { RequestingClient } from "../requesting-client.js";

/** What `sessionFs.setProvider` needs: the place that decides who keeps sessions. */
export interface SessionFsRegistry {
  setProvider(client: RequestingClient, config: SessionFsConfig): Promise<void>;
}

/**
 * `sessionFs.setProvider`: the calling client keeps the state of every session created or resumed
 * from now on in its own file system (see `session-fs/`). Refused (-32600) while sessions are open
 * or another connected client provides it.
 */
export function registerSessionFsMethods(table: MethodTable, registry: SessionFsRegistry): void {
  table.on(SessionFsSetProvider, async ({ initialCwd, sessionStatePath, conventions, capabilities }, client) => {
    await registry.setProvider(client, { initialCwd, sessionStatePath, conventions, sqlite: capabilities?.sqlite === true });
    return { success: true };
  });
}
