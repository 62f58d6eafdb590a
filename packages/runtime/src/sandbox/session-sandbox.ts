import type { SandboxConfig, SandboxEnforcementStatus } from "@tandem/protocol";
import { SandboxUnavailableError } from "./errors.js";
import type { LaunchPlan, LaunchRequest, ProcessLauncher } from "./launcher.js";
import { resolveSandboxPolicy, type SandboxPolicy } from "./policy.js";
import type { SandboxProxy } from "./proxy.js";

/** What the runtime gives every session's sandbox. */
export interface SandboxEnvironment {
  /** `--sandbox` / `TANDEM_SANDBOX`: the config of sessions that bring none. */
  runtimeDefault?: SandboxConfig;
  /** The bubblewrap binary (`TANDEM_BWRAP`, default `bwrap` on PATH). */
  bwrapPath: string;
  platform: NodeJS.Platform;
  /** Started shells kept ready per session for one-off sandboxed commands (`TANDEM_SANDBOX_POOL`, default {@link DEFAULT_WARM_SHELLS}; 0: none). */
  warmShells?: number;
}

/** Shells kept ready per sandboxed session unless `TANDEM_SANDBOX_POOL` says otherwise. */
export const DEFAULT_WARM_SHELLS = 1;

/** The port the in-sandbox forwarder listens on (the sandbox has a network namespace of its own). */
const FORWARDER_PORT = 3128;
/** Starts the forwarder, waits until it listens, then runs the program (`$1` node, `$2` its source, then the program). */
const WITH_FORWARDER = [
  `node="$1"; source="$2"; shift 2`,
  `mkfifo /tmp/.tandem-forwarder-ready || exit 125`,
  `"$node" -e "$source" </dev/null >/tmp/.tandem-forwarder-ready 2>/dev/null 4<&- &`,
  `read -r _ </tmp/.tandem-forwarder-ready; rm -f /tmp/.tandem-forwarder-ready`,
  `exec "$@"`,
].join("\n");

/**
 * One session's sandbox: its policy (the session's `sandbox`, else the runtime's default), the
 * {@link ProcessLauncher} the shell tools and MCP servers start processes through, and what
 * `session.sandbox.*` report and change. Nothing sandbox-specific is loaded until a process is
 * started with the sandbox on: bubblewrap is probed once, then, when the network policy lets
 * anything out, the session's proxy starts.
 *
 * @example
 * const sandbox = new SessionSandbox(config.sandbox, "/work", { bwrapPath: "bwrap", platform: process.platform });
 * const plan = await sandbox.plan("bash", ["--norc"], { cwd: "/work" });
 */
export class SessionSandbox implements ProcessLauncher {
  private policy: SandboxPolicy;
  private disabled = false;
  private probe: Promise<string | undefined> | undefined;
  private proxy: SandboxProxy | undefined;
  private proxySocket: Promise<string> | undefined;
  private readonly changeListeners = new Set<() => void>();

  constructor(
    private config: SandboxConfig | undefined,
    private workingDirectory: string,
    private readonly environment: SandboxEnvironment,
  ) {
    this.policy = resolveSandboxPolicy(config, environment.runtimeDefault, workingDirectory);
  }

  /**
   * A resume brought its own `sandbox`, or the session moved to another working directory: later
   * processes follow it (running shells keep theirs; shells started ahead of time are dropped).
   */
  reconfigure(config: SandboxConfig | undefined, workingDirectory = this.workingDirectory): void {
    if (config === undefined && workingDirectory === this.workingDirectory) return;
    const moved = workingDirectory !== this.workingDirectory;
    this.config = config ?? this.config;
    this.workingDirectory = workingDirectory;
    const previous = this.policy;
    this.policy = resolveSandboxPolicy(this.config, this.environment.runtimeDefault, workingDirectory);
    if (JSON.stringify(previous.network) !== JSON.stringify(this.policy.network)) void this.stopProxy();
    if (moved || JSON.stringify(previous) !== JSON.stringify(this.policy)) this.changed();
  }

  get warmShells(): number {
    return this.sandboxing ? (this.environment.warmShells ?? DEFAULT_WARM_SHELLS) : 0;
  }

  onChange(listener: () => void): () => void {
    this.changeListeners.add(listener);
    return () => this.changeListeners.delete(listener);
  }

  get sandboxing(): boolean {
    return this.policy.enabled && !this.disabled;
  }

  get bypassAllowed(): boolean {
    return this.sandboxing && this.policy.allowBypass;
  }

