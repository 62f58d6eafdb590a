import type { Socket } from "node:net";
import { Connect, Ping } from "@tandem/protocol";
import { ErrorCodes } from "@tandem/protocol/errors";
import { ResponseError, type MessageConnection } from "vscode-jsonrpc/node.js";
import { spawnCliProcess, type CliProcess } from "./cli-process.js";
import { connectOverTcp, connectToChildStdio, connectToParentStdio } from "./connection.js";
import type { Endpoint, ResolvedClientOptions } from "./options.js";
import { errorMessage } from "./tools.js";

/**
 * Oldest protocol version this SDK speaks (v2: tool calls and permissions arrive as requests).
 *
 * @example
 * if (client.protocolVersion === MIN_PROTOCOL_VERSION) console.log("talking to a v2 runtime");
 */
export const MIN_PROTOCOL_VERSION = 2;
/**
 * Newest protocol version this SDK speaks (v3: tool calls and permissions arrive as broadcast events).
 *
 * @example
 * console.log(`SDK speaks protocol ${MIN_PROTOCOL_VERSION}-${SDK_PROTOCOL_VERSION}`);
 */
export const SDK_PROTOCOL_VERSION = 3;
/** How long a failed first request waits for the process exit that probably caused it. */
const EXIT_AFTER_FAILURE_MS = 500;

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** What the link needs from its owner. */
export interface RuntimeLinkHooks {
  /** Registers handlers on a new connection before it starts listening. */
  setup(connection: MessageConnection): void;
  /** The open connection closed, or a write failed, without {@link RuntimeLink.close} being called. */
  onUnexpectedClose(): void;
}

/**
 * One connection to a runtime: spawns it (unless it is external), connects over stdio or TCP,
 * checks the protocol version, and tears everything down again. Internal to {@link CopilotClient}.
 */
export class RuntimeLink {
  #connection: MessageConnection | null = null;
  #socket: Socket | null = null;
  #process: CliProcess | null = null;
  #protocolVersion: number | null = null;
  /** The endpoint tried first by the next open (moves on after a lost or failed connection). */
  #nextEndpoint = 0;

  constructor(
    private readonly options: ResolvedClientOptions,
    private readonly endpoint: Endpoint | undefined,
    private readonly hooks: RuntimeLinkHooks,
    /** Every endpoint of an external runtime (several nodes), tried in turn. */
    private readonly endpoints: readonly Endpoint[] = endpoint ? [endpoint] : [],
  ) {}

  /** Makes the next open start with the endpoint after the current one (its node was lost). */
  moveToNextEndpoint(): void {
    if (this.endpoints.length > 0) this.#nextEndpoint = (this.#nextEndpoint + 1) % this.endpoints.length;
  }

  /** The open connection, or null. */
  get connection(): MessageConnection | null {
    return this.#connection;
  }

  /** The protocol version agreed at the last successful open. */
  get protocolVersion(): number | null {
    return this.#protocolVersion;
  }

  /** Spawns (if needed), connects and verifies the protocol version; cleans up and rethrows on failure. */
  async open(): Promise<void> {
    try {
      if (!this.endpoint && !this.options.isChildProcess) this.#process = await spawnCliProcess(this.options);
      await this.#connect();
      await this.#verifyProtocolVersion();
    } catch (error) {
      this.close([]);
      throw error;
    }
  }

