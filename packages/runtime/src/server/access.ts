import type { Socket } from "node:net";
import type { Logger } from "../log.js";
import { authenticateSocket } from "./handshake.js";
import { canFindPeerUid, isLoopbackAddress, loopbackPeerUid, type SocketTableReader } from "./peer-check.js";

/** How TCP clients are let in. */
export interface TcpAccessOptions {
  /** The connection token (`COPILOT_CONNECTION_TOKEN`); without one, only this OS user's loopback clients get in. */
  token: string | undefined;
  /** The `connect` result for a client that authenticated with the token. */
  connectResult: () => unknown;
  logger: Logger;
  /** This process's uid (undefined where the platform has none). */
  uid: number | undefined;
  /** Reads `/proc/net/tcp*` (replaceable in tests). */
  readSocketTable?: SocketTableReader;
}

/**
 * The gate every accepted TCP socket passes before the JSON-RPC connection (and so the runtime)
 * sees it:
 * - with a token: the client's first request must be `connect {token}` (see {@link authenticateSocket});
 * - without one: the client must be on a loopback address and its socket must belong to this
 *   process's own OS user (read from /proc/net/tcp, see {@link loopbackPeerUid}), so clients that
 *   cannot send a token (official SDK 0.2.0 pings first) work, but only for their own user.
 * Refused sockets are closed and the reason is logged.
 */
export class TcpAccessGate {
  constructor(private readonly options: TcpAccessOptions) {}

  /**
   * Lets `socket` in through `admit` once it is allowed; closes it otherwise. `openedWithConnect`
   * tells whether the client already sent `connect` (always, with a token): it is a current client.
   */
  admit(socket: Socket, admit: (socket: Socket, openedWithConnect: boolean) => void): void {
    const { token, logger } = this.options;
    if (token !== undefined) {
      authenticateSocket(socket, { token, connectResult: this.options.connectResult, logger }, (admitted) => admit(admitted, true));
      return;
    }
    const onError = (error: Error) => logger.debug(`TCP client error before admission: ${error.message}`);
    socket.on("error", onError);
    void this.peerIsSameUser(socket).then((refusal) => {
      socket.off("error", onError);
      if (refusal === undefined) {
        admit(socket, false);
        return;
      }
      logger.warn(`refused TCP client ${socket.remoteAddress ?? "?"}:${socket.remotePort ?? "?"}: ${refusal}`);
      socket.destroy();
    });
  }

  /** Undefined when the peer is this OS user on loopback; else why not. */
  private async peerIsSameUser(socket: Socket): Promise<string | undefined> {
    if (!isLoopbackAddress(socket.remoteAddress)) return "not a loopback address, and no connection token is configured";
    const ownUid = this.options.uid;
    if (ownUid === undefined) return "cannot tell which OS user the client is, and no connection token is configured";
    const peerUid = await loopbackPeerUid(socket, this.options.readSocketTable);
    if (peerUid === undefined) return "cannot find the client's OS user in /proc/net/tcp, and no connection token is configured";
    if (peerUid !== ownUid) return `its OS user (uid ${peerUid}) is not this runtime's (uid ${ownUid}); set COPILOT_CONNECTION_TOKEN to let other clients in`;
    return undefined;
  }
}

/** What starting a TCP server with these settings means: a reason not to start, or warnings. */
export interface TcpStartupCheck {
  refusal?: string;
  warnings: string[];
}

/**
 * Checks the TCP settings before listening: a non-loopback `--host` needs a connection token (and
 * gets a warning even with one), and without a token the platform must be able to tell the
 * client's OS user (Linux /proc/net/tcp); elsewhere TCP needs a token.
 */
export function checkTcpStartup(host: string, token: string | undefined, peerUidAvailable: boolean = canFindPeerUid()): TcpStartupCheck {
  const loopback = isLoopbackAddress(host);
  if (!loopback && token === undefined) {
    return {
      refusal: `--host ${host} is not a loopback address: anyone who can reach it could run commands as this user. Set COPILOT_CONNECTION_TOKEN (or --connection-token-env <VAR>) so clients must authenticate, or bind 127.0.0.1.`,
      warnings: [],
    };
  }
  if (token === undefined && !peerUidAvailable) {
    return {
      refusal:
        "TCP without a connection token needs /proc/net/tcp to check that a client is this OS user, and this system has none. Set COPILOT_CONNECTION_TOKEN (or --connection-token-env <VAR>), or use --stdio.",
      warnings: [],
    };
  }
  if (!loopback) {
    return {
      warnings: [
        `serving on ${host}, which is not a loopback address: any host that can reach it and knows the connection token can run commands as this user, and the traffic is not encrypted.`,
      ],
    };
  }
  return { warnings: [] };
}
