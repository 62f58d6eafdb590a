import { isAbsolute, join } from "node:path";
import { approvedByForm, consentForm } from "./extensions/consent-form.js";
import { requestElicitation } from "./session/elicitation.js";
import { SandboxConfig, type ModelInfo, type SessionCreateParams, type SessionLifecycleEvent } from "@tandem/protocol";
import { ErrorCodes } from "@tandem/protocol/errors";
import { TandemError } from "./errors.js";
import type { RuntimeArgs } from "./args.js";
import type { Logger } from "./log.js";
import { hookTimeoutFromEnv } from "./hooks/hook-runner.js";
import { pendingWorkGraceFromEnv } from "./session/held-work.js";
import { reaskWaitFromEnv } from "./ports/client-asks.js";
import { maxModelCallsPerTurnFromEnv } from "./loop/model-call-limit.js";
import { sqlTimeoutFromEnv } from "./tools/builtin/sql/session-database.js";
import { retryPolicyFromEnv } from "./loop/retry.js";
import { ConnectionPool } from "./providers/chat-completions/connections.js";
import { createModelClient, describeDefaultProvider, type ProviderEnvironment } from "./providers/resolve.js";
import { copilotApiAccess } from "./providers/copilot-api.js";
import { builtinMcpServers } from "./mcp/github-server.js";
import { ClientConnection } from "./server/connection.js";
import type { RequestingClient } from "./server/requesting-client.js";
import { ExtensionHost } from "./extensions/host.js";
import { PermissionBroker } from "./permissions/broker.js";
import { FolderConsent } from "./trust/folder-consent.js";
import { TrustedFolders, userConfigFile } from "./trust/trusted-folders.js";
import { SlashCommands } from "./commands/slash-commands.js";
import { LoggedModelClient } from "./providers/logged-client.js";
import { ClientHttpSender, clientFetch } from "./providers/client-inference/senders.js";
import { ClientInferenceTransport } from "./providers/client-inference/transport.js";
import { findRegistryModel, RoutingModelClient, type BearerTokenSource } from "./providers/routing.js";
import type { RequestRelay } from "./providers/resolve.js";
import type { SessionEmitter } from "./session/emitter.js";
import { telemetryConfigFromEnv } from "./telemetry/config.js";
import { LazyTelemetry, type Telemetry } from "./telemetry/telemetry.js";
import { Dispatcher } from "./server/dispatch.js";
import type { AuthStatus, RuntimeServices } from "./server/runtime-services.js";
import { SessionManager } from "./session/manager.js";
import { SecretFilter } from "./secrets/secret-filter.js";
import { UserSettings } from "./user-settings/user-settings.js";
import { JsonObjectFile } from "./store/json-object-file.js";
import type { Session } from "./session/session.js";
import { SessionScoped } from "./session/session-scoped.js";
import { SessionProviders } from "./providers/session-providers.js";
import { FileSessionStore, resolveHome } from "./store/session-store.js";
import type { SessionStore } from "./store/types.js";
import { SessionFsHost, sessionFsTimeoutFromEnv } from "./session-fs/session-fs-host.js";
import { runtimeVersion } from "./version.js";
import { sandboxEnvironmentFrom } from "./sandbox/policy.js";
import { compactionTimeoutFromEnv } from "./compaction/session-compaction.js";
import { ModelWindows } from "./compaction/model-windows.js";
import { ToolTokenCache } from "./compaction/tokens.js";
import { configuredLimit, promptLimitOf } from "./compaction/window.js";
import type { ClusterConfig, ClusterNode } from "./cluster/cluster-node.js";
import { AccountStore } from "./accounts/account-store.js";
import { GitHubUsers, gitHubApiUrlFromEnv } from "./accounts/github-users.js";

/** What the runtime is started with. */
export interface RuntimeOptions {
  args: RuntimeArgs;
  env: NodeJS.ProcessEnv;
  logger: Logger;
  /** Ends the process (after `runtime.shutdown`); without it the process is left to its client. */
  exit?: () => void;
  /** The session store opened at start (`--store`); the file store under the home folder when absent. */
  store?: SessionStore;
}

