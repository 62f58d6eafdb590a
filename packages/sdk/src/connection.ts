import type { ChildProcess } from "node:child_process";
import { Socket } from "node:net";
import type { Readable, Writable } from "node:stream";
import {
  createMessageConnection,
  StreamMessageReader,
  StreamMessageWriter,
  type Message,
  type MessageConnection,
} from "vscode-jsonrpc/node.js";
import type { Endpoint } from "./options.js";

/** Idle time before the first TCP keepalive probe (the runtime's listener uses the same). */
export const TCP_KEEPALIVE_MS = 30_000;

/** Called when a message could not be written: the stream is unusable and the connection should go. */
export type WriteFailureHandler = (error: unknown) => void;

/**
 * A stream writer whose failed writes are reported to a callback instead of rejecting. vscode-jsonrpc
 * 8.2 rethrows a failed request write inside a promise executor, which surfaces as an unhandled
 * rejection (and kills the process under Node's default policy). The callback disposes the
 * connection, which rejects the pending request with a normal error.
 */
class ReportingMessageWriter extends StreamMessageWriter {
  constructor(
    writable: Writable,
    private readonly onWriteFailure: WriteFailureHandler,
  ) {
    super(writable);
  }

  override async write(message: Message): Promise<void> {
    try {
      await super.write(message);
    } catch (error) {
      this.onWriteFailure(error);
    }
  }
}

function connectStreams(readable: Readable, writable: Writable, onWriteFailure: WriteFailureHandler): MessageConnection {
  return createMessageConnection(new StreamMessageReader(readable), new ReportingMessageWriter(writable, onWriteFailure));
}

/** A JSON-RPC connection over a spawned runtime's stdin/stdout (not yet listening). */
export function connectToChildStdio(child: ChildProcess, onWriteFailure: WriteFailureHandler): MessageConnection {
  if (!child.stdout || !child.stdin) throw new Error("CLI process not started");
  // Writes to a runtime that just died fail with EPIPE; the write failure handler deals with it.
  child.stdin.on("error", () => {});
  return connectStreams(child.stdout, child.stdin, onWriteFailure);
}

/** A JSON-RPC connection over this process's own stdio, to the runtime that spawned it. */
export function connectToParentStdio(onWriteFailure: WriteFailureHandler): MessageConnection {
  return connectStreams(process.stdin, process.stdout, onWriteFailure);
}

/** A JSON-RPC connection over TCP (not yet listening). */
export function connectOverTcp(
  endpoint: Endpoint,
  onWriteFailure: WriteFailureHandler,
): Promise<{ connection: MessageConnection; socket: Socket }> {
  return new Promise((resolve, reject) => {
    const socket = new Socket();
    let connected = false;
    socket.on("error", (error) => {
      // After connecting, socket errors surface as a closed connection.
      if (connected) return;
      reject(new Error(`Failed to connect to CLI server: ${error.message}`));
    });
    socket.connect(endpoint.port, endpoint.host, () => {
      connected = true;
      // vscode-jsonrpc writes header and body separately; with Nagle's algorithm each message would
      // wait for a delayed ACK (~40 ms per direction on loopback).
      socket.setNoDelay(true);
      // Probes find a runtime that vanished without closing; keep this below load balancers' idle timeouts.
      socket.setKeepAlive(true, TCP_KEEPALIVE_MS);
      resolve({ connection: connectStreams(socket, socket, onWriteFailure), socket });
    });
  });
}
