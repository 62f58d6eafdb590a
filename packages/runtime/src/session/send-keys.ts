import { ErrorCodes, errorMessage, invalidParams, TandemError } from "../errors.js";

/** The longest idempotency key `session.send` takes, in characters. */
export const MAX_IDEMPOTENCY_KEY_CHARS = 200;

/**
 * The idempotency keys of a session's sends: each key the message id of the send that carried it,
 * so a client that retries a send (its connection or its node died before the answer) gets the
 * original answer instead of a second turn. Keys of recorded messages come from the persisted
 * `user.message` events (`data.idempotencyKey`, rebuilt on resume on any node); a send still being
 * acknowledged is shared by its retries; a send that failed forgets its key, so a retry runs it.
 *
 * @example
 * const keys = new SendKeys({ "k1": "m1" });
 * await keys.find("k1"); // "m1"
 */
export class SendKeys {
  private readonly byKey = new Map<string, Promise<string>>();

  constructor(recorded: Readonly<Record<string, string>> = {}) {
    for (const [key, messageId] of Object.entries(recorded)) this.byKey.set(key, Promise.resolve(messageId));
  }

  /** The answer of the send that carried `key` (pending while it is acknowledged), or undefined. */
  find(key: string): Promise<string> | undefined {
    return this.byKey.get(key);
  }

  /** Remembers the send carrying `key`; forgets it again when that send fails. */
  remember(key: string, answer: Promise<string>): void {
    this.byKey.set(key, answer);
    answer.catch((error: unknown) => {
      if (this.byKey.get(key) !== answer) return;
      // A message held in memory is written first once the store is back: a retry must not run it again.
      const held = error instanceof TandemError ? error.data?.heldMessageId : undefined;
      if (typeof held === "string") this.byKey.set(key, Promise.resolve(held));
      else this.byKey.delete(key);
    });
  }
}

/**
 * The answer of a send (`PersistenceFailed`, or the lease's loss) whose `user.message` was emitted but could not be made
 * durable: it names the message, held in memory and written first when the store is writable
 * again (lost if this node dies first, or already lost when the node lost the session's lease).
 *
 * @example
 * throw heldMessage(log.failure, messageId); // data.heldMessageId === messageId
 */
export function heldMessage(cause: unknown, messageId: string): TandemError {
  const data = cause instanceof TandemError ? cause.data : undefined;
  return new TandemError(
    cause instanceof TandemError ? cause.code : ErrorCodes.PersistenceFailed,
    `The message was not stored: ${errorMessage(cause)}. Message ${messageId} is held in memory by this node and written first when the session's store can be written again.`,
    { ...data, heldMessageId: messageId },
  );
}

/**
 * Checks a send's idempotency key: a non-empty string of at most {@link MAX_IDEMPOTENCY_KEY_CHARS}
 * characters; throws `-32602` otherwise.
 *
 * @example
 * checkIdempotencyKey(randomUUID()); // passes
 * checkIdempotencyKey(""); // throws -32602
 */
export function checkIdempotencyKey(key: string): void {
  if (key.length > 0 && key.length <= MAX_IDEMPOTENCY_KEY_CHARS) return;
  throw invalidParams(`session.send's idempotencyKey must be 1 to ${MAX_IDEMPOTENCY_KEY_CHARS} characters long (it was ${key.length}); use a UUID per message.`, {
    idempotencyKeyLength: key.length,
  });
}
