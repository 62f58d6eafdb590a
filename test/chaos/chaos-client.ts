/**
 * A JSON-RPC client for the chaos run: one TCP connection to one node, many sessions on it. It
 * approves every `permission.request` the runtime asks (protocol v2), records the id and type of
 * every session event it is sent, and fails its waiting requests when the connection dies (its
 * node was killed) instead of throwing unhandled.
 */
import { connect, type Socket } from "node:net";
import { frame, FrameDecoder, type WireMessage } from "../helpers/frames.js";

/** An event a client was sent: which session, its id and type, and whether it came marked `ephemeral` (never stored). */
export interface SeenEvent {
  sessionId: string;
  id: string;
  type: string;
  ephemeral: boolean;
}

/** A JSON-RPC error answer, as an Error with its code. */
export class RpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
    this.name = "RpcError";
  }
}

/** One connection of the chaos run to a node. */
export class ChaosClient {
  private readonly decoder = new FrameDecoder();
  private readonly waiting = new Map<number, { resolve: (value: unknown) => void; reject: (error: Error) => void }>();
  private nextId = 1;
  private closedNow = false;
  private readonly closeListeners: Array<() => void> = [];
  private readonly idleListeners = new Set<(sessionId: string) => void>();

  private constructor(
    private readonly socket: Socket,
    /** Every session event received, in order (shared by the run: what clients saw). */
    private readonly seen: SeenEvent[],
  ) {
    socket.setNoDelay(true);
    socket.on("data", (chunk: Buffer) => {
      for (const message of this.decoder.push(chunk)) this.handle(message);
    });
    socket.on("error", () => undefined);
    socket.once("close", () => this.markClosed());
  }

  /** Connects to a node's port. */
  static async open(port: number, seen: SeenEvent[]): Promise<ChaosClient> {
    const socket = connect(port, "127.0.0.1");
    await new Promise<void>((resolve, reject) => {
      socket.once("connect", resolve);
      socket.once("error", reject);
    });
    return new ChaosClient(socket, seen);
  }

  get isClosed(): boolean {
    return this.closedNow;
  }

  /** Calls `listener` once when the connection closes. */
  onClose(listener: () => void): void {
    if (this.closedNow) listener();
    else this.closeListeners.push(listener);
  }

  /** Calls `listener` with the session of every `session.idle` received; returns the unsubscribe. */
  onIdle(listener: (sessionId: string) => void): () => void {
    this.idleListeners.add(listener);
    return () => this.idleListeners.delete(listener);
  }

  /** Sends a request; rejects with {@link RpcError}, on `timeoutMs`, or when the connection dies. */
  request<R = Record<string, unknown>>(method: string, params: unknown, timeoutMs = 30_000): Promise<R> {
    if (this.closedNow) return Promise.reject(new Error("connection closed"));
    const id = this.nextId++;
    return new Promise<R>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiting.delete(id);
        reject(new Error(`${method} timed out after ${timeoutMs} ms`));
      }, timeoutMs);
      this.waiting.set(id, {
        resolve: (value) => {
          clearTimeout(timer);
          resolve(value as R);
        },
        reject: (error) => {
          clearTimeout(timer);
          reject(error);
        },
      });
      this.socket.write(frame(JSON.stringify({ jsonrpc: "2.0", id, method, params })));
    });
  }

  close(): void {
    this.socket.destroy();
  }

  private handle(message: WireMessage): void {
    if (message.method === undefined) {
      const waiter = this.waiting.get(Number(message.id));
      if (!waiter) return;
      this.waiting.delete(Number(message.id));
      if (message.error) waiter.reject(new RpcError(message.error.code, message.error.message));
      else waiter.resolve(message.result);
      return;
    }
    if (message.id !== undefined && message.id !== null) {
      // A request from the runtime: permissions are approved, anything else is not offered.
      const answer =
        message.method === "permission.request"
          ? { jsonrpc: "2.0", id: message.id, result: { result: { kind: "approved" } } }
          : { jsonrpc: "2.0", id: message.id, error: { code: -32601, message: `the chaos client does not handle ${message.method}` } };
      if (!this.closedNow) this.socket.write(frame(JSON.stringify(answer)));
      return;
    }
    if (message.method !== "session.event") return;
    const params = message.params as { sessionId: string; event: { id: string; type: string; ephemeral?: boolean } };
    this.seen.push({ sessionId: params.sessionId, id: params.event.id, type: params.event.type, ephemeral: params.event.ephemeral === true });
    if (params.event.type === "session.idle") for (const listener of this.idleListeners) listener(params.sessionId);
  }

  private markClosed(): void {
    if (this.closedNow) return;
    this.closedNow = true;
    for (const waiter of this.waiting.values()) waiter.reject(new Error("connection closed"));
    this.waiting.clear();
    for (const listener of this.closeListeners.splice(0)) listener();
  }
}
