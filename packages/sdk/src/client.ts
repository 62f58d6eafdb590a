import { randomUUID } from "node:crypto";
import {
  AuthGetStatus,
  ModelsList,
  Ping,
  SessionCreate,
  SessionDelete,
  SessionGetForeground,
  SessionGetLastId,
  SessionList,
  SessionResume,
  SessionSetForeground,
  StatusGet,
  type ResultOf,
  type SessionLifecycleEvent,
} from "@tandem/protocol";
import type { MessageConnection } from "vscode-jsonrpc/node.js";
import { HandlerRegistry } from "./handler-registry.js";
import { ModelCache } from "./model-cache.js";
import { resolveClientOptions, type ResolvedClientOptions } from "./options.js";
import { readPing } from "./result-shapes.js";
import { createServerRpc, type ServerRpc } from "./rpc.js";
import { RuntimeLink } from "./runtime-link.js";
import { attachServerRequests } from "./server-requests.js";
import { CopilotSession, disconnectWithRetries } from "./session.js";
import { SessionBackend } from "./session-backend.js";
import { buildCreatePayload, buildResumePayload, prepareSessionConfig, type PreparedSessionConfig } from "./session-config.js";
import { getTraceContext, type TraceContextProvider } from "./telemetry.js";
import { OwnerRoutes } from "./owner-route.js";
import { reconnect, type RecoverableSession } from "./reconnect.js";
import type {
  ConnectionState,
  CopilotClientOptions,
  GetAuthStatusResponse,
  GetStatusResponse,
  ModelInfo,
  PingResponse,
  ResumeSessionConfig,
  SessionConfig,
  SessionLifecycleEventType,
  SessionLifecycleHandler,
  SessionListFilter,
  SessionMetadata,
  TypedSessionLifecycleHandler,
} from "./types.js";

interface SessionEntry {
  session: CopilotSession;
  backend: SessionBackend;
  /** Resumes the session on a new connection after a reconnect; returns the runtime's answer. */
  reopen(connection: MessageConnection): Promise<unknown>;
}

/**
 * Connects to a Tandem runtime (spawned, or running at `cliUrl`) and manages sessions on it. Same API
 * as the official `@github/copilot-sdk` client.
 *
 * @example
 * const client = new CopilotClient();
 * const session = await client.createSession({ onPermissionRequest: approveAll });
 * const reply = await session.sendAndWait({ prompt: "Hello!" });
 * console.log(reply?.data.content);
 * await client.stop();
 */
export class CopilotClient {
  readonly #options: ResolvedClientOptions;
  readonly #link: RuntimeLink;
  readonly #onListModels: CopilotClientOptions["onListModels"];
  readonly #onGetTraceContext: TraceContextProvider | undefined;
  readonly #sessions = new Map<string, SessionEntry>();
  readonly #lifecycle = new HandlerRegistry<SessionLifecycleEvent>();
  readonly #models = new ModelCache();
  #state: ConnectionState = "disconnected";
  #rpc: ServerRpc | null = null;
  #starting: Promise<void> | null = null;
  /** Set while reconnecting: resolves true once connected again, false when the client gave up. */
  #reconnecting: Promise<boolean> | null = null;
  /** Counts stops, so a reconnect under way when the client is stopped gives up. */
  #generation = 0;
  /** Connections to the nodes that run sessions of ours (Tandem cluster owner hints), or null when hints are not followed. */
  readonly #owners: OwnerRoutes | null;

