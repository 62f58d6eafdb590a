import { ErrorCodes } from "@tandem/protocol/errors";
import { TandemError } from "../errors.js";
import type { Logger } from "../log.js";
import type { AppendFence, SessionEventLog, SessionEventSource, SessionFiles, SessionStore, StoredSessionInfo, WorkspaceInfo } from "../store/types.js";
import type { SessionDatabaseOptions, SqlDatabase } from "../tools/builtin/sql/session-database.js";
import { SessionFilesSpill, type LargeOutputSpill } from "../tools/large-output.js";
import type { SessionFsClient, SessionFsConfig } from "./client-file-system.js";
import type { ClientFsSessionStore } from "./client-fs-store.js";

/** How long the client may take to answer one request, unless `TANDEM_SESSION_FS_TIMEOUT_MS` says otherwise. */
export const DEFAULT_SESSION_FS_TIMEOUT_MS = 30_000;

/**
 * Reads `TANDEM_SESSION_FS_TIMEOUT_MS` (a positive number of milliseconds), else the default.
 *
 * @example
 * sessionFsTimeoutFromEnv({ TANDEM_SESSION_FS_TIMEOUT_MS: "5000" }); // 5000
 */
export function sessionFsTimeoutFromEnv(env: NodeJS.ProcessEnv): number {
  const value = Number(env.TANDEM_SESSION_FS_TIMEOUT_MS);
  return Number.isFinite(value) && value > 0 ? value : DEFAULT_SESSION_FS_TIMEOUT_MS;
}

/** The client registering as provider, as the host needs it. */
export interface ProviderClient extends SessionFsClient {
  onClose(listener: () => void): void;
}

/**
 * Who keeps sessions: the runtime's own store, or — once a client called `sessionFs.setProvider` —
 * that client's file system. {@link store} is the one `SessionStore` the runtime uses; each session
 * stays with the backend it was created or resumed in (so a session never has half its state in
 * each). Registration is refused while sessions are open (they are kept where they are) and while
 * another connected client provides the file system. When the provider disconnects, its sessions'
 * writes fail with `PersistenceFailed` (nothing is written elsewhere) and new sessions go to the
 * runtime's own store again.
 *
 * @example
 * const host = new SessionFsHost(fileStore, logger, () => sessions.liveSessions().length);
 * host.setProvider(client, { initialCwd: "/", sessionStatePath: "/state", conventions: "posix", sqlite: true });
 */
export class SessionFsHost {
  /** The store the runtime uses: routes each session to its backend. */
  readonly store: SessionStore;
  private provider: ClientFsSessionStore | undefined;
  /** The backend each opened session belongs to. */
  private readonly pinned = new Map<string, SessionStore>();

  /** @param requestTimeoutMs how long the provider may take to answer one request. */
  constructor(
    private readonly base: SessionStore,
    private readonly logger: Logger,
    private readonly openSessions: () => number,
    private readonly requestTimeoutMs = DEFAULT_SESSION_FS_TIMEOUT_MS,
  ) {
    this.store = new RoutedSessionStore(base, (sessionId) => this.backendOf(sessionId), (sessionId, store) => this.pin(sessionId, store));
  }

  /** The declared settings of the registered provider, if one is. */
  get config(): SessionFsConfig | undefined {
    return this.provider?.fs.config;
  }

  /**
   * Makes `client` the provider of the file system of every session created or resumed from now on
   * (the client store's code is loaded here, on first use).
   */
  async setProvider(client: ProviderClient, config: SessionFsConfig): Promise<void> {
    const { ClientFileSystem } = await import("./client-file-system.js");
    const { ClientFsSessionStore } = await import("./client-fs-store.js");
    const current = this.provider;
    if (current && current.fs.client.isOpen && current.fs.client.id !== client.id) {
      throw new TandemError(ErrorCodes.InvalidRequest, `sessionFs.setProvider: client ${current.fs.client.id} already provides the session file system of this runtime`, {
        providerClientId: current.fs.client.id,
      });
    }
    const open = this.openSessions();
    if (open > 0) {
      throw new TandemError(
        ErrorCodes.InvalidRequest,
        `sessionFs.setProvider must come before any session is opened: ${open} session(s) are open in this runtime and keep their state where it is`,
        { openSessions: open },
      );
    }
    const store = new ClientFsSessionStore(new ClientFileSystem(client, config, this.requestTimeoutMs), this.base, this.logger);
    this.provider = store;
    client.onClose(() => {
      if (this.provider !== store) return;
      this.provider = undefined;
      this.logger.warn(`client ${client.id}, which provided the session file system, disconnected: its sessions can no longer be written; new sessions use the runtime's own store`);
    });
  }

