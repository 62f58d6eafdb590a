import { generationOf, profileFor, type ClientGeneration, type CompatProfile } from "../compat/profile.js";
import { ErrorCodes, TandemError } from "../errors.js";
import type { Logger } from "../log.js";
import { ClientBase, type RequestingClient } from "../server/requesting-client.js";
import type { NodeBus } from "./node-bus.js";

/** One thing for a remote client, in the order the session produced it. */
export type RemoteDelivery = { kind: "event"; sessionId: string; json: string; type?: string } | { kind: "notification"; method: string; params: unknown };

/** Bus methods between the node a client is connected to (origin) and the node running its session (owner). */
export const clusterMethods = {
  /** origin → owner: a client's request for a session the owner runs. */
  rpc: "cluster.rpc",
  /** owner → origin: events and notifications for a client, in order. */
  deliver: "cluster.client.deliver",
  /** owner → origin: a request to a client (permission, user input, tool call, hooks…), after the events queued before it (`items`). */
  clientRequest: "cluster.client.request",
  /** origin → owner: a client went away. */
  clientClosed: "cluster.client.closed",
  /** any → every other node: a notification for all of its clients (`session.lifecycle`). */
  broadcast: "cluster.broadcast",
} as const;

/**
 * A client connected to another node (the origin) whose requests for a session running here
 * that node forwards. Sessions treat it like a local connection: its events and notifications go
 * back over the bus in order (one sequential queue, sent in batches), and requests to it (permission,
 * user input, a custom tool it registered, hooks, elicitation) travel the bus to the origin, whose
 * connection asks the real client and sends the answer back.
 */
export class RemoteClient extends ClientBase implements RequestingClient {
  readonly extensionId = undefined;
  private readonly queue: RemoteDelivery[] = [];
  private sending: Promise<void> | undefined;
  /** The batch being handed to the bus now. */
  private posting: Promise<void> | undefined;
  /** Aborts the requests to the client still waiting for its answer when it goes away. */
  private readonly gone = new AbortController();
  /** Why it went away: `node-lost` when its node died (the client did not choose to leave). */
  closeReason: "client-left" | "node-lost" | undefined;

  constructor(
    readonly originNode: string,
    readonly originClientId: number,
    readonly isCurrentClient: boolean,
    private readonly bus: NodeBus,
    private readonly logger: Logger,
  ) {
    super();
  }

  /**
   * The client (or its node) went away: requests waiting for its answer fail with
   * `ClientGone`, so the session asks another client (see `ports/client-asks.ts`).
   */
  close(reason: "client-left" | "node-lost" = "client-left"): void {
    if (!this.lifetime.isOpen) return;
    this.closeReason = reason;
    this.gone.abort(new TandemError(ErrorCodes.NotAvailable, `The client went away before it answered (${reason === "node-lost" ? `its node ${this.originNode} is gone` : "it disconnected"})`, { reason: "client-gone" }));
    this.lifetime.close();
  }

  /** The client's SDK generation, as its node saw it open. */
  get generation(): ClientGeneration {
    return generationOf(this.isCurrentClient);
  }

  get profile(): CompatProfile {
    return profileFor(this.generation);
  }

  deliverSessionEvent(sessionId: string, eventJson: string, eventType?: string): void {
    this.enqueue({ kind: "event", sessionId, json: eventJson, ...(eventType ? { type: eventType } : {}) });
  }

  sendNotification(method: string, params: unknown): void {
    this.enqueue({ kind: "notification", method, params });
  }

