import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import type { Socket } from "node:net";
import { encodeFrame, FrameReader, maxHandshakeFrameBytes } from "./peer-frames.js";

/**
 * The handshake of a peer link, the database being the trust root: every node process makes a
 * random 32-byte secret when it starts and stores it in its `cluster_nodes` row. Both ends send
 * `hello {nodeId, inc, nonce}` at once; each answers the other's with
 * `proof {nodeId, mac: HMAC-SHA256(own secret, peer's nonce ‖ peer's node id)}`, checks the
 * other's proof against the secret the database holds for that live node (`timingSafeEqual`), and
 * sends `ok`. A side is through once it checked the other's proof and got its `ok`; a peer sends
 * messages only then, so nothing arrives before its sender was checked. Anything else, or no
 * answer within the timeout, closes the connection.
 */

/** Who is at the other end of a link, as the database vouched. */
export interface PeerIdentity {
  nodeId: string;
  /** Its process incarnation (from its `cluster_nodes` row). */
  inc: string;
}

/** A live node's secret and incarnation, from its `cluster_nodes` row. */
export interface PeerCredentials {
  secret: Buffer;
  inc: string;
}

/** What a handshake needs. */
export interface HandshakeOptions {
  nodeId: string;
  inc: string;
  secret: Buffer;
  /** The node this side connected to (undefined on the accepting side: any live node may connect). */
  expectedPeer?: string;
  /** The secret and incarnation the database holds for a node; undefined when it is unknown or not alive. */
  credentialsOf(nodeId: string): Promise<PeerCredentials | undefined>;
  /** The whole handshake's deadline (default 5 s). */
  timeoutMs?: number;
}

/** A handshake that failed: the connection is closed, and `message` says why. */
export class PeerRefused extends Error {
  constructor(message: string) {
    super(message);
    this.name = "PeerRefused";
  }
}

/** What a finished handshake hands on: the peer, the reader (its limit still the handshake's) and frames that came after the peer's `ok`. */
export interface Handshaken {
  peer: PeerIdentity;
  reader: FrameReader;
  rest: unknown[];
}

/** The proof of holding `secret`, for a challenge of `nonce` from `challenger`. */
export function proofOf(secret: Buffer, nonce: string, challenger: string): Buffer {
  return createHmac("sha256", secret).update(nonce, "utf8").update("\u0000").update(challenger, "utf8").digest();
}

const nodeIdPattern = /^[A-Za-z0-9._:-]{1,200}$/;

type Hello = { t: "hello"; nodeId: string; inc: string; nonce: string };

function isHello(frame: unknown): frame is Hello {
  const value = frame as Partial<Hello> | null;
  return (
    typeof value === "object" && value !== null && value.t === "hello" &&
    typeof value.nodeId === "string" && nodeIdPattern.test(value.nodeId) &&
    typeof value.inc === "string" && value.inc.length <= 200 &&
    typeof value.nonce === "string" && /^[0-9a-f]{64}$/.test(value.nonce)
  );
}

/**
 * Runs the handshake on a connected socket; resolves with the peer once both sides checked each
 * other, rejects with {@link PeerRefused} otherwise (the caller closes the socket).
 *
 * @example
 * const { peer, reader, rest } = await handshake(socket, { nodeId, inc, secret, credentialsOf });
 */
