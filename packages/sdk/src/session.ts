import { randomUUID } from "node:crypto";
import {
  SessionAbort,
  SessionDestroy,
  SessionGetMessages,
  SessionSend,
  type ResultOf,
  type SessionEvent,
  type SessionEventType,
} from "@tandem/protocol";
import type { SessionRpc } from "./rpc.js";
import type { SessionBackend } from "./session-backend.js";
import { getTraceContext } from "./telemetry.js";
import { errorMessage } from "./tools.js";
import { lostWithConnection } from "./reconnect.js";
import type { AssistantMessageEvent, MessageOptions, ReasoningEffort, SessionEventHandler, TypedSessionEventHandler } from "./types.js";

const DEFAULT_SEND_AND_WAIT_TIMEOUT_MS = 60_000;
const SESSION_DISCONNECT_ATTEMPTS = 3;

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * One conversation with the runtime. Create it with {@link CopilotClient.createSession} or
 * {@link CopilotClient.resumeSession}; subscribe with {@link on}; talk with {@link send} or
 * {@link sendAndWait}.
 *
 * @example
 * await using session = await client.createSession({ onPermissionRequest: approveAll });
 * session.on("assistant.message", (event) => console.log(event.data.content));
 * await session.sendAndWait({ prompt: "Hello!" });
 */
export class CopilotSession {
  /** The session id. */
  readonly sessionId: string;
  readonly #backend: SessionBackend;

  /** @internal Sessions are made by {@link CopilotClient}; this constructor is not part of the API. */
  constructor(backend: SessionBackend) {
    this.sessionId = backend.sessionId;
    this.#backend = backend;
  }

  /**
   * The session's workspace directory (checkpoints, plan, files), when the runtime reports one.
   *
   * @example
   * console.log(session.workspacePath);
   */
  get workspacePath(): string | undefined {
    return this.#backend.workspacePath;
  }

  /**
   * Typed session-scoped RPC (model, mode, plan, workspace, agent, fleet, compaction, tools,
   * permissions, log); the session id is filled in.
   *
   * @example
   * await session.rpc.mode.set({ mode: "plan" });
   */
  get rpc(): SessionRpc {
    return this.#backend.rpc;
  }

