import type { Logger } from "../log.js";
import type { RequestingClient } from "../ports/clients.js";
import { resumeParamsOf } from "../session/clients.js";
import type { SessionManager } from "../session/manager.js";
import type { ClusterHost } from "./cluster-node.js";
import type { RemoteClient } from "./remote-client.js";
import { keepTurnRunning, resumeUnattended } from "./unattended.js";

/** What a node's {@link ClusterHost} is made of: this process's sessions and client connections. */
export interface NodeHostParts {
  sessions: SessionManager;
  /** The clients connected to this process. */
  connections(): Iterable<RequestingClient>;
  /** Routes a request (here, or to the node that runs its session). */
  dispatch(method: string, params: unknown, client: RequestingClient): Promise<unknown>;
  /** Runs a request here, without routing. */
  dispatchHere(method: string, params: unknown, client: RequestingClient): Promise<unknown>;
  notifyClientsHere(method: string, params: unknown): void;
  logger: Logger;
}

/**
 * The runtime as a cluster node sees it: which sessions run here, its clients, and what the node
 * does to them when a lease is lost (step down), a client's node dies (its turns go on
 * unattended), or the database comes back (held writes are retried).
 */
export function clusterHostFor(parts: NodeHostParts): ClusterHost {
  const { sessions, logger } = parts;
  const steppingDown = new Map<string, Promise<void>>();
  const local = (port: unknown): RequestingClient | undefined => [...parts.connections()].find((connection) => connection === port);

  /**
   * This node lost the session's lease (it was paused or cut off past the TTL, and another node
   * took the session): the session leaves memory without writing anything more, and this node's
   * clients attached to it open it again, which reads it fresh from the database (here when the
   * lease is free, else at the node that holds it, through the router).
   */
  const stepDown = async (sessionId: string): Promise<void> => {
    const session = sessions.find(sessionId);
    if (!session) return;
    logger.warn(`session ${sessionId}: this node lost its lease (another node took the session); it steps down and its clients open it again from the database`);
    const attached = session.scope.clients.attached().flatMap(([port, registration]) => {
      const client = local(port);
      return client?.isOpen ? [{ client, registration }] : [];
    });
    sessions.evict(sessionId);
    for (const { client, registration } of attached) {
      await parts.dispatch("session.resume", { sessionId, disableResume: true, ...resumeParamsOf(registration) }, client);
    }
  };

  /** A client of another node left: when its node died, a busy session it was the last client of keeps its turn running unattended. */
  const remoteClientLeft = async (client: RemoteClient): Promise<void> => {
    if (client.closeReason === "node-lost") {
      for (const session of sessions.liveSessions()) {
        if (!session.isAttached(client) || session.emitter.sinkCount !== 1 || !session.turns.busy) continue;
        logger.info(`session ${session.sessionId}: the node of its clients died mid-turn; the turn goes on unattended`);
        keepTurnRunning(session, (stand) => sessions.detach(session.sessionId, stand));
      }
    }
    await sessions.detachAll(client);
  };

  return {
    isLive: (sessionId) => sessions.find(sessionId) !== undefined,
    liveSessionIds: () => sessions.liveSessions().map((session) => session.sessionId),
    findClient: (clientId) => [...parts.connections()].find((client) => client.id === clientId),
    runLocal: (method, params, client) => parts.dispatchHere(method, params, client),
    adoptRemote: (client) => client.onClose(() => void remoteClientLeft(client).catch((error: unknown) => logger.error("failed to release sessions of a remote client", error))),
    lostSession: (sessionId) => {
      const known = steppingDown.get(sessionId);
      if (known) return known;
      const stepping = stepDown(sessionId)
        .catch((error: unknown) => logger.warn(`session ${sessionId}: could not attach its clients again after this node lost its lease`, error))
        .finally(() => steppingDown.delete(sessionId));
      steppingDown.set(sessionId, stepping);
      return stepping;
    },
    retryHeldWrites: () => {
      for (const session of sessions.liveSessions()) {
        if (session.emitter.log.failure) void session.persistence.ensureWritable().catch(() => undefined);
      }
    },
    stuckSessions: () =>
      sessions.liveSessions().flatMap((session) => {
        const failure = session.emitter.log.failure;
        return failure ? [{ sessionId: session.sessionId, reason: failure.message }] : [];
      }),
    notifyClientsHere: (method, params) => parts.notifyClientsHere(method, params),
    resumeUnattended: (sessionId) =>
      resumeUnattended(sessionId, {
        resume: (params, client) => parts.dispatchHere("session.resume", params, client),
        isBusy: (id) => sessions.find(id)?.turns.busy === true,
        detach: (id, client) => sessions.detach(id, client),
      }),
  };
}
