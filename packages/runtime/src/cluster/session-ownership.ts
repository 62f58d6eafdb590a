import type { Logger } from "../log.js";
import type { SessionClaim, SessionOwnership } from "../session/ownership.js";
import type { Session } from "../session/session.js";
import { continueAfterTakeover } from "./takeover.js";

/** What {@link LeaseOwnership} needs of the cluster node: its id and its session leases. */
export interface LeaseHolder {
  readonly nodeId: string;
  /** Takes the session's lease; throws `SessionBusy` (with `ownerNode`) when another live node holds it. */
  claim(sessionId: string): Promise<SessionClaim>;
  /** Gives the session's lease up (in the background; failures are logged). */
  release(sessionId: string): void;
}

/**
 * A cluster node's session ownership: the node that holds a session's lease runs it. Opening a
 * session takes its lease, closing gives it back, and a session taken from a node that died
 * mid-turn continues its interrupted turn here (see `takeover.ts`).
 *
 * @example
 * sessions.ownedBy(new LeaseOwnership(clusterNode, logger));
 */
export class LeaseOwnership implements SessionOwnership {
  constructor(
    private readonly node: LeaseHolder,
    private readonly logger: Logger,
  ) {}

  claim(sessionId: string): Promise<SessionClaim> {
    return this.node.claim(sessionId);
  }

  released(sessionId: string): void {
    this.node.release(sessionId);
  }

  async tookOver(session: Session, fromNode: string): Promise<void> {
    if (!continueAfterTakeover(session, fromNode, this.node.nodeId)) return;
    this.logger.info(`session ${session.sessionId}: taken over from node ${fromNode} mid-turn; the turn continues here`);
  }
}