/** How long the runtime waits, after answering `runtime.shutdown`, for the client to go before it exits anyway. */
const exitGraceMs = 2000;

/** The default model when a session names none. */
const fallbackModel = "gpt-4.1";

/**
 * The composition root: the store, the session manager, the method table and the connected
 * clients. Everything is handed its dependencies here; there are no module-level singletons.
 *
 * @example
 * const runtime = new Runtime({ args, env: process.env, logger });
 * runtime.adopt(new ClientConnection(process.stdin, process.stdout, (method, params, client) => runtime.dispatch(method, params, client), logger));
 */
export class Runtime implements RuntimeServices {
  readonly version = runtimeVersion;
  readonly protocolVersion: 2 | 3;
  readonly sessions: SessionManager;
  readonly store: SessionStore;
  /** Who keeps sessions: the runtime's own store, or the file system a client provides (`sessionFs.setProvider`). */
  readonly sessionFs: SessionFsHost;
  /** Values clients asked to keep out of logs and events (`secrets.addFilterValues`). */
  readonly secrets = new SecretFilter();
  /** The folders the user trusts (`trustedFolders` in `<home>/config.json`). */
  readonly trustedFolders: TrustedFolders;
  /** The user's settings (`<home>/config.json`, `user.settings.*`). */
  readonly userSettings: UserSettings;
  /** The foreground session's extensions (`.github/extensions/<name>/extension.mjs`, `<home>/extensions/`). */
  readonly extensions: ExtensionHost;
  /** Slash commands: built-ins and those clients register. */
  readonly commands = new SlashCommands();
  /** Providers and models each session added while it runs (`session.provider.add`). */
  readonly addedProviders = new SessionScoped<Session, SessionProviders>(() => new SessionProviders());
  private readonly connections = new Set<ClientConnection>();
  /** Keep-alive connections to model servers, shared by all sessions. */
  private readonly modelConnections = new ConnectionPool();
  /** The model requests a client performs once it calls `llmInference.setProvider`; made on first use (the first model client). */
  get inferenceTransport(): ClientInferenceTransport {
    this.madeInferenceTransport ??= new ClientInferenceTransport();
    return this.madeInferenceTransport;
  }
  private madeInferenceTransport: ClientInferenceTransport | undefined;
  private readonly dispatcher: Dispatcher;
  /** Where the default provider and its credentials come from (environment, `--auth-token-env`, the current account). */
  readonly providerEnvironment: ProviderEnvironment;
  /** The GitHub accounts logged in with `account.login` (in memory); made on first use. */
  get accounts(): AccountStore {
    this.madeAccounts ??= new AccountStore();
    return this.madeAccounts;
  }
  private madeAccounts: AccountStore | undefined;
  /** The Copilot users of GitHub tokens (login, plan, quota), looked up at the GitHub API; made on first use. */
  get gitHubUsers(): GitHubUsers {
    this.madeGitHubUsers ??= new GitHubUsers({ apiUrl: gitHubApiUrlFromEnv(this.options.env) });
    return this.madeGitHubUsers;
  }
  private madeGitHubUsers: GitHubUsers | undefined;
  /** OpenTelemetry export, when the SDK turned it on (`COPILOT_OTEL_ENABLED`); loaded on the first model call. */
  private readonly telemetry: Telemetry | undefined;
  private modelsCache: Promise<ModelInfo[]> | undefined;
  private shuttingDown = false;
  /** The default provider's model list once it was read (context windows for compaction). */
  private modelsRead: ModelInfo[] | undefined;
  /** This runtime as a node of a cluster (`--store postgres://…`), once joined. */
  private clusterNode: ClusterNode | undefined;
  /** Context windows from each provider's model list, read once per runtime. */
  private readonly modelWindows = new ModelWindows(
    (provider, model) => (provider ? createModelClient(provider, this.providerEnvironment, { model, connections: this.modelConnections, relay: this.relayFor() }).listModels() : this.listModels()),
    (error) => this.options.logger.warn("could not read a model list for context windows; assuming the default window", error),
  );

