import type { Socket } from "node:net";
import { ErrorCodes } from "@tandem/protocol/errors";
import type { Logger } from "../log.js";
import { GuessThrottle } from "./admission/guess-throttle.js";
import { defaultAdmissionLimits, PendingConnections, type AdmissionLimits } from "./admission/limits.js";
import { RefusalLog } from "./admission/refusal-log.js";
import { authenticateSocket } from "./handshake.js";
import { canFindPeerUid, isLoopbackAddress, PeerUidFinder, type SocketTableReader } from "./peer-check.js";

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
  /** Bounds on unauthenticated clients and token guessing (default {@link defaultAdmissionLimits}). */
  limits?: AdmissionLimits;
}

/**
 * The gate every accepted TCP socket passes before the JSON-RPC connection (and so the runtime)
 * sees it:
 * - with a token: the client's first request must be `connect {token}` (see {@link authenticateSocket});
 * - without one: the client must be on a loopback address and its socket must belong to this
 *   process's own OS user (read from /proc/net/tcp, see {@link PeerUidFinder}), so clients that
 *   cannot send a token (official SDK 0.2.0 pings first) work, but only for their own user.
 *
 * With a token, clients are told apart by peer (their OS user on loopback, else their address):
 * each peer may hold `limits.perPeer` unauthenticated connections and all together `limits.total`
 * (this OS user is exempt from the total), a newcomer beyond is refused; each has
 * `limits.authTimeoutMs` to authenticate; and wrong tokens are throttled per peer (see
 * {@link GuessThrottle}). Refused sockets are closed and the reason is logged (a flood in summary);
 * those refused before any handshake are reset, so a refused flood leaves no TIME_WAIT rows that
 * every later peer lookup would have to read through.
 */
export class TcpAccessGate {
  private readonly limits: AdmissionLimits;
  private readonly peerUids: PeerUidFinder;
  private readonly pending: PendingConnections;
  private readonly guesses: GuessThrottle;
  private readonly refusals: RefusalLog;
  private readonly findsUids: boolean;

  constructor(private readonly options: TcpAccessOptions) {
    this.limits = options.limits ?? defaultAdmissionLimits;
    this.peerUids = new PeerUidFinder(options.readSocketTable);
    this.pending = new PendingConnections(this.limits, options.uid === undefined ? undefined : uidLabel(options.uid));
    this.guesses = new GuessThrottle(this.limits.guessBurst, this.limits.guessesPerSecond);
    this.refusals = new RefusalLog(options.logger);
    this.findsUids = options.readSocketTable !== undefined || canFindPeerUid();
  }

  /**
   * Lets `socket` in through `admit` once it is allowed; closes it otherwise. `openedWithConnect`
   * tells whether the client already sent `connect` (always, with a token): it is a current client.
   */
  admit(socket: Socket, admit: (socket: Socket, openedWithConnect: boolean) => void): void {
    const onError = (error: Error) => this.options.logger.debug(`TCP client error before admission: ${error.message}`);
    socket.on("error", onError);
    void this.peerOf(socket).then((peer) => {
      socket.off("error", onError);
      if (socket.destroyed) return;
      if (this.options.token === undefined) {
        const refusal = this.sameUserRefusal(socket, peer);
        if (refusal === undefined) admit(socket, false);
        else this.refuse(socket, peer, refusal);
        return;
      }
      this.authenticate(socket, peer, this.options.token, admit);
    });
  }

  private authenticate(socket: Socket, peer: Peer, token: string, admit: (socket: Socket, openedWithConnect: boolean) => void): void {
    const slot = this.pending.take(peer.label);
    if ("refusal" in slot) {
      const reply = JSON.stringify({ jsonrpc: "2.0", id: null, error: { code: ErrorCodes.Unauthenticated, message: `Not authenticated: ${slot.refusal}` } });
      socket.on("error", () => undefined);
      // Reset rather than close: a refused flood then leaves no TIME_WAIT rows that every later
      // peer lookup would have to read through. The reply is queued at the peer before the reset.
      socket.write(`Content-Length: ${Buffer.byteLength(reply, "utf8")}\r\n\r\n${reply}`, () => socket.resetAndDestroy());
      this.refusals.refused(peer.label, addressOf(socket), slot.refusal);
      return;
    }
    socket.once("close", () => slot.release());
    authenticateSocket(
      socket,
      {
        token,
        connectResult: this.options.connectResult,
        logger: this.options.logger,
        timeoutMs: this.limits.authTimeoutMs,
        beginGuess: () => this.guesses.begin(peer.label),
        onRefused: (reason) => this.refusals.refused(peer.label, addressOf(socket), reason),
      },
      (admitted) => {
        slot.release();
        admit(admitted, true);
      },
    );
  }

  /** Who is at the other end: its OS user for a loopback client whose socket owner was found, else its address. */
  private async peerOf(socket: Socket): Promise<Peer> {
    const byAddress: Peer = { label: `address ${socket.remoteAddress ?? "?"}`, uid: undefined };
    if (!this.findsUids || !isLoopbackAddress(socket.remoteAddress)) return byAddress;
    const uid = await this.peerUids.peerUid(socket);
    return uid === undefined ? byAddress : { label: uidLabel(uid), uid };
  }

  /** Undefined when the peer is this OS user on loopback; else why not. */
  private sameUserRefusal(socket: Socket, peer: Peer): string | undefined {
    if (!isLoopbackAddress(socket.remoteAddress)) return "not a loopback address, and no connection token is configured";
    const ownUid = this.options.uid;
    if (ownUid === undefined) return "cannot tell which OS user the client is, and no connection token is configured";
    if (peer.uid === undefined) return "cannot find the client's OS user in /proc/net/tcp, and no connection token is configured";
    if (peer.uid !== ownUid) return `its OS user (uid ${peer.uid}) is not this runtime's (uid ${ownUid}); set COPILOT_CONNECTION_TOKEN to let other clients in`;
    return undefined;
  }

  private refuse(socket: Socket, peer: Peer, reason: string): void {
    this.refusals.refused(peer.label, addressOf(socket), reason);
    socket.resetAndDestroy();
  }
}

/** Who a client is, for the bounds and the log: `uid N` (its OS user, on loopback) or `address A`. */
interface Peer {
  readonly label: string;
  readonly uid: number | undefined;
}

function uidLabel(uid: number): string {
  return `uid ${uid}`;
}

function addressOf(socket: Socket): string {
  return `${socket.remoteAddress ?? "?"}:${socket.remotePort ?? "?"}`;
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
