import type { McpServerConfig } from "@tandem/protocol";
import { randomUUID } from "node:crypto";
import type { Tool as SdkTool } from "@modelcontextprotocol/sdk/types.js";
import { ErrorCodes, invalidParams, TandemError } from "../errors.js";
import type { Tool } from "../tools/types.js";
import { McpCallError } from "./errors.js";
import { loadMcpSdk, type McpSdk } from "./sdk.js";
import { McpServerConnection, type McpConnectionListener, type McpStatusCause } from "./server-connection.js";
import type { McpEnvValueMode, McpHost, McpManagerOptions, McpServerSummary } from "./types.js";

/**
 * A session's MCP servers: connects them, offers their tools (`{server}-{tool}`, after the
 * built-in and custom tools), reports status changes as `session.mcp_*` events, restarts a crashed
 * server on the next use of one of its tools, and stops local servers on `dispose()`.
 *
 * @example
 * const mcp = new McpManager(config.mcpServers ?? {}, host);
 * await mcp.start();
 * const tools = [...builtins, ...mcp.tools()];
 * // session.mcp.list → { servers: mcp.list() }
 * await mcp.dispose();
 */
export class McpManager {
  private connections: McpServerConnection[];
  private readonly builtinServers: ReadonlySet<string>;
  /** Built-in servers that join the session when its MCP host starts (see `builtinsJoinAtStart`). */
  private waitingBuiltins: McpServerConnection[] = [];
  private sdk: Promise<McpSdk> | undefined;
  /** The runtime tool of a server tool: loaded with the SDK, before any server can list a tool. */
  private toolModule: typeof import("./mcp-tool.js") | undefined;
  private started: Promise<void> | undefined;
  private disposed = false;
  /** While > 0, tool-set changes are collected and reported once at the end. */
  private batchDepth = 0;
  private lastToolSignature = "[]";
  /** One runtime tool per listed server tool, so lookups return the same objects until a relisting. */
  private readonly toolCache = new WeakMap<object, Tool>();
  private envMode: McpEnvValueMode = "direct";

  constructor(
    configs: Record<string, McpServerConfig>,
    private readonly host: McpHost,
    options: McpManagerOptions = {},
  ) {
    const listener: McpConnectionListener = {
      statusChanged: (connection, cause) => this.reportStatus(connection, cause),
      toolsChanged: () => this.notifyToolsChanged(),
    };
    const deps = { loadSdk: () => this.loadSdk(), host, options, listener, envValueMode: () => this.envMode };
    const disabled = new Set(options.disabledServers ?? []);
    this.builtinServers = new Set(options.builtinServers ?? []);
    const connections = Object.entries(configs).map(([name, config]) => new McpServerConnection(name, config, deps, disabled.has(name) ? "disabled" : "pending"));
    if (!options.builtinsJoinAtStart) {
      this.connections = connections;
      return;
    }
    this.waitingBuiltins = connections.filter((connection) => this.builtinServers.has(connection.name));
    this.connections = connections.filter((connection) => !this.builtinServers.has(connection.name));
  }

  /** Whether the session's MCP host has any server (built-in servers count once they joined). */
  get hasServers(): boolean {
    return this.connections.length > 0;
  }

  /** Whether `start()` was called: the host is up, and the built-in servers have joined. */
  get hasStarted(): boolean {
    return this.started !== undefined;
  }

  /**
   * Throws the typed "not available" error when the session's MCP host has no server: `lead` says
   * what is missing, the rest why (none configured; the runtime's own join at the first message or
   * listing, when they are waiting for that).
   *
   * @example
   * mcp.requireHost("MCP host is not available"); // before an OAuth login
   */
  requireHost(lead = "No MCP host initialized"): void {
    if (this.hasServers) return;
    const waiting = this.waitingBuiltins.map((connection) => connection.name);
    const reason = `${lead}: this session has no MCP servers configured (mcpServers at create or resume)`;
    if (waiting.length === 0) throw new TandemError(ErrorCodes.NotAvailable, reason);
    throw new TandemError(ErrorCodes.NotAvailable, `${reason}; the runtime's own (${waiting.join(", ")}) join at the session's first message or when its servers are listed`, { waitingServers: waiting });
  }

  /**
   * Connects every server not yet connected or disabled, in parallel (each within the connect
   * timeout). Emits one `session.mcp_server_status_changed` per server, a `session.warning` per
   * failure, then one `session.mcp_servers_loaded`. Sessions call it lazily: at their first turn, or
   * when a client lists the servers. Built-in servers held back until the start join first, before
   * it returns (so a listing right after it names them). Never throws; calling it again returns
   * the same promise.
   */
  start(): Promise<void> {
    if (this.started) return this.started;
    this.joinWaitingBuiltins();
    this.started = this.batch(async () => {
      await Promise.all(this.connections.filter((connection) => connection.status === "pending").map((connection) => connection.connect("start")));
      this.emitLoaded();
    });
    return this.started;
  }