  async plan(command: string, args: readonly string[], request: LaunchRequest): Promise<LaunchPlan> {
    const direct = { command, args: [...args], sandboxed: false };
    if (!this.sandboxing) return direct;
    if (request.unsandboxed) {
      if (!this.policy.allowBypass) throw new SandboxUnavailableError("Running a command outside the sandbox needs sandbox.allowBypass.", "not-allowed");
      return direct;
    }
    if (request.mcpServer && !this.policy.sandboxMcpServers) return direct;
    const problem = await this.unavailableReason();
    if (problem) throw new SandboxUnavailableError(problem);
    const { bwrapArguments, PROXY_SOCKET_INSIDE } = await import("./bwrap.js");
    const proxySocket = this.needsProxy() ? await this.startProxy() : undefined;
    const sandboxArgs = bwrapArguments(this.policy, { cwd: request.cwd, ...(proxySocket ? { proxySocket } : {}), ...(request.outlivesRuntime ? { outlivesRuntime: true } : {}) });
    if (!proxySocket) return { command: this.environment.bwrapPath, args: [...sandboxArgs, "--", command, ...args], sandboxed: true };
    const { forwarderSource } = await import("./proxy.js");
    const proxyUrl = `http://127.0.0.1:${FORWARDER_PORT}`;
    const proxyEnv = ["HTTP_PROXY", "HTTPS_PROXY", "http_proxy", "https_proxy", "ALL_PROXY", "all_proxy"].flatMap((name) => ["--setenv", name, proxyUrl]);
    const program = ["/bin/sh", "-c", WITH_FORWARDER, "tandem-sandbox", process.execPath, forwarderSource(PROXY_SOCKET_INSIDE, FORWARDER_PORT), command, ...args];
    return { command: this.environment.bwrapPath, args: [...sandboxArgs, ...proxyEnv, "--unsetenv", "NO_PROXY", "--unsetenv", "no_proxy", "--", ...program], sandboxed: true };
  }

  /** What is enforced now, and why not (probing bubblewrap if nothing has yet). */
  async status(): Promise<SandboxEnforcementStatus> {
    const { network } = this.policy;
    const problem = this.sandboxing ? await this.unavailableReason() : undefined;
    const enforced = this.sandboxing && problem === undefined;
    const reason = !this.policy.enabled ? "the sandbox is not enabled for this session" : this.disabled ? "disabled for this session (session.sandbox.disableForSession)" : problem;
    return {
      enabled: this.policy.enabled,
      enforced,
      mechanism: enforced ? "bubblewrap" : null,
      platform: this.environment.platform,
      ...(reason ? { reason } : {}),
      allowBypass: this.policy.allowBypass,
      disabledForSession: this.disabled,
      network: { allowOutbound: network.allowOutbound, allowLocalNetwork: network.allowLocalNetwork, allowedHosts: [...network.allowedHosts], blockedHosts: [...network.blockedHosts] },
    };
  }

  /** Later processes run unsandboxed; refused unless the config allows bypass. */
  disableForSession(): void {
    if (!this.policy.enabled) return;
    if (!this.policy.allowBypass) throw new SandboxUnavailableError("The sandbox can only be disabled for a session whose sandbox config sets allowBypass.", "not-allowed");
    this.disabled = true;
    this.changed();
  }

  /** Stops the session's proxy (and tells the listeners that nothing more starts here). */
  async dispose(): Promise<void> {
    this.changed();
    this.changeListeners.clear();
    await this.stopProxy();
  }

  private changed(): void {
    for (const listener of this.changeListeners) {
      try {
        listener();
      } catch {
        // A failing listener must not affect the others or the change itself.
      }
    }
  }

  private unavailableReason(): Promise<string | undefined> {
    if (this.environment.platform !== "linux") {
      return Promise.resolve(`${this.environment.platform} has no supported sandbox (Tandem sandboxes with bubblewrap, on Linux only)`);
    }
    this.probe ??= import("./bwrap.js").then(({ probeBwrap }) => probeBwrap(this.environment.bwrapPath));
    return this.probe;
  }

  private needsProxy(): boolean {
    return this.policy.network.allowOutbound || this.policy.network.allowedHosts.length > 0;
  }

  private startProxy(): Promise<string> {
    this.proxySocket ??= import("./proxy.js").then(({ SandboxProxy }) => {
      this.proxy = new SandboxProxy(this.policy.network);
      return this.proxy.start();
    });
    return this.proxySocket;
  }

  private async stopProxy(): Promise<void> {
    const pending = this.proxySocket;
    this.proxySocket = undefined;
    if (!pending) return;
    await pending.catch(() => undefined);
    const proxy = this.proxy;
    this.proxy = undefined;
    await proxy?.close();
  }
}
