import { resolve } from "node:path";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { CallToolResult, ElicitRequest, ElicitResult, Progress, Tool as SdkTool } from "@modelcontextprotocol/sdk/types.js";
import type { McpServerConfig } from "@tandem/protocol";
import { errorMessage } from "../errors.js";
import { runtimeVersion } from "../version.js";
import { callTimeoutMs, defaultCallTimeoutMs, defaultConnectTimeoutMs, isRemoteConfig, toolAllowed } from "./config.js";
import { McpCallError } from "./errors.js";
import type { McpSdk } from "./sdk.js";
import type { McpHostAuth } from "./host-auth.js";
import type { McpEnvValueMode, McpHost, McpManagerOptions, McpServerStatus, McpServerSummary } from "./types.js";

/** What started a (re)connection; it shapes the warning a failure produces. */
export type McpConnectPhase = "start" | "restart" | "enable" | "reload";

/** Why a server's status changed. */
export type McpStatusCause = McpConnectPhase | "crash" | "disable";

/** Receives a connection's status and tool-list changes (the manager emits the events). */
export interface McpConnectionListener {
  statusChanged(connection: McpServerConnection, cause: McpStatusCause): void;
  toolsChanged(connection: McpServerConnection): void;
}

/** What a connection needs: the SDK loader, the session host and the manager's tunables. */
export interface McpConnectionDeps {
  loadSdk(): Promise<McpSdk>;
  host: McpHost;
  options: McpManagerOptions;
  listener: McpConnectionListener;
  /** How a local server's `env` values are read when it starts (default `direct`). */
  envValueMode?(): McpEnvValueMode;
}

/** One running tool call, for progress routing and elicitation attribution. */
export interface McpCallContext {
  toolCallId: string;
  signal: AbortSignal;
  onprogress?: (progress: Progress) => void;
}

const maxToolPages = 100;

/**
 * One configured MCP server: connects (spawning local servers), lists its tools, calls them,
 * answers its elicitation requests through the host, and notices when it goes away. A server that
 * crashes keeps its last tool listing so the next call of one of those tools restarts it.
 *
 * @example
 * const connection = new McpServerConnection("files", config, deps);
 * await connection.connect("start");
 * const result = await connection.callTool("read", { path: "a.txt" }, { toolCallId, signal });
 */
export class McpServerConnection {
  private state: McpServerStatus;
  private failure: string | undefined;
  private client: Client | undefined;
  /** The server's last tool listing (kept after a crash, for restart on use). */
  private listedTools: SdkTool[] = [];
  /** Bumped by every connect, close and crash; stale callbacks compare against it. */
  private generation = 0;
  private connecting: { generation: number; promise: Promise<void> } | undefined;
  /** Running calls by call id; the call id also makes the call's progress token. */
  private readonly activeCalls = new Map<number, McpCallContext>();
  private nextCallId = 0;
  /** The stderr tail of the current local server process, to explain crashes. */
  private stderrTail: () => string = () => "";
  /** A remote server's token, kept across reconnects. */
  private auth: McpHostAuth | undefined;

  constructor(
    readonly name: string,
    readonly config: McpServerConfig,
    private readonly deps: McpConnectionDeps,
    initialStatus: "pending" | "disabled" = "pending",
  ) {
    this.state = initialStatus;
  }

  /** The current status. */
  get status(): McpServerStatus {
    return this.state;
  }

  /** The row `session.mcp.list` shows for this server. */
  summary(): McpServerSummary {
    return this.state === "failed" && this.failure ? { name: this.name, status: this.state, error: this.failure } : { name: this.name, status: this.state };
  }

  /** The allow-listed tools the model is offered: only while connected. */
  offeredTools(): SdkTool[] {
    if (this.state !== "connected") return [];
    return this.allowedTools();
  }

  /** The allow-listed tools that can be called: offered ones, or a crashed server's last listing. */
  callableTools(): SdkTool[] {
    if (this.state === "connected" || this.state === "failed") return this.allowedTools();
    return [];
  }

  /** Whether the server has a live client connection. */
  get running(): boolean {
    return this.state === "connected" && this.client !== undefined;
  }