  constructor(private readonly options: RuntimeOptions) {
    const { args, env, logger } = options;
    this.protocolVersion = args.sdkProtocolVersion;
    this.providerEnvironment = { env, authTokenEnv: args.authTokenEnv, accountToken: () => this.accounts.current()?.token };
    const telemetryConfig = telemetryConfigFromEnv(env);
    const telemetry = telemetryConfig ? new LazyTelemetry(telemetryConfig, runtimeVersion, (message, error) => logger.warn(message, error)) : undefined;
    this.telemetry = telemetry;
    const ownStore = options.store ?? new FileSessionStore(resolveHome(env, args.home), logger);
    this.sessionFs = new SessionFsHost(ownStore, logger, () => this.sessions.liveSessions().length, sessionFsTimeoutFromEnv(env));
    this.store = this.sessionFs.store;
    // One config file object for everything kept in `<home>/config.json`, so its changes never cross.
    const userConfig = new JsonObjectFile(join(this.store.home, userConfigFile));
    this.trustedFolders = new TrustedFolders(userConfig, logger);
    const folderConsent = new FolderConsent({ trustAll: args.allowAll, trustedFolders: this.trustedFolders });
    logger.redactWith((line) => this.secrets.redact(line));
    this.userSettings = new UserSettings(userConfig, logger);
    this.sessions = new SessionManager({
      store: this.store,
      logger,
      protocolVersion: this.protocolVersion,
      retryPolicy: retryPolicyFromEnv(env),
      maxModelCallsPerTurn: args.maxModelCallsPerTurn ?? maxModelCallsPerTurnFromEnv(env),
      runtimeVersion,
      defaultModel: env.TANDEM_MODEL ?? env.COPILOT_MODEL ?? fallbackModel,
      hookTimeoutMs: hookTimeoutFromEnv(env),
      clientReaskMs: reaskWaitFromEnv(env),
      pendingWorkGraceMs: pendingWorkGraceFromEnv(env),
      reportIntent: args.reportIntent,
      sandbox: sandboxEnvironmentFrom(args.sandbox, env, (value) => SandboxConfig.parse(value)),
      builtinTools: { sql: { timeoutMs: sqlTimeoutFromEnv(env) } },
      sqlDatabaseFor: (sessionId) => this.sessionFs.sqlDatabaseFor(sessionId, { timeoutMs: sqlTimeoutFromEnv(env) }),
      largeOutputSpillFor: (sessionId, files) => this.sessionFs.largeOutputSpillFor(sessionId, files),
      compaction: {
        timeoutMs: compactionTimeoutFromEnv(env),
        // The default provider's list once a client read it (models.list); a BYOK config states its own.
        knownWindow: (config, model) => {
          const registered = findRegistryModel(config, model);
          // A registry model states its own limits (else its provider's), as a BYOK config does.
          if (registered) return configuredLimit(registered.model) ?? configuredLimit(registered.provider);
          return config.provider ? undefined : promptLimitOf(this.modelsRead?.find((candidate) => candidate.id === model));
        },
        fetchWindow: (config, model) => {
          const registered = findRegistryModel(config, model);
          // A provider whose token the client supplies per model call has no token for its model list.
          if (registered?.provider.hasBearerTokenProvider) return Promise.resolve(undefined);
          if (registered) return this.modelWindows.limit(registered.provider, registered.model.wireModel ?? registered.model.id);
          return this.modelWindows.limit(config.provider, model);
        },
        toolTokens: new ToolTokenCache(),
      },
      builtinMcpServers: (config: SessionCreateParams) => builtinMcpServers(config, copilotApiAccess(this.sessionProviderEnvironment(config.gitHubToken))),
      createModelClient: (config: SessionCreateParams, sessionId: string, bearerTokens: BearerTokenSource, sessionLogger: Logger) =>
        new RoutingModelClient(
          config,
          (provider, wireModel) =>
            new LoggedModelClient(
              createModelClient(provider, this.sessionProviderEnvironment(config.gitHubToken), {
                model: wireModel,
                connections: this.modelConnections,
                relay: this.relayFor(sessionId),
                interactionId: sessionId,
                ...(config.clientName ? { clientName: config.clientName } : {}),
              }),
              sessionLogger,
              telemetry ? (record, startTime, exchange) => telemetry.recordModelCall(record, startTime, sessionId, exchange) : undefined,
            ),
          bearerTokens,
        ),
      broadcastLifecycle: (event) => this.broadcastLifecycle(event),
      folderTrust: folderConsent,
      redact: (json) => this.secrets.redact(json),
      observeSession: (sessionId: string, emitter: SessionEmitter) => {
        telemetry?.observeSession(sessionId, emitter);
        this.store.watchSession?.(sessionId, emitter, (error) => logger.warn(`session ${sessionId}: could not store what it keeps beside its events`, error));
      },
    });
    this.dispatcher = new Dispatcher(this);
    this.extensions = new ExtensionHost({
      home: this.store.home,
      env,
      authTokenEnv: args.authTokenEnv,
      logger,
      consent: folderConsent,
      findSession: (sessionId) => {
        const session = this.sessions.find(sessionId);
        if (!session) return undefined;
        return {
          workingDirectory: session.scope.workingDirectory,
          emitter: session.emitter,
          isAttached: (port) => session.isAttached(port),
          extensionsWanted: (session.scope.config as { requestExtensions?: unknown }).requestExtensions !== false,
          ...extensionSdkPathOf(session.scope.config),
          consent: {
            approvesWithoutAsking: (request) => session.permissions.approvals.covers(request) === "approve-all",
            ask: (request, signal) => new PermissionBroker(session.scope).request(request, signal),
            confirm: async (request, signal) => {
              if (!session.scope.clients.anyAnswersElicitation) return undefined;
              return approvedByForm(await requestElicitation(session.scope, consentForm(request), signal));
            },
          },
        };
      },
      connect: (input, output, extensionId, onJoined) => {
        const connection = new ClientConnection(
          input,
          output,
          async (method, params, client) => {
            const result = await this.dispatch(method, params, client);
            if (method === "session.resume") onJoined();
            return result;
          },
          logger,
          { extensionId },
        );
        this.adopt(connection);
        return connection;
      },
    });
  }