  async #connect(): Promise<void> {
    let connection: MessageConnection | undefined;
    const lost = () => {
      // Connections closed by close() are no longer current.
      if (connection && connection === this.#connection) this.hooks.onUnexpectedClose();
    };
    if (this.options.isChildProcess) {
      connection = connectToParentStdio(lost);
    } else if (this.options.useStdio) {
      if (!this.#process) throw new Error("CLI process not started");
      connection = connectToChildStdio(this.#process.child, lost);
    } else {
      const port = this.#process?.port;
      const endpoint = this.endpoint ?? (port ? { host: "localhost", port } : undefined);
      if (!endpoint) throw new Error("Server port not available");
      const tcp = this.endpoints.length > 1 ? await this.#connectToAny(lost) : await connectOverTcp(endpoint, lost);
      this.#socket = tcp.socket;
      connection = tcp.connection;
    }
    this.hooks.setup(connection);
    connection.onClose(lost);
    this.#connection = connection;
    connection.listen();
  }

  /** Connects to the first of the endpoints that accepts, from {@link moveToNextEndpoint}'s place on. */
  async #connectToAny(lost: () => void): ReturnType<typeof connectOverTcp> {
    let lastError: unknown;
    for (let attempt = 0; attempt < this.endpoints.length; attempt++) {
      const index = (this.#nextEndpoint + attempt) % this.endpoints.length;
      try {
        const connected = await connectOverTcp(this.endpoints[index]!, lost);
        this.#nextEndpoint = index;
        return connected;
      } catch (error) {
        lastError = error;
      }
    }
    throw lastError instanceof Error ? lastError : new Error(String(lastError));
  }

  async #verifyProtocolVersion(): Promise<void> {
    const { protocolVersion } = await this.#handshake();
    const supported = `SDK supports versions ${MIN_PROTOCOL_VERSION}-${SDK_PROTOCOL_VERSION}`;
    if (protocolVersion === undefined) {
      throw new Error(
        `SDK protocol version mismatch: ${supported}, but server does not report a protocol version. Please update your server to ensure compatibility.`,
      );
    }
    if (protocolVersion < MIN_PROTOCOL_VERSION || protocolVersion > SDK_PROTOCOL_VERSION) {
      throw new Error(
        `SDK protocol version mismatch: ${supported}, but server reports version ${protocolVersion}. Please update your SDK or server to ensure compatibility.`,
      );
    }
    this.#protocolVersion = protocolVersion;
  }

  /**
   * The first request, as the official SDK 1.0 sends it: `connect` (with the connection token in TCP
   * mode), falling back to `ping` when the runtime does not know `connect` (older runtimes).
   */
  async #handshake(): Promise<{ protocolVersion?: number | undefined }> {
    const connection = this.#connection;
    if (!connection) throw new Error("Client not connected");
    const token = this.options.connectionToken;
    try {
      return await this.#raceExit<{ protocolVersion?: number }>(connection.sendRequest(Connect.method, token === undefined ? {} : { token }));
    } catch (error) {
      const unknownMethod = error instanceof ResponseError && (error.code === ErrorCodes.MethodNotFound || error.message === "Unhandled method connect");
      if (!unknownMethod) throw error;
    }
    return this.#raceExit<{ protocolVersion?: number }>(connection.sendRequest(Ping.method, { message: undefined }));
  }

  /** `request`, raced against the runtime exiting; an exit explains a failure better than a closed pipe. */
  async #raceExit<R>(request: Promise<R>): Promise<R> {
    const exited = this.#process?.exited;
    if (!exited) return request;
    try {
      return await Promise.race([request, exited]);
    } catch (error) {
      const exitError = await Promise.race([exited.catch((exit: unknown) => exit), sleep(EXIT_AFTER_FAILURE_MS)]);
      throw exitError instanceof Error ? exitError : error;
    }
  }

  /**
   * Closes the connection and socket and stops a spawned runtime (SIGTERM, or SIGKILL for a forced
   * stop). Problems are appended to `errors`; nothing is thrown.
   */
  close(errors: Error[], signal: NodeJS.Signals = "SIGTERM"): void {
    const connection = this.#connection;
    this.#connection = null;
    if (connection) {
      try {
        connection.dispose();
      } catch (error) {
        errors.push(new Error(`Failed to dispose connection: ${errorMessage(error)}`));
      }
    }
    const socket = this.#socket;
    this.#socket = null;
    if (socket) {
      try {
        if (signal === "SIGKILL") socket.destroy();
        else socket.end();
      } catch (error) {
        errors.push(new Error(`Failed to close socket: ${errorMessage(error)}`));
      }
    }
    const cliProcess = this.#process;
    this.#process = null;
    if (cliProcess && !cliProcess.hasExited()) {
      try {
        cliProcess.child.kill(signal);
      } catch (error) {
        errors.push(new Error(`Failed to kill CLI process: ${errorMessage(error)}`));
      }
    }
  }
}
