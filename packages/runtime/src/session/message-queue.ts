import type { AgentMode, SessionSendParams } from "@tandem/protocol";
import type { EventEmitterPort } from "./emitter.js";

/** A user message waiting for its turn (or, while busy, to be injected as steering). */
export interface QueuedMessage {
  messageId: string;
  params: SessionSendParams;
  /** Set for messages the runtime itself adds (notifications). */
  source?: string;
  /** The `source` its `user.message` records when it is answered from the queue (a failover's continuation). */
  recordAs?: string;
  /** The agent mode when it was sent. */
  agentMode?: AgentMode;
}

/** A queued message as `session.queue.pendingItems` reports it. */
export type PendingItem = {
  id: string;
  messageId: string;
  kind: "message";
  displayText: string;
  agentMode: string;
};

/**
 * The application's view of a session's waiting messages (`session.queue.*`): the queue of
 * `enqueue` sends and the steering of `immediate` sends not yet injected. Works on the session's
 * own arrays; messages the runtime adds itself (notifications) are neither listed nor removable.
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
        messageId: message.messageId,
        kind: "message",
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
      list.splice(index, 1);
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
      list.splice(index, 1);
      this.changed();
      return true;
    }
    return false;
  }

  /** Drops every waiting user message. */
  clear(): void {
    const before = this.queue.length + this.steering.length;
    removeWhere(this.queue, isUsers);
    removeWhere(this.steering, isUsers);
    if (this.queue.length + this.steering.length !== before) this.changed();
  }

  /** Tells the clients the waiting messages changed. */
  changed(): void {
    this.emitter.emit("pending_messages.modified", {});
  }
}

function isUsers(message: QueuedMessage): boolean {
  return message.source === undefined;
}

function findLastIndex<T>(list: readonly T[], predicate: (item: T) => boolean): number {
  for (let index = list.length - 1; index >= 0; index--) if (predicate(list[index]!)) return index;
  return -1;
}

function removeWhere<T>(list: T[], predicate: (item: T) => boolean): void {
  const kept = list.filter((item) => !predicate(item));
  list.splice(0, list.length, ...kept);
}
