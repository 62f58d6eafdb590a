import { ErrorCodes, TandemError } from "../errors.js";
import type { SessionEventLog } from "../store/types.js";
import type { SessionScope } from "./scope.js";

/** The `errorType` of the `session.error` a failed write produces. */
export const persistenceErrorType = "persistence";

/** What {@link SessionPersistence} reads of its session's scope: the id, the emitter (and its log) and the logger. */
export type PersistenceHost = Pick<SessionScope, "sessionId" | "emitter" | "logger">;

/**
 * What a session does when its state cannot be written (events file, `workspace.yaml`).
 *
 * Design: **refuse, don't hold-and-retry in the background.** On the first failed write the
 * session at once sends clients a `session.error` (`errorType: "persistence"`, naming the file and
 * the OS error; it goes to clients although it cannot be persisted yet), stops the running turn
 * and drops queued messages. Until its files can be written again, `session.send` is refused with
 * a `PersistenceFailed` JSON-RPC error; each refused send is itself a retry: it first writes what
 * is held (events in memory, in order, oldest first; then side files such as `workspace.yaml`)
 * and only accepts the message if that worked, announcing it with a `session.info`
 * (`infoType: "persistence"`). Why not keep running turns and retry in the background: every turn
 * run on a broken disk is work the user believes is saved and that a crash would lose, and a
 * background retry would have to interleave its writes with new ones; refusing keeps what is on
 * disk a prefix of what happened, so after a resume every user message is followed by its own
 * answer.
 *
 * @example
 * const persistence = new SessionPersistence(scope, () => turns.halt());
 * await persistence.ensureWritable(); // before accepting a message; throws PersistenceFailed
 */
export class SessionPersistence {
  /** The standing failure (the first one, for messages), or undefined while everything is written. */
  private failure: TandemError | undefined;
  /** Side files to write again before the session accepts messages, by path (latest content wins). */
  private readonly rewrites = new Map<string, () => Promise<void>>();
  private recovering: Promise<void> | undefined;

  /**
   * @param halt stops the running turn and background agents (no further model calls) and drops
   *   queued messages; returns how many queued messages were dropped.
   */
  constructor(
    private readonly host: PersistenceHost,
    private readonly halt: () => number,
  ) {
    host.emitter.log.watch({ failed: (error) => this.fail(error) });
  }

  /** Whether a write failed and has not been retried successfully yet. */
  get failed(): boolean {
    return this.failure !== undefined;
  }

  /**
   * Records a failed write: the first failure stops the session's work and is reported at once;
   * `rewrite` (for side files) is run again before the session accepts messages.
   */
  fail(error: TandemError, rewrite?: () => Promise<void>): void {
    const path = typeof error.data?.path === "string" ? error.data.path : this.log.location;
    if (rewrite) this.rewrites.set(path, rewrite);
    if (this.failure) return;
    this.failure = error;
    const dropped = this.halt();
    const droppedText = dropped > 0 ? ` ${dropped} queued message(s) were dropped.` : "";
    this.host.logger.error(`session ${this.host.sessionId}: ${error.message}`);
    const notice = {
      errorType: persistenceErrorType,
      message: `${error.message}. The running turn was stopped and the session accepts no messages until its files can be written again; events not yet written are held in memory and written first.${droppedText}`,
    };
    // Clients of a log that shows only written events hear of the failure at once all the same.
    if (!this.log.showsHeldEvents) this.host.emitter.notifyClients("session.error", notice);
    this.host.emitter.emit("session.error", notice);
  }

  /**
   * Writes everything held back by a failure (events first, in order; then side files). Resolves
   * when nothing is held; throws a `PersistenceFailed` error while that still fails.
   */
  ensureWritable(): Promise<void> {
    if (!this.failure) return Promise.resolve();
    this.recovering ??= this.recover().finally(() => {
      this.recovering = undefined;
    });
    return this.recovering;
  }

  private get log(): SessionEventLog {
    return this.host.emitter.log;
  }

  private async recover(): Promise<void> {
    const held = this.log.heldLines;
    await this.log.flush({ durable: true });
    const logFailure = this.log.failure;
    if (logFailure) throw this.refusal(logFailure, held);
    for (const [path, rewrite] of this.rewrites) {
      try {
        await rewrite();
      } catch (error) {
        throw this.refusal(error instanceof TandemError ? error : new TandemError(ErrorCodes.PersistenceFailed, String(error)), 0);
      }
      this.rewrites.delete(path);
    }
    this.failure = undefined;
    this.host.emitter.emit("session.info", {
      infoType: persistenceErrorType,
      message: `The session's files can be written again: ${held} held event(s) were written; messages are accepted again.`,
    });
  }

  private refusal(cause: TandemError, held: number): TandemError {
    const heldText = held > 0 ? ` ${held} event(s) are held in memory and will be written first.` : "";
    return new TandemError(
      ErrorCodes.PersistenceFailed,
      `Session ${this.host.sessionId} cannot accept messages while its files cannot be written: ${cause.message}. Free space (or fix the file system) and send again.${heldText}`,
      { ...cause.data, sessionId: this.host.sessionId, heldEvents: this.log.heldLines },
    );
  }
}
