import { RuntimeShutdown, SessionDetach, SessionGetMetadata } from "@tandem/protocol";
import type { RuntimeServices } from "../runtime-services.js";
import type { MethodTable } from "../method-table.js";

/**
 * What the current official SDK (1.0.x) calls that 0.2.0 names differently or not at all:
 * `session.detach` (its `disconnect()`), `runtime.shutdown` (its `stop()` of a runtime it spawned),
 * `session.getMetadata` (its `getSessionMetadata()`). (`session.workspaces.*`, 0.2.0's
 * `session.workspace.*` under its 1.0 name, is served with the session API in `session-api.ts`.)
 * `session.history.compact` is served beside 0.2.0's `session.compaction.compact` in `compaction.ts`.
 */
export function registerCurrentClientMethods(table: MethodTable, runtime: RuntimeServices): void {
  const sessions = runtime.sessions;
  table.on(SessionDetach, async ({ sessionId }, client) => {
    await sessions.detach(sessionId, client);
    if (client.extensionId === undefined) runtime.extensions.applicationLeft();
    return { success: true };
  });
  table.on(RuntimeShutdown, async (_params, client) => {
    await runtime.shutdownOnRequest(client);
    return null;
  });
  table.on(SessionGetMetadata, async ({ sessionId }) => {
    const session = (await sessions.list()).find((listed) => listed.sessionId === sessionId);
    return session ? { session } : {};
  });
}
