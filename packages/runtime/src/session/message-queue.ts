import type { AgentMode, SessionSendParams } from "@tandem/protocol";
import type { QueuedCommand } from "../ports/queued-command.js";
import type { EventEmitterPort } from "./emitter.js";

export type { QueuedCommand } from "../ports/queued-command.js";

/** A user message waiting for its turn (or, while busy, to be injected as steering). */
export interface QueuedMessage {
  messageId: string;
  params: SessionSendParams;
  /** Set for messages the runtime itself adds (notifications). */
  source?: string;
  /**
   * A failover's continuation: no `user.message` is recorded; `notice` is stored as a
   * `session.warning` (`warningType: "failover"`) and the model reads it as a system note.
   */
  continuation?: { notice: string };
  /** The agent mode when it was sent (as the sender gave it, else the session's). */
  agentMode?: AgentMode | "shell";
  /** Set for a slash command: run in its turn instead of being sent to the model. */
  command?: QueuedCommand;
  /** Told once its `user.message` is emitted (with the commit to wait for) or it leaves the queue unanswered. */
  recorded?: (commit: Promise<void>) => void;
  /**
   * Set while a send waits for this message to be stored: resolves once that send's answer is on
   * its way. The turn goes on only then, so the answer reaches the client before the turn's events
   * (as the SDKs expect: `sendAndWait` listens for the turn's end only once `send` answered).
   */
  sendAnswered?: Promise<void>;
}


/** A queued message or command as `session.queue.pendingItems` reports it. */
export type PendingItem = {
  id: string;
  /** Absent for commands (1.0.x: "present for message rows"). */
  messageId?: string;
  kind: "message" | "command";
  displayText: string;
  agentMode: string;
};

/**
 * The application's view of a session's waiting messages (`session.queue.*`): the queue of
 * `enqueue` sends and slash commands, and the steering of `immediate` sends not yet injected.
 * Works on the session's own arrays; messages the runtime adds itself (notifications) are neither
 * listed nor removable. A removed command is cancelled (its `command.completed` is emitted).
 * Every change emits `pending_messages.modified`.
 */
export class MessageQueueView {
  constructor(
    private readonly queue: QueuedMessage[],
    private readonly steering: QueuedMessage[],
    private readonly emitter: EventEmitterPort,
    private readonly currentMode: () => AgentMode,
  ) {}

  /** The waiting user messages in submission order, and the steering texts. */
  pendingItems(): { items: PendingItem[]; steeringMessages: string[] } {
    return {
      items: this.queue.filter(isUsers).map((message) => ({
        id: message.messageId,
        ...(message.command ? { kind: "command" as const } : { messageId: message.messageId, kind: "message" as const }),
        displayText: message.params.prompt,
        agentMode: message.agentMode ?? this.currentMode(),
      })),
      steeringMessages: this.steering.filter(isUsers).map((message) => message.params.prompt),
    };
  }

  /** Removes the queued message with this id; false when no such message waits. */
  removeAt(id: string): boolean {
    for (const list of [this.queue, this.steering]) {
      const index = list.findIndex((message) => isUsers(message) && message.messageId === id);
      if (index === -1) continue;
      cancelCommand(list.splice(index, 1)[0]!);
      this.changed();
      return true;
    }
    return false;
  }

  /** Removes the newest user message (steering first: it was sent during the running turn). */
  removeMostRecent(): boolean {
    for (const list of [this.steering, this.queue]) {
      const index = findLastIndex(list, isUsers);
      if (index === -1) continue;
      cancelCommand(list.splice(index, 1)[0]!);
      this.changed();
      return true;
    }
    return false;
  }

  /** Drops every waiting user message. */
  clear(): void {
    const before = this.queue.length + this.steering.length;
    removeWhere(this.queue, isUsers).forEach(cancelCommand);
    removeWhere(this.steering, isUsers).forEach(cancelCommand);
    if (this.queue.length + this.steering.length !== before) this.changed();
  }

  /** Tells the clients the waiting messages changed. */
  changed(): void {
    this.emitter.emit("pending_messages.modified", {});
  }
}

/** Empties a queue (abort, halt), cancelling its commands; returns how many items it held. */
export function dropAll(list: QueuedMessage[]): number {
  const dropped = list.splice(0);
  dropped.forEach(cancelCommand);
  return dropped.length;
}

/** A message leaves the queue unanswered: its command is cancelled and its send answered. */
function cancelCommand(message: QueuedMessage): void {
  message.command?.cancel();
  message.recorded?.(Promise.resolve());
}

function isUsers(message: QueuedMessage): boolean {
  return message.source === undefined;
}

function findLastIndex<T>(list: readonly T[], predicate: (item: T) => boolean): number {
  for (let index = list.length - 1; index >= 0; index--) if (predicate(list[index]!)) return index;
  return -1;
}

/** Removes the matching items; returns them. */
function removeWhere<T>(list: T[], predicate: (item: T) => boolean): T[] {
  const removed = list.filter(predicate);
  const kept = list.filter((item) => !predicate(item));
  list.splice(0, list.length, ...kept);
  return removed;
}
