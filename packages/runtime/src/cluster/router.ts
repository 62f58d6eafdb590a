import { ephemeralEventTypes, type SessionEventType } from "@tandem/protocol";
import { ErrorCodes, TandemError } from "../errors.js";
import type { Logger } from "../log.js";
import type { RequestingClient } from "../ports/clients.js";
import { PreSerializedJson } from "../server/writer.js";
import type { SessionLeases } from "./leases.js";
import type { NodeBus } from "./node-bus.js";
import { withOwnerHint, type OwnerUrlLookup } from "./owner-hint.js";
import { clusterMethods, type RemoteDelivery } from "./remote-client.js";

/** What the router needs from this node's runtime. */
export interface RouterHost {
  /** Whether the session is open (its loop runs) on this node. */
  isLive(sessionId: string): boolean;
  /** A client connected to this node, by id. */
  findClient(clientId: number): RequestingClient | undefined;
  /** Runs a request here, without routing. */
  runLocal(method: string, params: unknown, client: RequestingClient): Promise<unknown>;
  /** This node lost the session's lease: resolves once it stepped down (its clients attached again wherever the session runs). */
  lostSession(sessionId: string): Promise<void>;
}

/** What {@link ClusterRouter} is built with. */
export interface ClusterRouterOptions {
  nodeId: string;
  bus: NodeBus;
  leases: SessionLeases;
  isAlive(nodeId: string): Promise<boolean>;
  host: RouterHost;
  logger: Logger;
  /** The lease TTL: how long a dead owner's lease may take to expire. */
  ttlMs: number;
  /**
   * The stored events of a session after the last of `knownIds` the log holds, in order (none when
   * it holds none of them: the client cannot be placed).
   */
  storedEventsAfter(sessionId: string, knownIds: readonly string[]): Promise<Array<{ json: string; type: string; id: string }>>;
  /** Where clients reach a node (for the owner hint of a forwarded `session.resume`; none: no hint). */
  ownerUrl?: OwnerUrlLookup;
}

/** How many ids of relayed persisted events are remembered per session (catch-up point, duplicate filter). */
const rememberedIds = 256;

/** The ids of a session's persisted events this node's clients were sent, newest last. */
class SeenEvents {
  private readonly ids: string[] = [];
  private readonly set = new Set<string>();

  has(id: string): boolean {
    return this.set.has(id);
  }

  add(id: string): void {
    this.ids.push(id);
    this.set.add(id);
    if (this.ids.length > rememberedIds) this.set.delete(this.ids.shift()!);
  }

  recent(): readonly string[] {
    return this.ids;
  }
}

/** A session running on another node that clients of this node are attached to. */
interface RemoteAttachment {
  owner: string;
  /** Each attached client with the params it opened the session with (to attach it again elsewhere). */
  clients: Map<RequestingClient, Record<string, unknown>>;
}

/** The thrown error when another node won the lease: the request is routed there instead. */
export function ownedElsewhere(sessionId: string, ownerNode: string): TandemError {
  return new TandemError(ErrorCodes.SessionBusy, `Session ${sessionId} runs on node ${ownerNode}`, { sessionId, ownerNode });
}

/**
 * The refusal of a request that found this node had lost the session's lease to a node that does
 * not answer: the request did not run (nothing of it is stored); sent again, it goes to wherever
 * the session runs then.
 */
export function lostTo(sessionId: string, nodeId: string, ownerNode: string, method: string): TandemError {
  return new TandemError(
    ErrorCodes.LeaseLost,
    `Node ${nodeId} no longer owns session ${sessionId}: node ${ownerNode} took it over and does not answer (no recent heartbeat); ${method} was not run, send it again once the session runs on a live node`,
    { sessionId, nodeId, ownerNode, method },
  );
}

/** Methods that open a session for the calling client. */
const openingMethods: ReadonlySet<string> = new Set(["session.resume"]);
/** Methods acknowledged only after this node confirmed it still holds the session's lease (what they accept must be stored). */
const confirmedMethods: ReadonlySet<string> = new Set(["session.send"]);
/** Methods after which the calling client is no longer attached. */
const leavingMethods: ReadonlySet<string> = new Set(["session.destroy", "session.detach", "session.delete"]);

/**
 * Any node serves any client: a request for a session whose lease another node holds is forwarded
 * to that node over the bus (which runs it for a {@link RemoteClient} standing for our client, and
 * sends the session's events back in order); requests nobody holds a lease for run here (opening
 * the session takes the lease). When the owner dies, attached clients and the next request wait
 * for its lease to expire and the session opens here (or on whichever node won the lease, where
 * our clients are attached again).
 */