  /** The environment the runtime was started with. */
  get environment(): NodeJS.ProcessEnv {
    return this.options.env;
  }

  /** The runtime's logger. */
  get logger(): Logger {
    return this.options.logger;
  }

  /** Handles one request from a client (in a cluster, possibly by forwarding it to the node running its session). */
  dispatch(method: string, params: unknown, client: RequestingClient): Promise<unknown> {
    if (this.clusterNode) return this.clusterNode.dispatch(method, params, client);
    return this.dispatchHere(method, params, client);
  }

  /** Handles one request on this node. */
  private dispatchHere(method: string, params: unknown, client: RequestingClient): Promise<unknown> {
    if (this.shuttingDown) return Promise.reject(new TandemError(ErrorCodes.ShuttingDown, `The runtime is shutting down (runtime.shutdown was called); ${method} was not run`));
    return this.dispatcher.dispatch(method, params, client);
  }

  /** This runtime as a cluster node, when it joined one. */
  get cluster(): ClusterNode | undefined {
    return this.clusterNode;
  }

  /**
   * Joins the cluster of runtimes sharing this PostgreSQL database: heartbeats, session leases
   * (appends then carry this node's lease), the node bus and the health endpoint.
   */
  async joinCluster(config: ClusterConfig): Promise<ClusterNode> {
    const [{ ClusterNode }, { clusterHostFor }, { LeaseOwnership }] = await Promise.all([
      import("./cluster/cluster-node.js"),
      import("./cluster/node-host.js"),
      import("./cluster/session-ownership.js"),
    ]);
    const node = await ClusterNode.start(
      config,
      clusterHostFor({
        sessions: this.sessions,
        connections: () => this.connections,
        dispatch: (method, params, client) => this.dispatch(method, params, client),
        dispatchHere: (method, params, client) => this.dispatchHere(method, params, client),
        notifyClientsHere: (method, params) => this.notifyClientsHere(method, params),
        logger: this.options.logger,
      }),
      this.options.logger,
    );
    this.store.useLeases?.(node.leases);
    this.sessions.ownedBy(new LeaseOwnership(node, this.options.logger));
    this.clusterNode = node;
    return node;
  }