  /**
   * Validates the options and applies the defaults; nothing is started until {@link start} (or the
   * first session). Throws on contradictory options (`cliUrl` with `cliPath`, `useStdio` or auth options).
   *
   * @example
   * const local = new CopilotClient({ logLevel: "info" });
   * const remote = new CopilotClient({ cliUrl: "localhost:4321" });
   */
  constructor(options: CopilotClientOptions = {}) {
    const { resolved, endpoint, endpoints } = resolveClientOptions(options);
    this.#options = resolved;
    this.#link = new RuntimeLink(resolved, endpoint, {
      setup: (connection) =>
        attachServerRequests(connection, {
          findSession: (sessionId) => this.#sessions.get(sessionId)?.backend,
          onLifecycleEvent: (event) => this.#lifecycle.emit(event),
        }),
      onUnexpectedClose: () => this.#onConnectionLost(),
    }, endpoints);
    this.#onListModels = options.onListModels;
    this.#onGetTraceContext = options.onGetTraceContext;
    this.#owners = options.followOwnerHints === false ? null : this.#ownerRoutes(resolved);
  }

  #ownerRoutes(resolved: ResolvedClientOptions): OwnerRoutes {
    return new OwnerRoutes(resolved, {
      // Lifecycle notifications come over the client's own connection; an owner's would repeat them.
      setup: (connection) => attachServerRequests(connection, { findSession: (sessionId) => this.#sessions.get(sessionId)?.backend, onLifecycleEvent: () => {} }),
      mainConnection: async () => {
        if (!this.#link.connection) await this.#awaitReconnect();
        return this.#requireConnection();
      },
      sessionsOn: (connection) => [...this.#sessions.values()].filter((entry) => entry.backend.connection === connection),
      cancelled: () => this.#state === "disconnected",
    });
  }

  /**
   * Typed server-scoped RPC (ping, status, auth, models, tools, account). Throws when not connected.
   *
   * @example
   * const { tools } = await client.rpc.tools.list();
   */
  get rpc(): ServerRpc {
    const connection = this.#link.connection;
    if (!connection) throw new Error("Client is not connected. Call start() first.");
    this.#rpc ??= createServerRpc(connection);
    return this.#rpc;
  }

  /**
   * The protocol version agreed with the runtime at start, or null before.
   *
   * @example
   * await client.start();
   * console.log(client.protocolVersion); // 3
   */
  get protocolVersion(): number | null {
    return this.#link.protocolVersion;
  }

  /**
   * Spawns the runtime (unless `cliUrl` is set), connects and checks the protocol version.
   *
   * @example
   * const client = new CopilotClient({ autoStart: false });
   * await client.start();
   */
  async start(): Promise<void> {
    if (this.#state === "connected") return;
    this.#starting ??= this.#startOnce().finally(() => {
      this.#starting = null;
    });
    return this.#starting;
  }

  async #startOnce(): Promise<void> {
    this.#state = "connecting";
    try {
      await this.#link.open();
      this.#state = "connected";
    } catch (error) {
      this.#teardown([]);
      this.#state = "error";
      throw error;
    }
  }

  #onConnectionLost(): void {
    const wasConnected = this.#state === "connected";
    if (wasConnected && this.#options.reconnect) {
      this.#recover(this.#options.reconnect);
      return;
    }
    this.#state = "disconnected";
    if (!wasConnected || !this.#options.autoRestart) {
      // Disposing rejects the requests still waiting for an answer instead of leaving them hanging.
      this.#link.close([]);
      return;
    }
    this.#teardown([]);
    // On failure start() leaves the state at "error"; the next start() or createSession() retries.
    this.start().catch(() => {});
  }

  /** Reconnects (another node), resumes every session and catches it up (see `reconnect.ts`). */
  #recover(options: NonNullable<ResolvedClientOptions["reconnect"]>): void {
    this.#state = "connecting";
    this.#rpc = null;
    this.#models.clear();
    this.#link.close([]);
    this.#link.moveToNextEndpoint();
    const generation = this.#generation;
    const host = {
      cancelled: () => generation !== this.#generation,
      open: async () => {
        await this.#link.open();
        return this.#requireConnection();
      },
      // Sessions on an owner's connection stay there; the others follow their owner again once resumed.
      sessions: () => [...this.#sessions.values()].filter((entry) => !this.#owners?.isOwnerConnection(entry.backend.connection)),
      resumed: async (session: RecoverableSession, result: unknown) => this.#owners?.follow(session, result),
    };
    this.#reconnecting = reconnect(host, options).then(
      () => {
        if (generation !== this.#generation) return false;
        this.#state = "connected";
        return true;
      },
      () => {
        if (generation === this.#generation) this.#state = "error";
        return false;
      },
    );
    void this.#reconnecting.finally(() => (this.#reconnecting = null));
  }

  /** Waits for a reconnect under way; true once connected again, false when there is none or it failed. */
  #awaitReconnect(): Promise<boolean> {
    return this.#reconnecting ?? Promise.resolve(false);
  }

  /**
   * Disconnects every session (three attempts each), closes the connection and stops the spawned
   * runtime. Never throws: returns the errors met on the way (empty when all went well).
   *
   * @example
   * const errors = await client.stop();
   * for (const error of errors) console.warn(error.message);
   */
  async stop(): Promise<Error[]> {
    const errors: Error[] = [];
    for (const { session } of [...this.#sessions.values()]) {
      const error = await disconnectWithRetries(session);
      if (error) errors.push(error);
    }
    this.#teardown(errors);
    return errors;
  }

  /**
   * Stops at once without any RPC: drops the sessions, closes the connection and kills the runtime
   * with SIGKILL. Use it when {@link stop} hangs.
   *
   * @example
   * await Promise.race([client.stop(), sleep(5_000)]).catch(() => {});
   * await client.forceStop();
   */
  async forceStop(): Promise<void> {
    this.#teardown([], "SIGKILL");
  }

  /** Drops sessions, models cache and the link; collects the errors of a graceful stop. */
  #teardown(errors: Error[], signal: NodeJS.Signals = "SIGTERM"): void {
    this.#generation++;
    this.#sessions.clear();
    this.#models.clear();
    this.#rpc = null;
    this.#owners?.close(errors, signal);
    this.#link.close(errors, signal);
    this.#state = "disconnected";
  }

  /**
   * The connection state.
   *
   * @example
   * if (client.getState() === "error") await client.start();
   */
  getState(): ConnectionState {
    return this.#state;
  }

  /**
   * Creates a session. `onPermissionRequest` is required. Starts the client first when `autoStart` is
   * on. The session is registered before `session.create` is sent, so it sees the events emitted
   * while being created.
   *
   * @example
   * const session = await client.createSession({
   *   onPermissionRequest: approveAll,
   *   model: "gpt-4.1",
   *   tools: [defineTool("now", { description: "Current time", handler: () => new Date().toISOString() })],
   * });
   */
  async createSession(config: SessionConfig): Promise<CopilotSession> {
    if (!config?.onPermissionRequest) {
      throw new Error(
        "An onPermissionRequest handler is required when creating a session. For example, to allow all permissions, use { onPermissionRequest: approveAll }.",
      );
    }
    const connection = await this.#ensureConnected();
    const sessionId = config.sessionId ?? randomUUID();
    const prepared = prepareSessionConfig(config);
    const reopen = async (next: MessageConnection): Promise<unknown> =>
      next.sendRequest(SessionResume.method, buildResumePayload(sessionId, prepared, await getTraceContext(this.#onGetTraceContext), undefined));
    return this.#openSession(connection, sessionId, prepared, reopen, async () => {
      const payload = buildCreatePayload(sessionId, prepared, await getTraceContext(this.#onGetTraceContext));
      const response: ResultOf<typeof SessionCreate> = await connection.sendRequest(SessionCreate.method, payload);
      return response;
    });
  }

  /**
   * Reopens a persisted session with new local handlers. `onPermissionRequest` is required.
   *
   * @example
   * const lastId = await client.getLastSessionId();
   * if (lastId) await client.resumeSession(lastId, { onPermissionRequest: approveAll });
   */
  async resumeSession(sessionId: string, config: ResumeSessionConfig): Promise<CopilotSession> {
    if (!config?.onPermissionRequest) {
      throw new Error(
        "An onPermissionRequest handler is required when resuming a session. For example, to allow all permissions, use { onPermissionRequest: approveAll }.",
      );
    }
    const connection = await this.#ensureConnected();
    const prepared = prepareSessionConfig(config);
    const reopen = async (next: MessageConnection): Promise<unknown> =>
      next.sendRequest(SessionResume.method, buildResumePayload(sessionId, prepared, await getTraceContext(this.#onGetTraceContext), undefined));
    return this.#openSession(connection, sessionId, prepared, reopen, async () => {
      const trace = await getTraceContext(this.#onGetTraceContext);
      const payload = buildResumePayload(sessionId, prepared, trace, config.disableResume);
      const response: ResultOf<typeof SessionResume> = await connection.sendRequest(SessionResume.method, payload);
      return response;
    });
  }

  async #ensureConnected(): Promise<MessageConnection> {
    if (!this.#link.connection) {
      if (!this.#options.autoStart) throw new Error("Client not connected. Call start() first.");
      await this.start();
    }
    const connection = this.#link.connection;
    if (!connection) throw new Error("Client not connected. Call start() first.");
    return connection;
  }

  /** Registers the session, runs the open RPC, and unregisters it again if that fails. */
  async #openSession(
    connection: MessageConnection,
    sessionId: string,
    prepared: PreparedSessionConfig,
    reopen: (connection: MessageConnection) => Promise<unknown>,
    open: () => Promise<{ workspacePath?: string | undefined }>,
  ): Promise<CopilotSession> {
    const backend = new SessionBackend(
      sessionId,
      connection,
      prepared.handlers,
      this.#onGetTraceContext,
      () => {
        if (this.#sessions.get(sessionId)?.backend === backend) this.#sessions.delete(sessionId);
      },
      () => this.#awaitReconnect(),
    );
    const session = new CopilotSession(backend);
    const entry: SessionEntry = { session, backend, reopen };
    this.#sessions.set(sessionId, entry);
    let response: { workspacePath?: string | undefined };
    try {
      response = await open();
      backend.workspacePath = response.workspacePath;
    } catch (error) {
      if (this.#sessions.get(sessionId)?.backend === backend) this.#sessions.delete(sessionId);
      throw error;
    }
    // Another node runs the session: talk to it directly (it stays forwarded when that fails).
    await this.#owners?.follow(entry, response);
    return session;
  }

  #requireConnection(): MessageConnection {
    const connection = this.#link.connection;
    if (!connection) throw new Error("Client not connected");
    return connection;
  }

  /**
   * Checks the runtime is alive; the answer carries its protocol version.
   *
   * @example
   * const { message, timestamp } = await client.ping("hello");
   */
  async ping(message?: string): Promise<PingResponse> {
    return readPing(await this.#requireConnection().sendRequest<ResultOf<typeof Ping>>(Ping.method, { message }));
  }

  /**
   * The runtime's version and protocol version.
   *
   * @example
   * const { version, protocolVersion } = await client.getStatus();
   */
  async getStatus(): Promise<GetStatusResponse> {
    return this.#requireConnection().sendRequest(StatusGet.method, {});
  }

  /**
   * Whether the runtime has credentials.
   *
   * @example
   * const { isAuthenticated, statusMessage } = await client.getAuthStatus();
   */
  async getAuthStatus(): Promise<GetAuthStatusResponse> {
    return this.#requireConnection().sendRequest(AuthGetStatus.method, {});
  }

  /**
   * The available models: from `onListModels` when given, else from the runtime. The first answer
   * is cached until {@link stop}; callers get copies.
   *
   * @example
   * const ids = (await client.listModels()).map((model) => model.id);
   */
  async listModels(): Promise<ModelInfo[]> {
    return this.#models.get(() => this.#fetchModels());
  }

  async #fetchModels(): Promise<ModelInfo[]> {
    if (this.#onListModels) return this.#onListModels();
    const response: ResultOf<typeof ModelsList> = await this.#requireConnection().sendRequest(ModelsList.method, {});
    return response.models;
  }

  /**
   * The id of the most recently modified session, if any.
   *
   * @example
   * const lastId = await client.getLastSessionId();
   */
  async getLastSessionId(): Promise<string | undefined> {
    const response: ResultOf<typeof SessionGetLastId> = await this.#requireConnection().sendRequest(SessionGetLastId.method, {});
    return response.sessionId;
  }

  /**
   * Deletes a session and its data for good, its git state (checkpoint refs, worktree, branch)
   * included unless `keepGitState` is set. Throws when the runtime reports a failure.
   *
   * @example
   * await client.deleteSession(session.sessionId);
   * await client.deleteSession(other.sessionId, { keepGitState: true }); // its branch and checkpoints stay
   */
  async deleteSession(sessionId: string, options: { keepGitState?: boolean } = {}): Promise<void> {
    const params = options.keepGitState === undefined ? { sessionId } : { sessionId, keepGitState: options.keepGitState };
    const response: ResultOf<typeof SessionDelete> = await this.#requireConnection().sendRequest(SessionDelete.method, params);
    if (!response.success) throw new Error(`Failed to delete session ${sessionId}: ${response.error || "Unknown error"}`);
    this.#sessions.delete(sessionId);
  }

  /**
   * The persisted sessions, with times as `Date` objects.
   *
   * @example
   * const here = await client.listSessions({ cwd: process.cwd() });
   */
  async listSessions(filter?: SessionListFilter): Promise<SessionMetadata[]> {
    const response: ResultOf<typeof SessionList> = await this.#requireConnection().sendRequest(SessionList.method, { filter });
    return response.sessions.map((session) => ({
      sessionId: session.sessionId,
      startTime: new Date(session.startTime),
      modifiedTime: new Date(session.modifiedTime),
      summary: session.summary,
      isRemote: session.isRemote,
      context: session.context,
    }));
  }

  /**
   * The session shown in the runtime's UI, if it has one.
   *
   * @example
   * const foregroundId = await client.getForegroundSessionId();
   */
  async getForegroundSessionId(): Promise<string | undefined> {
    const response: ResultOf<typeof SessionGetForeground> = await this.#requireConnection().sendRequest(SessionGetForeground.method, {});
    return response.sessionId;
  }

  /**
   * Asks the runtime's UI to show a session. Throws when the runtime refuses.
   *
   * @example
   * await client.setForegroundSessionId(session.sessionId);
   */
  async setForegroundSessionId(sessionId: string): Promise<void> {
    const response: ResultOf<typeof SessionSetForeground> = await this.#requireConnection().sendRequest(SessionSetForeground.method, {
      sessionId,
    });
    if (!response.success) throw new Error(response.error || "Failed to set foreground session");
  }

  /**
   * Subscribes to the lifecycle events of one type. Returns the unsubscribe function.
   *
   * @example
   * const off = client.on("session.created", (event) => console.log("new session", event.sessionId));
   */
  on<K extends SessionLifecycleEventType>(eventType: K, handler: TypedSessionLifecycleHandler<K>): () => void;
  /**
   * Subscribes to every lifecycle event (`session.created`, `session.updated`, `session.deleted`, …).
   * Returns the unsubscribe function.
   *
   * @example
   * const off = client.on((event) => console.log(event.type, event.sessionId));
   */
  on(handler: SessionLifecycleHandler): () => void;
  on(eventTypeOrHandler: SessionLifecycleEventType | SessionLifecycleHandler, handler?: (event: never) => void): () => void {
    if (typeof eventTypeOrHandler === "string") {
      if (!handler) throw new TypeError("client.on(type, handler) needs a handler");
      return this.#lifecycle.addTyped(eventTypeOrHandler, handler as SessionLifecycleHandler);
    }
    return this.#lifecycle.add(eventTypeOrHandler);
  }
}