export class ClusterRouter {
  private readonly attachments = new Map<string, RemoteAttachment>();
  private readonly watchedClients = new WeakSet<RequestingClient>();
  private readonly takingOver = new Map<string, Promise<void>>();
  /** Per session of another node and client of ours: the persisted events relayed to it (see {@link SeenEvents}). */
  private readonly seen = new Map<string, Map<RequestingClient, SeenEvents>>();
  private watchTimer: NodeJS.Timeout | undefined;

  constructor(private readonly options: ClusterRouterOptions) {}

  /** Starts watching the owners of sessions our clients are attached to. */
  start(): void {
    this.watchTimer = setInterval(() => void this.watchOwners(), Math.max(100, Math.floor(this.options.ttlMs / 3)));
    this.watchTimer.unref();
  }

  stop(): void {
    clearInterval(this.watchTimer);
  }

  /** Sessions of other nodes our clients are attached to. */
  get remoteSessionCount(): number {
    return this.attachments.size;
  }

  /** Routes a client's request: here, or to the node that runs its session. */
  async dispatch(method: string, params: unknown, client: RequestingClient): Promise<unknown> {
    const sessionId = sessionIdOf(params);
    if (sessionId === undefined || method === "session.create") return this.options.host.runLocal(method, params, client);
    // The node that refused us the lease (its expired lease stays its own while it counts as alive).
    let refusedBy: string | undefined;
    // This node found it lost the session's lease while running the request: it goes to the new owner or is refused.
    let lostLease = false;
    for (let attempt = 0; ; attempt++) {
      await this.takingOver.get(sessionId);
      if (this.options.host.isLive(sessionId)) {
        const outcome = await this.runOwned(sessionId, method, params, client);
        if (outcome.ran) return outcome.result;
        lostLease = true;
        continue;
      }
      const holder = refusedBy !== undefined ? { nodeId: refusedBy } : await this.options.leases.holder(sessionId);
      refusedBy = undefined;
      if (!holder || holder.nodeId === this.options.nodeId) {
        const attachment = this.attachments.get(sessionId);
        if (attachment && !openingMethods.has(method)) await this.openHere(sessionId, attachment);
        try {
          return await this.options.host.runLocal(method, params, client);
        } catch (error) {
          // Another node won the lease while we opened it, or keeps it: go there.
          if (isOwnedElsewhere(error) && attempt < 3) {
            refusedBy = (error as TandemError).data?.ownerNode as string;
            continue;
          }
          throw error;
        }
      }
      try {
        const result = await this.options.bus.request(holder.nodeId, clusterMethods.rpc, { method, params, clientId: client.id, isCurrentClient: client.isCurrentClient });
        this.afterForward(method, sessionId, params, client, holder.nodeId);
        const { ownerUrl } = this.options;
        if (ownerUrl && openingMethods.has(method)) return await withOwnerHint(unwrapResult(result), holder.nodeId, ownerUrl, this.options.logger);
        return unwrapResult(result);
      } catch (error) {
        if (!isNodeGone(error) || attempt >= 3) throw error;
        if (lostLease) throw lostTo(sessionId, this.options.nodeId, holder.nodeId, method);
        this.options.logger.info(`session ${sessionId}: node ${holder.nodeId} is gone; waiting for its lease to expire`);
        // A lease its dead holder still keeps past its TTL (it was renewed without a heartbeat): nobody can run the session now.
        if (!(await this.waitForLease(sessionId, holder.nodeId))) throw error;
      }
    }
  }

  /**
   * Runs a request for a session open here (a client's own, or one another node forwarded). A
   * send is run only after this node confirmed it still holds the lease, and acknowledged once
   * its message is stored; a node that lost the lease steps down first (`ran: false`: route again).
   */
  async runOwned(sessionId: string, method: string, params: unknown, client: RequestingClient): Promise<{ ran: true; result: unknown } | { ran: false }> {
    const { host, leases } = this.options;
    if (!confirmedMethods.has(method)) return { ran: true, result: await host.runLocal(method, params, client) };
    // Undefined: the database did not answer; the send runs, and is refused (PersistenceFailed)
    // once its message could not be stored.
    const confirmed = await leases.confirm(sessionId).catch(() => undefined);
    if (confirmed === false) {
      // Paused past the lease while another node ran the session.
      await host.lostSession(sessionId);
      return { ran: false };
    }
    // The send itself is answered once its message is stored (see `TurnRunner.send`).
    return { ran: true, result: await host.runLocal(method, params, client) };
  }

