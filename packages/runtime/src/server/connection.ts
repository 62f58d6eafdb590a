import {
  CancellationTokenSource,
  createMessageConnection,
  ErrorCodes as JsonRpcErrorCodes,
  ResponseError,
  type NotificationMessage,
  type MessageConnection,
} from "vscode-jsonrpc/node.js";
import type { ClientPort } from "../session/client-port.js";
import type { Logger } from "../log.js";
import { errorMessage, TandemError } from "../errors.js";
import { defaultOutboundLimits, FramedMessageWriter, type OutboundLimits } from "./writer.js";
import { FramedMessageReader, type MessageReaderLimits } from "./message-reader.js";
import { EventHold } from "./event-hold.js";
import { ClientBase } from "./requesting-client.js";
import { generationOf, profileFor, type ClientGeneration, type CompatProfile } from "../compat/profile.js";

/** What one connection may take in (message size) and leave unread (outbound budget). */
export interface ConnectionLimits extends Partial<MessageReaderLimits> {
  outbound?: OutboundLimits;
  /** The connection is an extension's stdio (see `extensions/`): its source-qualified id. */
  extensionId?: string;
}

/** Handles one request: params in, result out (or a thrown error). */
export type RequestDispatcher = (method: string, params: unknown, client: ClientConnection) => Promise<unknown>;

/**
 * Session events that only report progress (streamed tool output, progress notes, response size):
 * the ones a client that falls behind may miss. Message deltas are not among them — they build
 * the message text on the client — and neither is anything persisted.
 */
export const progressEventTypes: ReadonlySet<string> = new Set(["tool.execution_partial_result", "tool.execution_progress", "assistant.streaming_delta"]);

/**
 * One connected client (a stdio pair or a TCP socket) speaking JSON-RPC 2.0 with Content-Length
 * framing. Requests go to the dispatcher; errors become JSON-RPC errors here, at the edge.
 */
export class ClientConnection extends ClientBase implements ClientPort {
  readonly extensionId: string | undefined;
  private requestsSeen = 0;
  private openedWithConnect = false;
  private readonly connection: MessageConnection;
  private readonly writer: FramedMessageWriter;
  /** Rejects when the client goes away (used to fail requests still waiting on it). */
  private readonly closed: Promise<never>;
  /** Session events held back while a create/resume is answered (see {@link holdEventsUntilResult}). */
  private readonly heldEvents = new EventHold();
  /** See {@link orderRequestsAfterEvents}. */
  private eventsDelivered: (sessionId: string) => Promise<void> | undefined = () => undefined;

  constructor(
    input: NodeJS.ReadableStream,
    output: NodeJS.WritableStream,
    private readonly dispatch: RequestDispatcher,
    private readonly logger: Logger,
    limits: ConnectionLimits = {},
  ) {
    super();
    this.extensionId = limits.extensionId;
    this.closed = new Promise<never>((_, reject) => this.onClose(() => reject(new Error("client disconnected"))));
    this.closed.catch(() => undefined);
    const outboundLimits = limits.outbound ?? defaultOutboundLimits;
    const reader = new FramedMessageReader(input, limits);
    this.writer = new FramedMessageWriter(output, outboundLimits, {
      onDroppingProgress: (unwritten) => logger.debug(`client ${this.id}: ${unwritten} bytes not yet read; dropping progress events until it catches up`),
      onOverflow: (unwritten) => {
        logger.warn(`client ${this.id}: disconnected: it left ${unwritten} bytes unread (limit ${outboundLimits.disconnectBytes})`);
        this.dispose();
        (output as { destroy?: () => void }).destroy?.();
      },
    });
    this.connection = createMessageConnection(reader, this.writer, {
      error: (message) => logger.error(message),
      warn: (message) => logger.warn(message),
      info: (message) => logger.debug(message),
      log: (message) => logger.debug(message),
    });
    reader.onRejected(({ reason, reply }) => {
      logger.warn(`client ${this.id}: refused a message: ${reason}`);
      if (reply) void this.writer.write({ jsonrpc: "2.0", id: reply.id, error: { code: reply.code, message: reply.message } } as never);
    });
    reader.onBrokenFraming((reason) => {
      logger.warn(`client ${this.id}: closing the connection, its framing is broken: ${reason}`);
      // Best effort: the client may still read why, before the stream is destroyed.
      void this.writer.write({ jsonrpc: "2.0", id: null, error: { code: JsonRpcErrorCodes.ParseError, message: `Closing the connection: ${reason}` } } as never);
      this.writer.flush();
    });
    this.writer.afterQueued = (message) => this.heldEvents.resultQueued(message);
    this.connection.onRequest((method, params) => this.handle(method, params));
    this.connection.onClose(() => this.markClosed());
    this.connection.onError(([error]) => logger.debug(`client ${this.id}: connection error: ${error.message}`));
    this.connection.listen();
  }

  /**
   * Whether this is a current client (official SDK 1.0.x or ours): one whose first request was
   * `connect`. Where 0.2.0 and 1.0 disagree, {@link profile} says what such a client gets.
   */
  get isCurrentClient(): boolean {
    return this.openedWithConnect;
  }