export function handshake(socket: Socket, options: HandshakeOptions): Promise<Handshaken> {
  const reader = new FrameReader(maxHandshakeFrameBytes);
  const nonce = randomBytes(32).toString("hex");
  const timeoutMs = options.timeoutMs ?? 5000;
  return new Promise<Handshaken>((resolve, reject) => {
    let hello: Hello | undefined;
    let peer: PeerIdentity | undefined;
    let peerOk = false;
    let checking = false;
    /** Frames that came while the peer's proof was being checked. */
    const waiting: unknown[] = [];
    let settled = false;

    const finish = (error?: Error, rest: unknown[] = []): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.off("data", onData);
      socket.off("close", onClose);
      socket.off("error", onClose);
      if (error) return reject(error);
      // The link reads on from here; nothing may be emitted before it listens.
      socket.pause();
      resolve({ peer: peer!, reader, rest });
    };
    const timer = setTimeout(() => finish(new PeerRefused(`the handshake did not complete within ${timeoutMs} ms`)), timeoutMs);
    timer.unref();

    const take = (frames: unknown[]): void => {
      for (let index = 0; index < frames.length; index++) {
        if (settled) return;
        if (checking) {
          waiting.push(...frames.slice(index));
          // A peer sends one frame (its ok) and then waits for ours: more is not a peer.
          if (waiting.length > 16) finish(new PeerRefused("too many frames before the handshake completed"));
          return;
        }
        const frame = frames[index] as { t?: unknown } | null;
        if (!hello) {
          if (!isHello(frame)) return finish(new PeerRefused("the first frame was not a hello"));
          if (options.expectedPeer !== undefined && frame.nodeId !== options.expectedPeer) return finish(new PeerRefused(`connected to ${options.expectedPeer} but node ${frame.nodeId} answered`));
          hello = frame;
          socket.write(encodeFrame({ t: "proof", nodeId: options.nodeId, mac: proofOf(options.secret, frame.nonce, frame.nodeId).toString("hex") }));
          continue;
        }
        if (!peer) {
          const proof = frame as { t?: unknown; nodeId?: unknown; mac?: unknown } | null;
          if (proof?.t !== "proof" || proof.nodeId !== hello.nodeId || typeof proof.mac !== "string" || !/^[0-9a-f]{64}$/.test(proof.mac)) {
            return finish(new PeerRefused(`node ${hello.nodeId} sent no valid proof after its hello`));
          }
          checking = true;
          void check(hello, Buffer.from(proof.mac, "hex")).then(
            (identity) => {
              checking = false;
              if (settled) return;
              peer = identity;
              socket.write(encodeFrame({ t: "ok" }));
              if (peerOk) return finish(undefined, waiting.splice(0));
              take(waiting.splice(0));
            },
            (error: unknown) => finish(error instanceof PeerRefused ? error : new PeerRefused(`could not check node ${hello!.nodeId}: ${error instanceof Error ? error.message : String(error)}`)),
          );
          continue;
        }
        if (!peerOk) {
          if (frame?.t !== "ok") return finish(new PeerRefused(`node ${peer.nodeId} sent a ${String(frame?.t)} frame before it accepted this node`));
          peerOk = true;
          return finish(undefined, frames.slice(index + 1));
        }
      }
    };

    const check = async (claimed: Hello, mac: Buffer): Promise<PeerIdentity> => {
      const credentials = await options.credentialsOf(claimed.nodeId);
      if (!credentials) throw new PeerRefused(`node ${claimed.nodeId} is not a live cluster node (no recent heartbeat in the database)`);
      if (credentials.inc !== claimed.inc) throw new PeerRefused(`node ${claimed.nodeId} claims incarnation ${claimed.inc}, but the database holds ${credentials.inc}`);
      const expected = proofOf(credentials.secret, nonce, options.nodeId);
      if (!timingSafeEqual(expected, mac)) throw new PeerRefused(`node ${claimed.nodeId} failed the challenge: its proof does not match the secret the database holds for it`);
      return { nodeId: claimed.nodeId, inc: credentials.inc };
    };

    const onData = (chunk: Buffer): void => {
      let frames: unknown[];
      try {
        frames = reader.push(chunk);
      } catch (error) {
        finish(new PeerRefused(`unreadable handshake: ${error instanceof Error ? error.message : String(error)}`));
        return;
      }
      take(frames);
    };
    const onClose = (): void => finish(new PeerRefused("the connection closed during the handshake"));
    socket.on("data", onData);
    socket.on("close", onClose);
    socket.on("error", onClose);
    socket.write(encodeFrame({ t: "hello", nodeId: options.nodeId, inc: options.inc, nonce }));
  });
}