  /** Bus messages for our clients from the nodes that run their sessions. */
  async handleBus(method: string, params: unknown): Promise<unknown> {
    if (method === clusterMethods.deliver) {
      const { clientId, items } = params as { clientId: number; items: RemoteDelivery[] };
      const client = this.options.host.findClient(clientId);
      if (!client?.isOpen) return null;
      this.deliver(client, items);
      return null;
    }
    if (method === clusterMethods.clientRequest) {
      const { clientId, method: clientMethod, params: clientParams, items } = params as { clientId: number; method: string; params: unknown; items?: RemoteDelivery[] };
      const client = this.options.host.findClient(clientId);
      if (!client?.isOpen) throw new TandemError(ErrorCodes.UnknownRequest, `Client ${clientId} is no longer connected to node ${this.options.nodeId}`, { clientId });
      const sessionId = sessionIdOf(clientParams);
      // A late request of an owner that lost the session to this node: the client is not asked.
      if (sessionId !== undefined && this.options.host.isLive(sessionId)) throw ownedElsewhere(sessionId, this.options.nodeId);
      if (items) this.deliver(client, items);
      return client.sendRequest(clientMethod, clientParams);
    }
    throw new TandemError(ErrorCodes.MethodNotFound, `Unhandled cluster method ${method}`);
  }

  /** Hands relayed events and notifications to one of our clients, in order. */
  private deliver(client: RequestingClient, items: readonly RemoteDelivery[]): void {
    for (const item of items) {
      if (item.kind === "notification") {
        client.sendNotification(item.method, item.params);
        continue;
      }
      // The session runs here now (taken over from a dead owner): a relayed event is a late one of
      // the old owner's, which the catch-up sent from the log already; the session's own events
      // reach its clients here directly.
      if (this.options.host.isLive(item.sessionId)) continue;
      // A catch-up after a failover may already have sent it.
      if (this.alreadySent(item.sessionId, client, item.json, item.type)) continue;
      client.deliverSessionEvent(item.sessionId, item.json, item.type);
    }
  }

  /** The persisted events of a session relayed to one of our clients. */
  private seenBy(sessionId: string, client: RequestingClient): SeenEvents {
    let byClient = this.seen.get(sessionId);
    if (!byClient) this.seen.set(sessionId, (byClient = new Map()));
    let seen = byClient.get(client);
    if (!seen) byClient.set(client, (seen = new SeenEvents()));
    return seen;
  }

  /** Records a relayed persisted event; true when this client was sent it already. */
  private alreadySent(sessionId: string, client: RequestingClient, json: string, type: string | undefined): boolean {
    if (type === undefined || ephemeralEventTypes.has(type as SessionEventType)) return false;
    const id = (JSON.parse(json) as { id?: unknown }).id;
    if (typeof id !== "string") return false;
    const seen = this.seenBy(sessionId, client);
    if (seen.has(id)) return true;
    seen.add(id);
    return false;
  }

  /**
   * After the owner died: each of our clients gets the stored events it was not relayed (the dead
   * node stored them, then died before sending them), in order, each once.
   */
  private async catchUp(sessionId: string, attachment: RemoteAttachment): Promise<void> {
    for (const client of attachment.clients.keys()) {
      if (!client.isOpen) continue;
      const seen = this.seen.get(sessionId)?.get(client);
      if (!seen) continue;
      const missed = await this.options.storedEventsAfter(sessionId, seen.recent());
      let sent = 0;
      for (const event of missed) {
        if (seen.has(event.id)) continue;
        seen.add(event.id);
        client.deliverSessionEvent(sessionId, event.json, event.type);
        sent++;
      }
      if (sent > 0) this.options.logger.info(`session ${sessionId}: ${sent} stored event(s) its dead owner had not relayed were sent to client ${client.id}`);
    }
  }

  private afterForward(method: string, sessionId: string, params: unknown, client: RequestingClient, owner: string): void {
    if (openingMethods.has(method)) {
      const attachment = this.attachments.get(sessionId) ?? { owner, clients: new Map() };
      attachment.owner = owner;
      attachment.clients.set(client, { ...(params as Record<string, unknown>) });
      this.attachments.set(sessionId, attachment);
      this.watchClient(client);
      return;
    }
    if (!leavingMethods.has(method)) return;
    const attachment = this.attachments.get(sessionId);
    if (!attachment) return;
    if (method === "session.delete") attachment.clients.clear();
    else attachment.clients.delete(client);
    this.seen.get(sessionId)?.delete(client);
    if (attachment.clients.size === 0) this.forget(sessionId);
  }

  private forget(sessionId: string): void {
    this.attachments.delete(sessionId);
    this.seen.delete(sessionId);
  }

  /** A client of ours that goes away leaves the sessions of other nodes too. */
  private watchClient(client: RequestingClient): void {
    if (this.watchedClients.has(client)) return;
    this.watchedClients.add(client);
    client.onClose(() => {
      const owners = new Set<string>();
      for (const [sessionId, attachment] of this.attachments) {
        if (!attachment.clients.delete(client)) continue;
        this.seen.get(sessionId)?.delete(client);
        owners.add(attachment.owner);
        if (attachment.clients.size === 0) this.forget(sessionId);
      }
      for (const owner of owners) {
        void this.options.bus.notify(owner, clusterMethods.clientClosed, { clientId: client.id }).catch(() => undefined);
      }
    });
  }