  /** Every tool the server listed, allow-list not applied; empty unless connected. */
  listedToolsWhileConnected(): SdkTool[] {
    return this.state === "connected" ? [...this.listedTools] : [];
  }

  /** Reads a resource (`resources/read`); the server's JSON-RPC error (e.g. method not found) is thrown as is. */
  async readResource(uri: string): Promise<{ contents: Array<{ uri: string } & Record<string, unknown>> }> {
    const client = await this.ready();
    const result = await client.readResource({ uri }, { timeout: this.callTimeoutMs });
    return { contents: result.contents.map((content) => ({ ...content })) };
  }

  /** The per-call timeout of this server. */
  get callTimeoutMs(): number {
    return callTimeoutMs(this.config, this.deps.options.defaultCallTimeoutMs ?? defaultCallTimeoutMs);
  }

  /**
   * Connects (or reconnects) and lists the tools; never throws. Reports the resulting status to the
   * listener. Concurrent calls share one attempt.
   */
  connect(phase: McpConnectPhase): Promise<void> {
    if (this.connecting && this.connecting.generation === this.generation) return this.connecting.promise;
    const generation = ++this.generation;
    const promise = this.attemptConnect(generation, phase).finally(() => {
      if (this.connecting?.promise === promise) this.connecting = undefined;
    });
    this.connecting = { generation, promise };
    return promise;
  }

  /**
   * Closes the connection (a local server is stopped) and sets `status`; reports nothing.
   * `disabled` also forgets the tool listing.
   */
  async close(status: "disabled" | "pending"): Promise<void> {
    this.generation++;
    const client = this.client;
    this.client = undefined;
    this.state = status;
    this.failure = undefined;
    if (status === "disabled") this.listedTools = [];
    if (client) await closeQuietly(client);
  }

  /**
   * Calls a tool by its bare name, restarting a crashed server first. Throws {@link McpCallError}
   * when there is no result (timeout, crash, protocol error), or the abort reason after an abort.
   */
  async callTool(toolName: string, args: Record<string, unknown>, call: McpCallContext): Promise<CallToolResult> {
    const client = await this.ready();
    const sdk = await this.deps.loadSdk();
    const callId = this.nextCallId++;
    this.activeCalls.set(callId, call);
    const timeout = this.callTimeoutMs;
    try {
      // Progress is routed by our own token (see installHandlers), not the SDK's `onprogress`.
      const progressToken = `tandem-${callId}`;
      const decided = await this.deps.host.beforeToolCall?.({ toolCallId: call.toolCallId, serverName: this.name, toolName, arguments: args }, call.signal);
      const meta = decided ? { ...decided, progressToken } : { progressToken };
      const result = await client.callTool({ name: toolName, arguments: args, _meta: meta }, undefined, { signal: call.signal, timeout });
      return result as CallToolResult;
    } catch (error) {
      if (call.signal.aborted) throw error;
      if (error instanceof sdk.McpError && error.code === sdk.ErrorCode.RequestTimeout) {
        throw new McpCallError("timeout", `The MCP server "${this.name}" did not answer the call of "${toolName}" within ${timeout} ms.`);
      }
      const isProtocolError = error instanceof sdk.McpError && error.code !== sdk.ErrorCode.ConnectionClosed;
      if (isProtocolError) throw new McpCallError("error", errorMessage(error));
      const reason = withStderr(errorMessage(error), this.stderrTail());
      this.markCrashed(client, reason);
      throw new McpCallError("disconnected", `The MCP server "${this.name}" stopped while running "${toolName}": ${reason}`);
    } finally {
      this.activeCalls.delete(callId);
    }
  }

  private allowedTools(): SdkTool[] {
    return this.listedTools.filter((tool) => toolAllowed(this.config, this.name, tool.name));
  }

