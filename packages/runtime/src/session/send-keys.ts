import { invalidParams } from "../errors.js";

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
    answer.catch(() => {
      if (this.byKey.get(key) === answer) this.byKey.delete(key);
    });
  }
}

/**
 * Checks a send's idempotency key: a non-empty string of at most {@link MAX_IDEMPOTENCY_KEY_CHARS}
 * characters; throws `-32602` otherwise.
 */
export function checkIdempotencyKey(key: string): void {
  if (key.length > 0 && key.length <= MAX_IDEMPOTENCY_KEY_CHARS) return;
  throw invalidParams(`session.send's idempotencyKey must be 1 to ${MAX_IDEMPOTENCY_KEY_CHARS} characters long (it was ${key.length}); use a UUID per message.`, {
    idempotencyKeyLength: key.length,
  });
}