  /** Takes over a client connection (opened by the entry module, possibly before the runtime loaded). */
  adopt(client: ClientConnection): void {
    this.connections.add(client);
    client.orderRequestsAfterEvents((sessionId) => this.sessions.find(sessionId)?.emitter.delivered());
    client.onClose(() => {
      this.connections.delete(client);
      if (client.extensionId === undefined) this.extensions.applicationLeft();
      void this.sessions.detachAll(client).catch((error) => this.options.logger.error("failed to release sessions of a closed client", error));
    });
  }

  /** `auth.getStatus`. */
  authStatus(): AuthStatus {
    const provider = describeDefaultProvider(this.providerEnvironment);
    return {
      isAuthenticated: provider.authenticated,
      authType: provider.kind === "copilot" ? "token" : "api-key",
      host: provider.baseUrl ?? "",
      statusMessage: provider.authenticated
        ? `Using ${provider.kind} at ${provider.baseUrl}`
        : `No credentials for ${provider.kind} at ${provider.baseUrl}; sessions can still bring their own provider.`,
    };
  }

  /** The provider environment of a session: the runtime's, with the session's own GitHub token when it has one. */
  sessionProviderEnvironment(gitHubToken: string | undefined): ProviderEnvironment {
    return gitHubToken ? { ...this.providerEnvironment, sessionToken: gitHubToken } : this.providerEnvironment;
  }

  /** `models.list` for the default provider (cached after the first success). */
  listModels(): Promise<ModelInfo[]> {
    if (!this.modelsCache) {
      const request = Promise.resolve().then(() => createModelClient(undefined, this.providerEnvironment, { connections: this.modelConnections, relay: this.relayFor() }).listModels());
      this.modelsCache = request;
      request.then(
        (models) => {
          this.modelsRead = models;
        },
        () => undefined,
      );
      request.catch(() => {
        if (this.modelsCache === request) this.modelsCache = undefined;
      });
    }
    return this.modelsCache;
  }

  /**
   * `runtime.shutdown`: every session is shut down (its last events written) before the answer, and
   * later requests are refused. The process exits once the asking client has gone (the SDK closes
   * right after the answer, so it is never cut off), or after a short grace.
   */
  async shutdownOnRequest(client: RequestingClient): Promise<void> {
    this.shuttingDown = true;
    await this.extensions.stopAll();
    await this.sessions.shutdownAll();
    this.modelConnections.close();
    await this.telemetry?.shutdown();
    const exit = this.options.exit;
    if (!exit) return;
    client.onClose(exit);
    setTimeout(exit, exitGraceMs).unref();
  }

  /** Shuts every session down and closes every client. */
  async shutdown(): Promise<void> {
    await this.extensions.stopAll();
    await this.sessions.shutdownAll();
    await this.clusterNode?.stop().catch((error: unknown) => this.options.logger.warn("could not leave the cluster cleanly", error));
    this.modelConnections.close();
    await this.telemetry?.shutdown();
    await this.store.close().catch((error: unknown) => this.options.logger.warn("could not close the session store", error));
    for (const client of this.connections) client.dispose();
  }

  /** `session.lifecycle` for every client: this node's, and in a cluster every other node's. */
  /** Where model requests go while a client performs them (`llmInference.setProvider`); they carry `sessionId`. */
  private relayFor(sessionId?: string): RequestRelay {
    const transport = this.inferenceTransport;
    return { sender: new ClientHttpSender(transport, this.modelConnections, sessionId), fetchFor: (origin) => clientFetch(transport, { ...(sessionId ? { sessionId } : {}), ...(origin ? { origin } : {}) }) };
  }

  private broadcastLifecycle(event: SessionLifecycleEvent): void {
    this.notifyClientsHere("session.lifecycle", event);
    this.clusterNode?.shareNotification("session.lifecycle", event);
  }

  private notifyClientsHere(method: string, params: unknown): void {
    for (const client of this.connections) client.sendNotification(method, params);
  }
}

/** The application's `extensionSdkPath` (1.0.x), when it named an absolute folder. */
function extensionSdkPathOf(config: unknown): { extensionSdkPath?: string } {
  const path = (config as { extensionSdkPath?: unknown }).extensionSdkPath;
  return typeof path === "string" && isAbsolute(path) ? { extensionSdkPath: path } : {};
}