  /** The connected client, restarting a crashed server or waiting for a connect in progress. */
  private async ready(): Promise<Client> {
    if (this.state === "pending" && this.connecting) await this.connecting.promise;
    else if (this.state === "failed" && this.listedTools.length > 0) await this.connect("restart");
    if (this.state === "connected" && this.client) return this.client;
    const reason = this.state === "failed" ? `it failed: ${this.failure ?? "unknown error"}` : `it is ${this.state}`;
    throw new McpCallError("unavailable", `The MCP server "${this.name}" is not available (${reason}).`);
  }

  private async attemptConnect(generation: number, phase: McpConnectPhase): Promise<void> {
    // After a remote server restarts, the first request may land on a pooled socket to the old
    // process ("other side closed"); one more attempt gets a fresh connection.
    const attempts = phase === "restart" && isRemoteConfig(this.config) ? 2 : 1;
    for (let attempt = 1; attempt <= attempts; attempt++) {
      this.state = "pending";
      this.failure = undefined;
      try {
        const opened = await this.open(generation);
        if (!opened) return;
        this.listedTools = opened.tools;
        this.state = "connected";
        this.deps.host.logger.info(`MCP server "${this.name}" connected with ${opened.tools.length} tool(s)`);
        break;
      } catch (error) {
        if (generation !== this.generation) return;
        this.state = error instanceof NeedsAuth ? "needs-auth" : "failed";
        this.failure = errorMessage(error);
      }
    }
    this.deps.listener.statusChanged(this, phase);
  }

  /**
   * Starts a client (spawning a local server), initializes it and lists the tools. Resolves
   * undefined when a newer connect or a close superseded this one; throws when it fails.
   */
  private async open(generation: number): Promise<{ client: Client; tools: SdkTool[] } | undefined> {
    const { host, options } = this.deps;
    const timeout = options.connectTimeoutMs ?? defaultConnectTimeoutMs;
    // The transports and the token-asking fetch load with the first connection, like the SDK.
    const [sdk, { createTransport }, { McpHostAuth }] = await Promise.all([this.deps.loadSdk(), import("./transport.js"), import("./host-auth.js")]);
    if (generation !== this.generation) return undefined;
    const client = new sdk.Client({ name: options.clientName ?? "tandem", version: runtimeVersion }, { capabilities: { elicitation: { form: {} } } });
    this.installHandlers(sdk, client, generation);
    this.client = client;
    let stderrTail = (): string => "";
    let authState: McpHostAuth | undefined;
    try {
      const auth = this.hostAuth(McpHostAuth);
      const config = await this.launchedConfig();
      if (generation !== this.generation) return undefined;
      const created = createTransport(sdk, this.name, config, host, this.deps.envValueMode?.() ?? "direct", process.env, auth?.fetch);
      authState = auth;
      stderrTail = created.stderrTail;
      this.stderrTail = created.stderrTail;
      await withTimeout(client.connect(created.transport, { timeout }), timeout, `connecting timed out after ${timeout} ms`);
      const tools = await withTimeout(listAllTools(client, timeout), timeout, `listing tools timed out after ${timeout} ms`);
      if (generation === this.generation) return { client, tools };
      await closeQuietly(client);
      return undefined;
    } catch (error) {
      if (this.client === client) this.client = undefined;
      await closeQuietly(client);
      if (authState?.needsAuth) throw new NeedsAuth(`MCP server "${this.name}" needs authorization: the application gave no token (${errorMessage(error)})`);
      throw new Error(withStderr(errorMessage(error), stderrTail()));
    }
  }

  /**
   * A local server's config with the command line the session's launcher gives (its sandbox, unless
   * `sandboxMcpServers: false`); throws when the sandbox is required and cannot start.
   */
  private async launchedConfig(): Promise<McpServerConfig> {
    const { launcher, workingDirectory } = this.deps.host;
    if (!launcher || isRemoteConfig(this.config)) return this.config;
    const cwd = this.config.cwd ? resolve(workingDirectory, this.config.cwd) : workingDirectory;
    const plan = await launcher.plan(this.config.command, this.config.args ?? [], { cwd, mcpServer: true });
    return { ...this.config, command: plan.command, args: plan.args };
  }

