import { SessionDestroy, SessionGetMessages, SessionOwnerHint, type SessionEvent } from "@tandem/protocol";
import type { MessageConnection } from "vscode-jsonrpc/node.js";
import { parseCliUrl, type ResolvedClientOptions } from "./options.js";
import { reconnect, type RecoverableSession } from "./reconnect.js";
import { RuntimeLink } from "./runtime-link.js";

/** What {@link OwnerRoutes} needs from the client. */
export interface OwnerRouteHost {
  /** Registers the runtime-to-client handlers on a new connection to an owner node. */
  setup(connection: MessageConnection): void;
  /** The client's own connection (opened again when it was lost); throws when it cannot be had. */
  mainConnection(): Promise<MessageConnection>;
  /** The client's sessions now talking over `connection`. */
  sessionsOn(connection: MessageConnection): RecoverableSession[];
  /** The client was stopped meanwhile. */
  cancelled(): boolean;
}

/**
 * The owner hint of a `session.create` / `session.resume` answer (Tandem cluster), when it names a
 * usable address; undefined otherwise.
 *
 * @example
 * ownerHintOf({ sessionId: "s", owner: { nodeId: "b", url: "10.0.0.8:4321" } }); // { nodeId: "b", url: "10.0.0.8:4321" }
 */
export function ownerHintOf(result: unknown): SessionOwnerHint | undefined {
  if (typeof result !== "object" || result === null) return undefined;
  const parsed = SessionOwnerHint.safeParse((result as { owner?: unknown }).owner);
  return parsed.success ? parsed.data : undefined;
}

/**
 * Follows owner hints: when the node the client is connected to forwards a session to the node
 * that runs it, the client opens a connection to that node (one per node, shared by its sessions),
 * resumes the session there, hands it the stored events it missed (each once), then leaves the
 * forwarded attachment. An owner that cannot be reached leaves the session where it was (it keeps
 * working through forwarding). When an owner's connection is lost (the node died), its sessions
 * go back to the client's own connection (resumed there, which waits for the dead owner's lease)
 * and follow the hint of whichever node runs them next.
 */
export class OwnerRoutes {
  readonly #links = new Map<string, RuntimeLink>();

  constructor(
    private readonly options: ResolvedClientOptions,
    private readonly host: OwnerRouteHost,
  ) {}

  /** Whether `connection` is one of the owner connections (not the client's own). */
  isOwnerConnection(connection: MessageConnection): boolean {
    for (const link of this.#links.values()) if (link.connection === connection) return true;
    return false;
  }

  /**
   * Moves `session` to the node `result` names as its owner; true when it moved. Any failure
   * leaves it on the connection it was on.
   */
  async follow(session: RecoverableSession, result: unknown): Promise<boolean> {
    const hint = ownerHintOf(result);
    if (!hint) return false;
    const link = await this.#linkTo(hint.url).catch(() => undefined);
    const connection = link?.connection;
    const { backend } = session;
    const previous = backend.connection;
    if (!connection || connection === previous || this.host.cancelled()) return false;
    backend.rebind(connection);
    let stored: SessionEvent[];
    try {
      await session.reopen(connection);
      ({ events: stored } = (await connection.sendRequest(SessionGetMessages.method, { sessionId: backend.sessionId })) as { events: SessionEvent[] });
    } catch {
      backend.rebind(previous);
      backend.finishCatchUp([]);
      return false;
    }
    backend.finishCatchUp(stored);
    // The forwarded attachment is no longer needed (best effort: it also ends with our connection).
    await previous.sendRequest(SessionDestroy.method, { sessionId: backend.sessionId }).catch(() => undefined);
    return true;
  }

  /** Closes every owner connection. */
  close(errors: Error[], signal: NodeJS.Signals = "SIGTERM"): void {
    for (const link of this.#links.values()) link.close(errors, signal);
    this.#links.clear();
  }

  async #linkTo(url: string): Promise<RuntimeLink> {
    const known = this.#links.get(url);
    if (known?.connection) return known;
    const endpoint = parseCliUrl(url.replace(/^tcp:\/\//, ""));
    const link: RuntimeLink = new RuntimeLink({ ...this.options, cliUrl: url, useStdio: false, cliPath: undefined }, endpoint, {
      setup: (connection) => this.host.setup(connection),
      onUnexpectedClose: () => void this.#lost(url, link),
    });
    await link.open();
    this.#links.set(url, link);
    return link;
  }

  /** An owner's connection was lost: its sessions go back to the client's connection, then follow their next owner. */
  async #lost(url: string, link: RuntimeLink): Promise<void> {
    if (this.#links.get(url) !== link) return;
    this.#links.delete(url);
    const connection = link.connection;
    const sessions = connection ? this.host.sessionsOn(connection) : [];
    link.close([]);
    if (sessions.length === 0) return;
    await reconnect(
      {
        cancelled: () => this.host.cancelled(),
        open: () => this.host.mainConnection(),
        sessions: () => sessions,
        resumed: (session, result) => this.follow(session, result),
      },
      this.options.reconnect ?? { initialDelayMs: 100, maxDelayMs: 5000, giveUpAfterMs: 120_000 },
    ).catch(() => undefined);
  }
}