  /** The tools of connected servers the allow-lists let through, in config then server order. */
  tools(): Tool[] {
    return this.collectTools((connection) => connection.offeredTools());
  }

  /**
   * Finds a tool by its `{server}-{tool}` name, including tools of a server that crashed (calling
   * one restarts the server). Use it as the fallback of the session's tool lookup.
   */
  findTool(name: string): Tool | undefined {
    return this.collectTools((connection) => connection.callableTools()).find((tool) => tool.name === name);
  }

  /** Every configured server and its status (`session.mcp.list`). */
  list(): McpServerSummary[] {
    return this.connections.map((connection) => (this.builtinServers.has(connection.name) ? { ...connection.summary(), source: "builtin" } : connection.summary()));
  }

  /**
   * Removes a server the runtime added (see `builtinServers`): stops it and stops listing it.
   * False when no such built-in server is here (none, or the application configured that name).
   */
  async removeBuiltin(serverName: string): Promise<boolean> {
    const connection = this.connections.find((candidate) => candidate.name === serverName);
    if (!connection || !this.builtinServers.has(serverName)) return false;
    this.connections = this.connections.filter((candidate) => candidate !== connection);
    await this.batch(() => connection.close("disabled"));
    return true;
  }

  /** How local servers' `env` values are read; servers (re)started from now on use it. */
  get envValueMode(): McpEnvValueMode {
    return this.envMode;
  }

  set envValueMode(mode: McpEnvValueMode) {
    this.envMode = mode;
  }

  /** Whether the named server has a live connection (false for a name that is not configured). */
  isRunning(serverName: string): boolean {
    return this.connections.find((candidate) => candidate.name === serverName)?.running ?? false;
  }

  /** Every tool the named server listed (allow-list not applied). Throws when it is not connected. */
  serverTools(serverName: string): SdkTool[] {
    const connection = this.connections.find((candidate) => candidate.name === serverName);
    if (!connection?.running) throw notConnected(serverName, connection?.status);
    return connection.listedToolsWhileConnected();
  }

  /** Reads a resource of a connected server. Throws when it is not connected, or the server's error. */
  readResource(serverName: string, uri: string): ReturnType<McpServerConnection["readResource"]> {
    const connection = this.connections.find((candidate) => candidate.name === serverName);
    if (!connection?.running) throw notConnected(serverName, connection?.status);
    return connection.readResource(uri);
  }

  /** Calls a tool of a connected server directly (an MCP App view's call); the server's result as is. */
  async callServerTool(serverName: string, toolName: string, args: Record<string, unknown>): Promise<Record<string, unknown>> {
    const connection = this.connections.find((candidate) => candidate.name === serverName);
    if (!connection?.running) throw notConnected(serverName, connection?.status);
    if (!connection.listedToolsWhileConnected().some((tool) => tool.name === toolName)) throw invalidParams(`MCP server "${serverName}" has no tool "${toolName}"`, { serverName, toolName });
    try {
      return { ...(await connection.callTool(toolName, args, { toolCallId: `app-${randomUUID()}`, signal: new AbortController().signal })) };
    } catch (error) {
      if (error instanceof McpCallError) throw new TandemError(ErrorCodes.NotAvailable, error.message, { serverName, toolName });
      throw error;
    }
  }

  /** Stops a server's process and withdraws its tools; `start`/`enable` brings it back. Throws for an unknown name. */
  async stop(serverName: string): Promise<void> {
    this.requireHost();
    const connection = this.connection(serverName);
    if (this.disposed || connection.status === "disabled") return;
    await this.batch(async () => {
      await connection.close("disabled");
      this.reportStatus(connection, "disable");
    });
  }

  /** Stops (when running) and connects a server again. Throws for an unknown name. */
  async restart(serverName: string): Promise<void> {
    this.requireHost();
    const connection = this.connection(serverName);
    if (this.disposed) return;
    await this.batch(async () => {
      await connection.close("pending");
      await connection.connect("restart");
    });
  }

  /** Enables a server (connecting it; a failed server is retried). Throws for an unknown name. */
  async enable(serverName: string): Promise<void> {
    this.requireHost();
    const connection = this.connection(serverName);
    if (connection.status === "connected" || this.disposed) return;
    await this.batch(() => connection.connect("enable"));
  }

