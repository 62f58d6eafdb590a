import type { Session } from "./session.js";

/** What claiming a session found: the node that ran it before and died, when there was one. */
export interface SessionClaim {
  takenOverFrom?: string;
}

/**
 * Which process may run a session. The session manager claims a session before it opens it,
 * says when it leaves memory, and hands over one claimed from a node that died once its first
 * client is attached. On one node every session is this process's ({@link SingleNodeOwnership});
 * in a cluster the node holding the session's lease runs it (`cluster/session-ownership.ts`).
 *
 * @example
 * const claim = await ownership.claim(sessionId); // throws SessionBusy when another node runs it
 * // … open the session …
 * if (claim.takenOverFrom) await ownership.tookOver(session, claim.takenOverFrom);
 */
export interface SessionOwnership {
  /** Takes the session for this process before it opens here; throws (`SessionBusy` with `ownerNode`) when another node runs it. */
  claim(sessionId: string): Promise<SessionClaim>;
  /** The session is no longer open here (another process may take it at once). */
  released(sessionId: string): void;
  /** A session claimed from a node that died was opened and its first client attached. */
  tookOver(session: Session, fromNode: string): Promise<void>;
}

/**
 * One node: every session is this process's, there is nothing to take or give back, and no
 * session is ever taken over.
 *
 * @example
 * const sessions = new SessionManager({ ...options }); // owned by a SingleNodeOwnership until a cluster is joined
 */
export class SingleNodeOwnership implements SessionOwnership {
  async claim(): Promise<SessionClaim> {
    return {};
  }

  released(): void {}

  async tookOver(): Promise<void> {}
}
