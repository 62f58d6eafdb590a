/**
 * A slash command waiting in a session's queue: built by `commands/slash-commands.ts`, held and run
 * in its turn by the session's message queue (`session/message-queue.ts`).
 *
 * @example
 * const command: QueuedCommand = { text: "/compact", run: async () => undefined, cancel: () => undefined };
 */
export interface QueuedCommand {
  /** The command as sent (`/model gpt-5`). */
  readonly text: string;
  /** Runs it; resolves once it is done (never rejects), with "pause" when the queue should wait for the next send. */
  run(): Promise<"pause" | undefined>;
  /** It leaves the queue without running (removed, cleared, aborted). */
  cancel(): void;
}