  /** Disables a server: stops it and withdraws its tools. Throws for an unknown name. */
  async disable(serverName: string): Promise<void> {
    this.requireHost();
    const connection = this.connection(serverName);
    if (connection.status === "disabled" || this.disposed) return;
    await this.batch(async () => {
      await connection.close("disabled");
      this.reportStatus(connection, "disable");
    });
  }

  /** Restarts every enabled server (crashed and failed ones included), then emits `session.mcp_servers_loaded`. */
  async reload(): Promise<void> {
    this.requireHost("MCP config reload not available");
    if (this.disposed) return;
    const enabled = this.connections.filter((connection) => connection.status !== "disabled");
    await this.batch(async () => {
      await Promise.all(enabled.map((connection) => connection.close("pending")));
      await Promise.all(enabled.map((connection) => connection.connect("reload")));
      this.emitLoaded();
    });
  }

  /** Closes every connection and stops local servers; safe to call more than once. */
  async dispose(): Promise<void> {
    this.disposed = true;
    await Promise.all(this.connections.map((connection) => connection.close("disabled")));
  }

  /** The configuration of a server of this session, or undefined when none has that name. */
  configOf(serverName: string): McpServerConfig | undefined {
    return this.connections.find((candidate) => candidate.name === serverName)?.config;
  }

  private joinWaitingBuiltins(): void {
    if (this.waitingBuiltins.length === 0 || this.disposed) return;
    this.connections = [...this.waitingBuiltins, ...this.connections];
    this.waitingBuiltins = [];
  }

  private connection(serverName: string): McpServerConnection {
    const connection = this.connections.find((candidate) => candidate.name === serverName);
    if (!connection) throw invalidParams(`MCP server not found: ${serverName}`, { serverName });
    return connection;
  }

  private loadSdk(): Promise<McpSdk> {
    this.sdk ??= Promise.all([loadMcpSdk(), import("./mcp-tool.js")]).then(([sdk, toolModule]) => {
      this.toolModule = toolModule;
      return sdk;
    });
    return this.sdk;
  }

  private collectTools(select: (connection: McpServerConnection) => ReturnType<McpServerConnection["offeredTools"]>): Tool[] {
    const tools: Tool[] = [];
    const names = new Set<string>();
    const toolModule = this.toolModule;
    // Not loaded yet: no server has connected, so none lists a tool.
    if (!toolModule) return tools;
    for (const connection of this.connections) {
      for (const serverTool of select(connection)) {
        let tool = this.toolCache.get(serverTool);
        if (!tool) {
          tool = toolModule.createMcpTool(connection, serverTool);
          this.toolCache.set(serverTool, tool);
        }
        if (names.has(tool.name)) continue;
        names.add(tool.name);
        tools.push(tool);
      }
    }
    return tools;
  }

  private reportStatus(connection: McpServerConnection, cause: McpStatusCause): void {
    if (this.disposed) return;
    const { name, status, error } = connection.summary();
    this.host.emitter.emit("session.mcp_server_status_changed", { serverName: name, status, ...(error ? { error } : {}) });
    if (status === "failed") {
      const message = failureMessage(name, cause, error ?? "unknown error");
      this.host.logger.warn(message);
      this.host.emitter.emit("session.warning", { warningType: "mcp", message });
    }
    this.notifyToolsChanged();
  }

  private emitLoaded(): void {
    if (this.disposed) return;
    this.host.emitter.emit("session.mcp_servers_loaded", { servers: this.list() });
  }

  private async batch<T>(operation: () => Promise<T>): Promise<T> {
    this.batchDepth++;
    try {
      return await operation();
    } finally {
      this.batchDepth--;
      this.notifyToolsChanged();
    }
  }

  private notifyToolsChanged(): void {
    if (this.batchDepth > 0 || this.disposed) return;
    const signature = JSON.stringify(this.tools().map((tool) => [tool.name, tool.description, tool.parameters]));
    if (signature === this.lastToolSignature) return;
    this.lastToolSignature = signature;
    this.host.onToolsChanged?.();
  }
}

function notConnected(serverName: string, status: string | undefined): TandemError {
  const state = status === undefined ? "it is not configured in this session" : `its status is ${status}`;
  return new TandemError(ErrorCodes.NotAvailable, `MCP server "${serverName}" is not connected (${state})`, { serverName });
}

function failureMessage(serverName: string, cause: McpStatusCause, error: string): string {
  switch (cause) {
    case "crash":
      return `MCP server "${serverName}" stopped: ${error}. It will be restarted when one of its tools is used.`;
    case "restart":
      return `MCP server "${serverName}" could not be restarted: ${error}`;
    default:
      return `MCP server "${serverName}" failed to start: ${error}`;
  }
}