  /**
   * Sends a user message and returns its id at once; the answer arrives as events.
   *
   * @example
   * const messageId = await session.send({ prompt: "Explain this file", attachments: [{ type: "file", path: "src/index.ts" }] });
   */
  async send(options: MessageOptions): Promise<string> {
    const trace = await getTraceContext(this.#backend.traceContextProvider);
    // The same key on every attempt: a send whose answer was lost with its connection runs once.
    const params = {
      ...trace,
      sessionId: this.sessionId,
      prompt: options.prompt,
      attachments: options.attachments,
      mode: options.mode,
      requestHeaders: options.requestHeaders,
      idempotencyKey: randomUUID(),
    };
    for (;;) {
      try {
        const response: ResultOf<typeof SessionSend> = await this.#backend.connection.sendRequest(SessionSend.method, params);
        return response.messageId;
      } catch (error) {
        if (!lostWithConnection(error) || !(await this.#backend.awaitReconnect())) throw error;
      }
    }
  }

  /**
   * Sends a user message and waits until the session is idle. Resolves with the last
   * `assistant.message` of the turn (or undefined); rejects on `session.error` or after `timeout` ms.
   * The timeout only stops the waiting, not the agent.
   *
   * @example
   * const reply = await session.sendAndWait({ prompt: "What is 2 + 2?" }, 30_000);
   * console.log(reply?.data.content);
   */
  async sendAndWait(options: MessageOptions, timeout?: number): Promise<AssistantMessageEvent | undefined> {
    const timeoutMs = timeout ?? DEFAULT_SEND_AND_WAIT_TIMEOUT_MS;
    let lastAssistantMessage: AssistantMessageEvent | undefined;
    let settleIdle!: () => void;
    let failIdle!: (error: Error) => void;
    const idle = new Promise<void>((resolve, reject) => {
      settleIdle = resolve;
      failIdle = reject;
    });
    // An error may arrive while `send` is still pending; it is observed by the race below.
    idle.catch(() => {});
    // Subscribe before sending so no event of this turn is missed.
    const unsubscribe = this.on((event) => {
      if (event.type === "assistant.message") lastAssistantMessage = event;
      if (event.type === "session.idle") settleIdle();
      if (event.type === "session.error") failIdle(sessionError(event.data.message, event.data.stack));
    });
    let timer: NodeJS.Timeout | undefined;
    try {
      await this.send(options);
      const timedOut = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`Timeout after ${timeoutMs}ms waiting for session.idle`)), timeoutMs);
      });
      await Promise.race([idle, timedOut]);
      return lastAssistantMessage;
    } finally {
      if (timer) clearTimeout(timer);
      unsubscribe();
    }
  }

  /**
   * Subscribes to the events of one type (`data` is narrowed). Returns the unsubscribe function.
   *
   * @example
   * const off = session.on("assistant.message_delta", (event) => process.stdout.write(event.data.deltaContent));
   * off();
   */
  on<K extends SessionEventType>(eventType: K, handler: TypedSessionEventHandler<K>): () => void;
  /**
   * Subscribes to every event. Returns the unsubscribe function.
   *
   * @example
   * const off = session.on((event) => console.log(event.type));
   */
  on(handler: SessionEventHandler): () => void;
  on(eventTypeOrHandler: SessionEventType | SessionEventHandler, handler?: (event: never) => void): () => void {
    if (typeof eventTypeOrHandler === "string") {
      if (!handler) throw new TypeError("session.on(type, handler) needs a handler");
      return this.#backend.events.addTyped(eventTypeOrHandler, handler as (event: SessionEvent) => void);
    }
    return this.#backend.events.add(eventTypeOrHandler);
  }

  /**
   * Cancels the running turn; the session stays usable.
   *
   * @example
   * setTimeout(() => void session.abort(), 5_000);
   */
  async abort(): Promise<void> {
    await this.#backend.connection.sendRequest(SessionAbort.method, { sessionId: this.sessionId });
  }

  /**
   * The session's history: every event the runtime kept.
   *
   * @example
   * const userMessages = (await session.getMessages()).filter((event) => event.type === "user.message");
   */
  async getMessages(): Promise<SessionEvent[]> {
    const response: ResultOf<typeof SessionGetMessages> = await this.#backend.connection.sendRequest(SessionGetMessages.method, {
      sessionId: this.sessionId,
    });
    return response.events as SessionEvent[];
  }

  /**
   * Switches the model for the following turns; the history is kept.
   *
   * @example
   * await session.setModel("gpt-4.1", { reasoningEffort: "high" });
   */
  async setModel(model: string, options?: { reasoningEffort?: ReasoningEffort }): Promise<void> {
    await this.rpc.model.switchTo({ modelId: model, ...options });
  }

  /**
   * Writes a message to the session timeline (`session.info` / `session.warning` / `session.error`).
   *
   * @example
   * await session.log("Deploy started", { level: "info", ephemeral: true });
   */
  async log(message: string, options?: { level?: "info" | "warning" | "error"; ephemeral?: boolean; url?: string }): Promise<void> {
    await this.rpc.log({ message, ...options });
  }

  /**
   * Releases the session in the runtime (`session.destroy`) and drops every local handler. The data on
   * disk stays, so the session can be resumed later.
   *
   * @example
   * await session.disconnect();
   */
  async disconnect(): Promise<void> {
    await this.#backend.connection.sendRequest(SessionDestroy.method, { sessionId: this.sessionId });
    this.#backend.release();
  }

  /**
   * @deprecated Use {@link disconnect}.
   *
   * @example
   * await session.destroy();
   */
  async destroy(): Promise<void> {
    return this.disconnect();
  }

  /**
   * Disconnects at the end of an `await using` block.
   *
   * @example
   * await using session = await client.createSession({ onPermissionRequest: approveAll });
   */
  async [Symbol.asyncDispose](): Promise<void> {
    return this.disconnect();
  }
}

function sessionError(message: string, stack: string | undefined): Error {
  const error = new Error(message);
  if (stack) error.stack = stack;
  return error;
}

/** Disconnects a session, retrying with 100 ms then 200 ms pauses; returns the final error, if any. */
export async function disconnectWithRetries(session: CopilotSession): Promise<Error | undefined> {
  let lastError: unknown;
  for (let attempt = 1; attempt <= SESSION_DISCONNECT_ATTEMPTS; attempt++) {
    try {
      await session.disconnect();
      return undefined;
    } catch (error) {
      lastError = error;
      if (attempt < SESSION_DISCONNECT_ATTEMPTS) await sleep(100 * 2 ** (attempt - 1));
    }
  }
  return new Error(
    `Failed to disconnect session ${session.sessionId} after ${SESSION_DISCONNECT_ATTEMPTS} attempts: ${errorMessage(lastError)}`,
  );
}