  /**
   * The `sql` tool's database of a session kept in a client's file system: the client's own when it
   * declared `capabilities.sqlite`, else one in memory (nothing is written to this machine). For a
   * session in the runtime's own store: undefined (its `session.db` file is used).
   */
  sqlDatabaseFor(sessionId: string, options: SessionDatabaseOptions = {}): SqlDatabase | undefined {
    const backend = this.backendOf(sessionId) as SessionStore & Partial<Pick<ClientFsSessionStore, "sqlDatabase">>;
    return backend.sqlDatabase?.(sessionId, options);
  }

  /**
   * Where a session kept in a client's file system puts tool outputs too long for the model: its
   * `temp/` folder there (the model reads the path and a preview). Undefined for the runtime's own
   * store, whose sessions cut such outputs in the middle.
   */
  largeOutputSpillFor(sessionId: string, files: SessionFiles): LargeOutputSpill | undefined {
    return this.backendOf(sessionId).kind === "client" ? new SessionFilesSpill(files) : undefined;
  }

  private backendOf(sessionId: string): SessionStore {
    return this.pinned.get(sessionId) ?? this.provider ?? this.base;
  }

  private pin(sessionId: string, store: SessionStore | undefined): void {
    if (store === undefined || store === this.base) this.pinned.delete(sessionId);
    else this.pinned.set(sessionId, store);
  }
}

/** The runtime's store: each call goes to the backend of its session. */
class RoutedSessionStore implements SessionStore {
  constructor(
    private readonly base: SessionStore,
    private readonly backendOf: (sessionId: string) => SessionStore,
    private readonly pin: (sessionId: string, store: SessionStore | undefined) => void,
  ) {}

  get kind(): SessionStore["kind"] {
    return this.base.kind;
  }

  get home(): string {
    return this.base.home;
  }

  /** Cluster: leases fence the appends of the runtime's own (PostgreSQL) store. */
  useLeases(fence: AppendFence): void {
    this.base.useLeases?.(fence);
  }

  sessionDir(sessionId: string): string {
    return this.backendOf(sessionId).sessionDir(sessionId);
  }

  async createSessionDir(sessionId: string): Promise<string> {
    const backend = this.backendOf(sessionId);
    const dir = await backend.createSessionDir(sessionId);
    this.pin(sessionId, backend);
    return dir;
  }

  exists(sessionId: string): Promise<boolean> {
    return this.backendOf(sessionId).exists(sessionId);
  }

  list(): Promise<StoredSessionInfo[]> {
    return this.base.list();
  }

  async delete(sessionId: string): Promise<boolean> {
    const deleted = await this.backendOf(sessionId).delete(sessionId);
    this.pin(sessionId, undefined);
    return deleted;
  }

  writeWorkspace(info: WorkspaceInfo): Promise<void> {
    return this.backendOf(info.id).writeWorkspace(info);
  }

  readWorkspace(sessionId: string): Promise<WorkspaceInfo | undefined> {
    return this.backendOf(sessionId).readWorkspace(sessionId);
  }

  workspaceFilePath(sessionId: string): string {
    return this.backendOf(sessionId).workspaceFilePath(sessionId);
  }

  openEventLog(sessionId: string): SessionEventLog {
    return this.backendOf(sessionId).openEventLog(sessionId);
  }

  writeEvents(sessionId: string, lines: readonly string[]): Promise<void> {
    return this.backendOf(sessionId).writeEvents(sessionId, lines);
  }

  files(sessionId: string): SessionFiles {
    return this.backendOf(sessionId).files(sessionId);
  }

  close(): Promise<void> {
    return this.base.close();
  }

  watchSession(sessionId: string, events: SessionEventSource, onError: (error: unknown) => void): void {
    const backend = this.backendOf(sessionId);
    backend.watchSession?.(sessionId, events, onError);
  }
}
