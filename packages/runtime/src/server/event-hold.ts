import type { Message } from "vscode-jsonrpc/node.js";

type Deliver = (json: string, kind: "message" | "progress") => void;

/**
 * Holds a connection's session events back while a request that opens a session is answered, and
 * writes them right after that request's result is queued (so they follow it on the wire). While
 * any such request is in flight, every session event for this connection waits, in order.
 */
export class EventHold {
  private holders = 0;
  private held: Array<{ json: string; kind: "message" | "progress" }> = [];
  private deliver: Deliver | undefined;
  /** Results (by identity) whose queueing releases a hold. */
  private readonly releases = new WeakMap<object, () => void>();

  /** Starts holding; returns the function that ends this hold (once). */
  start(deliver: Deliver): () => void {
    this.holders++;
    this.deliver = deliver;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.holders--;
      if (this.holders === 0) this.flush();
    };
  }

  /** Ends the hold once `result` has been queued (at once when it is not an object). */
  releaseAfter(result: unknown, release: () => void): void {
    if (typeof result === "object" && result !== null) this.releases.set(result, release);
    else release();
  }

  /** Holds an event's notification (JSON text) if a hold is on; returns whether it was held. */
  hold(json: string, kind: "message" | "progress"): boolean {
    if (this.holders === 0) return false;
    this.held.push({ json, kind });
    return true;
  }

  /** The writer queued `message`: a held result releases its hold. */
  resultQueued(message: Message): void {
    const result = (message as { result?: unknown }).result;
    if (typeof result !== "object" || result === null) return;
    const release = this.releases.get(result);
    if (!release) return;
    this.releases.delete(result);
    release();
  }

  private flush(): void {
    const held = this.held;
    this.held = [];
    for (const { json, kind } of held) this.deliver?.(json, kind);
  }
}
