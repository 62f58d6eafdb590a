import type { SessionEvent } from "@tandem/protocol";

/** What {@link watchSendStored} needs of the session a send goes to. */
export interface SendTarget {
  /** Whether a turn runs (a send then waits in the queue, stored only when its turn starts). */
  readonly busy: boolean;
  readonly emitter: {
    addListener(listener: (event: SessionEvent) => void): () => void;
    durable(): Promise<void>;
    readonly log: { readonly failure: Error | undefined };
  };
}

/** How long an acknowledgement waits at most for its message to be stored (a slow MCP start, a hook). */
const maxWaitMs = 30_000;

/**
 * Cluster: a `session.send` that starts a turn at once is acknowledged only after its
 * `user.message` is stored, so a node killed right after acknowledging it loses no send. Call it
 * before the send runs (the message may be recorded before the send's result returns); the
 * returned function waits for the message the send answered with. A send to a busy session waits
 * in its queue (in memory) and is not waited for. Throws the store's error when it failed.
 *
 * @example
 * const stored = watchSendStored(session);
 * const result = await runSend();
 * await stored(result.messageId);
 */
export function watchSendStored(session: SendTarget | undefined): (messageId: string | undefined) => Promise<void> {
  if (!session || session.busy) return async () => undefined;
  const recorded = new Set<string>();
  let ended = false;
  let wake: (() => void) | undefined;
  const stop = session.emitter.addListener((event) => {
    if (event.type === "user.message" && typeof event.data.messageId === "string") recorded.add(event.data.messageId);
    else if (event.type === "session.idle" || event.type === "abort") ended = true;
    else return;
    wake?.();
  });
  return async (messageId) => {
    try {
      if (messageId === undefined) return;
      const deadline = Date.now() + maxWaitMs;
      while (!recorded.has(messageId) && !ended && Date.now() < deadline) {
        await new Promise<void>((resolve) => {
          wake = resolve;
          setTimeout(resolve, Math.max(0, deadline - Date.now())).unref();
        });
      }
      if (!recorded.has(messageId)) return;
      await session.emitter.durable();
      const failure = session.emitter.log.failure;
      if (failure) throw failure;
    } finally {
      wake = undefined;
      stop();
    }
  };
}