  async sendRequest<R>(method: string, params: unknown, signal?: AbortSignal): Promise<R> {
    if (!this.lifetime.isOpen) throw new Error("client disconnected");
    // What was queued before the request reaches the client first (e.g. the event announcing it):
    // batches already on their way arrive before it, what is still queued travels with it.
    while (this.posting) await this.posting;
    const items = this.queue.splice(0);
    // Events queued after these wait until the request carrying them is stored, so none overtakes them.
    let markPosted: () => void = () => undefined;
    const posted = new Promise<void>((resolve) => (markPosted = resolve));
    const released = (): void => {
      markPosted();
      if (this.posting === posted) this.posting = undefined;
    };
    if (items.length > 0) this.posting = posted;
    // A person may take long to answer; a dead origin is noticed by its heartbeat instead, which
    // closes this client and so aborts the request.
    const combined = signal ? AbortSignal.any([signal, this.gone.signal]) : this.gone.signal;
    try {
      const request = { clientId: this.originClientId, method, params, ...(items.length > 0 ? { items } : {}) };
      return await this.bus.request<R>(this.originNode, clusterMethods.clientRequest, request, { signal: combined, timeoutMs: 24 * 3600_000, onPosted: released });
    } catch (error) {
      // The bus saw the origin's heartbeat stop before this node's watch did: the client is gone.
      if (error instanceof TandemError && error.code === ErrorCodes.NodeUnreachable && error.data?.reason === "gone") this.close("node-lost");
      throw error;
    } finally {
      released();
    }
  }

  /** Resolves once everything queued so far was handed to the bus. */
  async drained(): Promise<void> {
    while (this.sending) await this.sending;
  }

  private enqueue(delivery: RemoteDelivery): void {
    if (!this.lifetime.isOpen) return;
    this.queue.push(delivery);
    this.sending ??= this.sendQueued();
  }

  /**
   * Sends the queue in batches, one at a time, so the origin receives them in order. The first
   * batch waits for the events emitted in the same turn of the event loop, so a burst (a model
   * step's events, a tool's start and its permission request) crosses as one message.
   */
  private async sendQueued(): Promise<void> {
    try {
      await new Promise<void>((resolve) => setImmediate(resolve));
      for (;;) {
        // A request to the client carrying earlier events is stored first.
        while (this.posting) await this.posting;
        const batch = this.queue.splice(0);
        if (batch.length === 0) return;
        const posting = this.bus.notify(this.originNode, clusterMethods.deliver, { clientId: this.originClientId, items: batch }).catch((error: unknown) => {
          this.logger.warn(`could not deliver ${batch.length} event(s) to client ${this.originClientId} on node ${this.originNode}`, error);
        });
        this.posting = posting;
        await posting;
        if (this.posting === posting) this.posting = undefined;
      }
    } finally {
      this.sending = undefined;
    }
  }
}

/**
 * The remote clients of this node's sessions, by origin node and client id. A new one is handed to
 * `adopt` (which detaches it from its sessions when it closes).
 */
export class RemoteClients {
  private readonly clients = new Map<string, RemoteClient>();

  constructor(
    private readonly bus: NodeBus,
    private readonly logger: Logger,
    private readonly adopt: (client: RemoteClient) => void,
  ) {}

  /** The remote client for (origin, client id), made on first use. */
  get(originNode: string, clientId: number, isCurrentClient: boolean): RemoteClient {
    const key = `${originNode}\u0000${clientId}`;
    const known = this.clients.get(key);
    if (known?.isOpen) return known;
    const client = new RemoteClient(originNode, clientId, isCurrentClient, this.bus, this.logger);
    this.clients.set(key, client);
    client.onClose(() => {
      if (this.clients.get(key) === client) this.clients.delete(key);
    });
    this.adopt(client);
    return client;
  }

  /** A client of `originNode` went away. */
  closeClient(originNode: string, clientId: number): void {
    this.clients.get(`${originNode}\u0000${clientId}`)?.close();
  }

  /** Every client of a node that is gone. */
  closeNode(originNode: string): void {
    for (const client of [...this.clients.values()]) if (client.originNode === originNode) client.close("node-lost");
  }

  /** The origin nodes with clients here. */
  originNodes(): Set<string> {
    return new Set([...this.clients.values()].map((client) => client.originNode));
  }
}