  /** Waits until `deadNode`'s lease on the session expired (or another node holds it); false when it still held it at the deadline. */
  private async waitForLease(sessionId: string, deadNode: string): Promise<boolean> {
    const deadline = Date.now() + this.options.ttlMs + 5000;
    while (Date.now() < deadline) {
      const holder = await this.options.leases.holder(sessionId);
      if (!holder || holder.nodeId !== deadNode) return true;
      await new Promise((resolve) => setTimeout(resolve, Math.min(250, Math.max(20, holder.expiresAt.getTime() - Date.now()))));
    }
    return false;
  }

  /** The session's owner died: our attached clients follow it to wherever it runs next (here when free). */
  private async watchOwners(): Promise<void> {
    for (const [sessionId, attachment] of this.attachments) {
      if (this.takingOver.has(sessionId)) continue;
      const alive = await this.options.isAlive(attachment.owner).catch(() => true);
      if (alive) continue;
      const takeover = this.followSession(sessionId, attachment).finally(() => this.takingOver.delete(sessionId));
      this.takingOver.set(sessionId, takeover);
    }
  }

  private async followSession(sessionId: string, attachment: RemoteAttachment): Promise<void> {
    const deadOwner = attachment.owner;
    try {
      await this.waitForLease(sessionId, deadOwner);
      // The dead owner can append nothing more (its lease is gone): what it stored is final.
      await this.catchUp(sessionId, attachment);
      const holder = await this.options.leases.holder(sessionId);
      if (holder && holder.nodeId !== this.options.nodeId && holder.nodeId !== deadOwner) {
        await this.attachAt(sessionId, attachment, holder.nodeId);
        return;
      }
      await this.openHere(sessionId, attachment);
    } catch (error) {
      if (isOwnedElsewhere(error)) {
        const owner = (error as TandemError).data?.ownerNode;
        if (typeof owner === "string") await this.attachAt(sessionId, attachment, owner).catch((inner: unknown) => this.options.logger.warn(`session ${sessionId}: could not follow it to ${owner}`, inner));
        return;
      }
      this.options.logger.warn(`session ${sessionId}: could not take it over from ${deadOwner}`, error);
    }
  }

  /** Opens the session here (taking its lease) for every client of ours attached to it. */
  private async openHere(sessionId: string, attachment: RemoteAttachment): Promise<void> {
    for (const [client, params] of attachment.clients) {
      if (!client.isOpen) continue;
      await this.options.host.runLocal("session.resume", { ...params, sessionId, disableResume: true }, client);
    }
    if (this.attachments.get(sessionId) === attachment) this.forget(sessionId);
  }

  /** Attaches our clients again at the session's new owner. */
  private async attachAt(sessionId: string, attachment: RemoteAttachment, owner: string): Promise<void> {
    attachment.owner = owner;
    for (const [client, params] of attachment.clients) {
      if (!client.isOpen) continue;
      await this.options.bus.request(owner, clusterMethods.rpc, {
        method: "session.resume",
        params: { ...params, sessionId, disableResume: true },
        clientId: client.id,
        isCurrentClient: client.isCurrentClient,
      });
    }
  }
}

/** The key under which a pre-serialised result (stored events, as text) crosses the bus unparsed. */
const preSerializedKey = "tandemPreSerializedJson";

/** A result as it crosses the bus: pre-serialised JSON stays text (it is spliced in as it is at the edge). */
export function wrapResult(result: unknown): unknown {
  if (!(result instanceof PreSerializedJson)) return result ?? null;
  return { [preSerializedKey]: typeof result.json === "string" ? result.json : result.json.toString("utf8") };
}

function unwrapResult(result: unknown): unknown {
  if (typeof result !== "object" || result === null) return result;
  const text = (result as Record<string, unknown>)[preSerializedKey];
  return typeof text === "string" ? new PreSerializedJson(text) : result;
}

function sessionIdOf(params: unknown): string | undefined {
  if (typeof params !== "object" || params === null) return undefined;
  const sessionId = (params as { sessionId?: unknown }).sessionId;
  return typeof sessionId === "string" && sessionId !== "" ? sessionId : undefined;
}

function isNodeGone(error: unknown): boolean {
  return error instanceof TandemError && error.code === ErrorCodes.NodeUnreachable && error.data?.reason === "gone";
}

function isOwnedElsewhere(error: unknown): boolean {
  return error instanceof TandemError && error.code === ErrorCodes.SessionBusy && typeof error.data?.ownerNode === "string";
}