  /** The client's SDK generation, from its opening request. */
  get generation(): ClientGeneration {
    return generationOf(this.openedWithConnect);
  }

  /** What this client's generation expects (result shapes, event spellings, tools by default). */
  get profile(): CompatProfile {
    return profileFor(this.generation);
  }

  /** Records that the client opened with `connect` before this connection saw it (the TCP token handshake). */
  markOpenedWithConnect(): void {
    this.openedWithConnect = true;
  }

  deliverSessionEvent(sessionId: string, eventJson: string, eventType?: string): void {
    if (!this.lifetime.isOpen) return;
    // The hottest message of all (every streamed delta): framed here and queued on the same writer
    // as everything else, so order is kept, without the connection's per-message promise.
    const kind = eventType !== undefined && progressEventTypes.has(eventType) ? "progress" : "message";
    const frame = `{"jsonrpc":"2.0","method":"session.event","params":{"sessionId":${JSON.stringify(sessionId)},"event":${eventJson}}}`;
    if (this.heldEvents.hold(frame, kind)) return;
    this.writer.writeJson(frame, kind);
  }

  sendNotification(method: string, params: unknown): void {
    if (!this.lifetime.isOpen) return;
    // Queued on the writer directly, like session events (a working session's throttled
    // `session.updated` goes out up to ten times a second): the connection's own send path adds
    // three promises. The params take the shape that path gives them: an object as it is,
    // anything else as the only element of an array.
    const named = typeof params === "object" && params !== null && !Array.isArray(params);
    void this.writer.write({ jsonrpc: "2.0", method, params: named ? params : [params ?? null] } as NotificationMessage);
  }

  /**
   * A request about a session goes out only once the session's events emitted before it reached
   * its clients (they get an event once the log holds it): a permission or input request never
   * arrives before the `tool.execution_start` of the call it asks about. The session file system's
   * requests (`sessionFs.*`) are exempt: they are how a client-provided log gets written.
   */
  orderRequestsAfterEvents(eventsDelivered: (sessionId: string) => Promise<void> | undefined): void {
    this.eventsDelivered = eventsDelivered;
  }

  async sendRequest<R>(method: string, params: unknown, signal?: AbortSignal): Promise<R> {
    const sessionId = (params as { sessionId?: unknown } | null | undefined)?.sessionId;
    const delivered = typeof sessionId === "string" && !method.startsWith("sessionFs.") ? this.eventsDelivered(sessionId) : undefined;
    if (delivered) await delivered;
    if (!this.lifetime.isOpen) throw new Error("client disconnected");
    if (signal?.aborted) throw signal.reason ?? new Error("aborted");
    // Cancelling sends $/cancelRequest, but a client may ignore it: the wait also ends on abort.
    const source = new CancellationTokenSource();
    let onAbort: () => void = () => undefined;
    const aborted = new Promise<never>((_, reject) => {
      onAbort = () => {
        source.cancel();
        reject(signal?.reason ?? new Error("aborted"));
      };
      signal?.addEventListener("abort", onAbort, { once: true });
    });
    aborted.catch(() => undefined);
    try {
      return await Promise.race([this.connection.sendRequest<R>(method, params, source.token), this.closed, aborted]);
    } finally {
      signal?.removeEventListener("abort", onAbort);
      source.dispose();
    }
  }

  /** Closes the connection. */
  dispose(): void {
    this.connection.dispose();
    this.markClosed();
  }

  private async handle(method: string, params: unknown): Promise<unknown> {
    if (this.requestsSeen++ === 0 && method === "connect") this.openedWithConnect = true;
    if (!holdsEventsUntilResult.has(method)) {
      try {
        return await this.dispatch(method, params, this);
      } catch (error) {
        throw toResponseError(method, error, this.logger);
      }
    }
    const release = this.heldEvents.start((json, kind) => this.writer.writeJson(json, kind));
    try {
      const result = await this.dispatch(method, params, this);
      this.heldEvents.releaseAfter(result, release);
      return result;
    } catch (error) {
      release();
      throw toResponseError(method, error, this.logger);
    }
  }

  private markClosed(): void {
    this.lifetime.close();
  }
}

/**
 * Requests whose session events are held back until their result is on the wire: the SDKs register
 * a session when `session.create`/`session.resume` answers (0.2.0), so `session.start` and the
 * other events of the opening reach the session's handlers only when they come after the result.
 */
const holdsEventsUntilResult: ReadonlySet<string> = new Set(["session.create", "session.resume"]);

/** Maps any error to a JSON-RPC error: Tandem errors keep their code; the rest are internal. */
function toResponseError(method: string, error: unknown, logger: Logger): ResponseError<unknown> {
  if (error instanceof ResponseError) return error;
  if (error instanceof TandemError) return new ResponseError(error.code, error.message, error.data);
  logger.error(`request ${method} failed`, error);
  return new ResponseError(JsonRpcErrorCodes.InternalError, `Request ${method} failed: ${errorMessage(error)}`);
}