  /** The token-asking fetch of a remote server, when the session can ask the application. */
  private hostAuth(HostAuth: typeof McpHostAuth): McpHostAuth | undefined {
    const requester = this.deps.host.requestToken;
    if (!isRemoteConfig(this.config) || !requester) return undefined;
    this.auth ??= new HostAuth(this.name, this.config.url, requester);
    return this.auth;
  }

  private installHandlers(sdk: McpSdk, client: Client, generation: number): void {
    client.onclose = () => {
      if (generation !== this.generation || this.state !== "connected") return;
      this.markCrashed(client, withStderr("the server closed the connection", this.stderrTail()));
    };
    client.onerror = (error) => this.deps.host.logger.debug(`[mcp:${this.name}] transport error`, error);
    client.setRequestHandler(sdk.ElicitRequestSchema, (request, extra) => this.elicit(request, extra.signal));
    client.setNotificationHandler(sdk.ToolListChangedNotificationSchema, () => this.refreshTools(client, generation));
    // Replaces the SDK's progress routing, which drops a notification that arrives in the same read
    // as the response (the response removes the handler before the notification is dispatched).
    client.setNotificationHandler(sdk.ProgressNotificationSchema, (notification) => {
      const { progressToken, progress, total, message } = notification.params;
      const callId = typeof progressToken === "string" && progressToken.startsWith("tandem-") ? Number(progressToken.slice(7)) : Number.NaN;
      this.activeCalls.get(callId)?.onprogress?.({ progress, ...(total !== undefined ? { total } : {}), ...(message !== undefined ? { message } : {}) });
    });
  }

  private markCrashed(client: Client, reason: string): void {
    if (this.client !== client || this.state !== "connected") return;
    this.generation++;
    this.client = undefined;
    this.state = "failed";
    this.failure = reason;
    void closeQuietly(client);
    this.deps.listener.statusChanged(this, "crash");
  }

  private async refreshTools(client: Client, generation: number): Promise<void> {
    const timeout = this.deps.options.connectTimeoutMs ?? defaultConnectTimeoutMs;
    try {
      const tools = await listAllTools(client, timeout);
      if (generation !== this.generation || this.state !== "connected") return;
      this.listedTools = tools;
      this.deps.listener.toolsChanged(this);
    } catch (error) {
      this.deps.host.logger.warn(`MCP server "${this.name}": refreshing the tool list failed`, error);
    }
  }

  private async elicit(request: ElicitRequest, serverSignal: AbortSignal): Promise<ElicitResult> {
    const params = request.params;
    if (params.mode === "url" || !("requestedSchema" in params)) return { action: "decline" };
    // A stdio request does not say which call it belongs to; name the call only when there is one.
    const calls = [...this.activeCalls.values()];
    const call = calls.length === 1 ? calls[0] : undefined;
    try {
      const answer = await this.deps.host.elicit(
        {
          serverName: this.name,
          ...(call ? { toolCallId: call.toolCallId } : {}),
          message: params.message,
          requestedSchema: params.requestedSchema,
        },
        call ? AbortSignal.any([serverSignal, call.signal]) : serverSignal,
      );
      if (answer.action !== "accept") return { action: answer.action };
      return { action: "accept", content: answer.content ?? {} };
    } catch (error) {
      this.deps.host.logger.warn(`MCP server "${this.name}": elicitation was not answered`, error);
      return { action: "cancel" };
    }
  }
}

/** A remote server challenged for a token and the application gave none. */
class NeedsAuth extends Error {}

async function listAllTools(client: Client, timeout: number): Promise<SdkTool[]> {
  const tools: SdkTool[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < maxToolPages; page++) {
    const result = await client.listTools(cursor ? { cursor } : undefined, { timeout });
    tools.push(...result.tools);
    cursor = result.nextCursor;
    if (!cursor) break;
  }
  return tools;
}

function withStderr(message: string, stderrTail: string): string {
  return stderrTail ? `${message} (stderr: ${stderrTail})` : message;
}

async function closeQuietly(client: Client): Promise<void> {
  try {
    await client.close();
  } catch {
    // Closing a broken transport may throw; the process is gone or going either way.
  }
}

function withTimeout<T>(promise: Promise<T>, ms: number, message: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(message)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
