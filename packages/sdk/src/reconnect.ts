import { SessionGetMessages, type SessionEvent } from "@tandem/protocol";
import { ErrorCodes as RpcErrorCodes, ResponseError, type MessageConnection } from "vscode-jsonrpc/node.js";
import type { SessionBackend } from "./session-backend.js";
import type { ReconnectOptions } from "./types.js";

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** A session to move to the new connection: its backend and how to reopen it there (`session.resume`, whose answer it returns). */
export interface RecoverableSession {
  backend: SessionBackend;
  reopen(connection: MessageConnection): Promise<unknown>;
}

/** What {@link reconnect} needs from the client. */
export interface ReconnectHost {
  /** The client was stopped meanwhile: stop trying. */
  cancelled(): boolean;
  /** Opens a new connection (to the next endpoint); throws when none answers. */
  open(): Promise<MessageConnection>;
  /** The sessions to resume on it. */
  sessions(): RecoverableSession[];
  /** A session was resumed and caught up; `result` is the runtime's answer to its `session.resume` (it may name the session's owner). */
  resumed?(session: RecoverableSession, result: unknown): Promise<unknown>;
}

/**
 * Reconnects after a lost connection: opens a new one with exponential backoff (the next node each
 * attempt), then resumes every session on it and hands each the stored events it missed, from the
 * last one it saw (`session.getMessages`), then the live ones; each event once. A session whose
 * resume fails (its node's lease has not expired yet) is retried with the same backoff. Rejects
 * after `giveUpAfterMs`.
 *
 * @example
 * await reconnect(host, { initialDelayMs: 100, maxDelayMs: 5000, giveUpAfterMs: 120_000 });
 */
export async function reconnect(host: ReconnectHost, options: Required<ReconnectOptions>): Promise<void> {
  const deadline = Date.now() + options.giveUpAfterMs;
  let delay = options.initialDelayMs;
  for (;;) {
    if (host.cancelled()) throw new Error("The client was stopped while reconnecting");
    try {
      const connection = await host.open();
      if (host.cancelled()) throw new Error("The client was stopped while reconnecting");
      const resumed: Array<[RecoverableSession, unknown]> = [];
      for (const session of host.sessions()) resumed.push([session, await resumeSession(session, connection)]);
      for (const [session, result] of resumed) await host.resumed?.(session, result);
      return;
    } catch (error) {
      if (host.cancelled() || Date.now() + delay > deadline) throw error;
      await sleep(delay);
      delay = Math.min(delay * 2, options.maxDelayMs);
    }
  }
}

async function resumeSession(session: RecoverableSession, connection: MessageConnection): Promise<unknown> {
  session.backend.rebind(connection);
  const result = await session.reopen(connection);
  const { events } = (await connection.sendRequest(SessionGetMessages.method, { sessionId: session.backend.sessionId })) as { events: SessionEvent[] };
  session.backend.finishCatchUp(events);
  return result;
}

/**
 * Whether a request failed because its connection went away (its answer was lost), rather than
 * being answered with an error: such a request may be retried on the next connection.
 *
 * @example
 * if (lostWithConnection(error) && (await backend.awaitReconnect())) retry();
 */
export function lostWithConnection(error: unknown): boolean {
  if (error instanceof ResponseError) return error.code === RpcErrorCodes.PendingResponseRejected || error.code === RpcErrorCodes.ConnectionInactive;
  return true;
}
