import type { Logger } from "../log.js";
import type { ClientPort } from "../session/client-port.js";
import type { EventEmitterPort } from "../session/emitter.js";
import { extensionEnv, findSdkPreload } from "./child-env.js";
import { discoverExtensions, type ExtensionSpec } from "./discovery.js";
import { ExtensionProcess, type ExtensionLink, type ExtensionStatus } from "./extension-process.js";

/** What the host needs to know of a session. */
export interface ExtensionSessionView {
  readonly workingDirectory: string;
  readonly emitter: EventEmitterPort;
  isAttached(port: ClientPort): boolean;
  /** False when the application opted out (1.0.x `requestExtensions: false`). */
  readonly extensionsWanted: boolean;
}

/** The runtime's services the host uses. */
export interface ExtensionHostOptions {
  /** The Tandem home: user extensions live in `<home>/extensions/<name>/extension.mjs`. */
  home: string;
  /** The runtime's environment (extensions get it without secrets, plus `SESSION_ID`). */
  env: NodeJS.ProcessEnv;
  /** The variable `--auth-token-env` named, kept from extensions too. */
  authTokenEnv?: string;
  logger: Logger;
  findSession(sessionId: string): ExtensionSessionView | undefined;
  /**
   * Serves an extension's stdio as a client connection of the runtime; `onJoined` runs when its
   * `session.resume` (what `joinSession()` sends) succeeded.
   */
  connect(input: NodeJS.ReadableStream, output: NodeJS.WritableStream, extensionId: string, onJoined: () => void): ExtensionLink & ClientPort;
}

/** One extension as `session.extensions.list` and `session.extensions_loaded` report it. */
export type ExtensionInfo = {
  id: string;
  name: string;
  source: ExtensionSpec["source"];
  status: ExtensionStatus;
  pid?: number;
};

/** How long an extension may take to join, unless `TANDEM_EXTENSION_JOIN_TIMEOUT_MS` says otherwise. */
const defaultJoinTimeoutMs = 10_000;
/** SIGTERM, then SIGKILL after this long. */
const killGraceMs = 5_000;

interface Loaded {
  sessionId: string;
  processes: ExtensionProcess[];
  links: Array<ExtensionLink & ClientPort>;
  ready: Promise<void>;
}

/**
 * Runs the extensions of the foreground session (seed 003 §4.10): discovers them, starts each as a
 * child process connected over stdio, restarts them when the foreground session changes, and stops
 * them at exit. The foreground session is the one set with `session.setForeground`, or else the one
 * an application opened last. A failing extension is reported as a `session.warning`
 * (`warningType: "extension"`); the session goes on without it.
 *
 * @example
 * host.sessionOpened(sessionId);           // after session.create / session.resume
 * await host.ready(sessionId);             // before a turn: extensions have joined (or failed)
 * await host.stopAll();                    // at exit
 */
export class ExtensionHost {
  private loaded: Loaded | undefined;
  private explicitForeground: string | undefined;
  /** The session the extensions should run for: the latest switch asked for it. */
  private target: string | undefined;
  /** The session whose extensions were last looked for (and started, if it has any). */
  private settledFor: string | undefined;
  /** Switches run one after another. */
  private queue: Promise<void> = Promise.resolve();
  private readonly joinTimeoutMs: number;
  private readonly killOnExit = () => this.killNow();
  private exitHookInstalled = false;
  private readonly disabled: boolean;

  constructor(private readonly options: ExtensionHostOptions) {
    const timeout = Number(options.env.TANDEM_EXTENSION_JOIN_TIMEOUT_MS);
    this.joinTimeoutMs = Number.isFinite(timeout) && timeout > 0 ? timeout : defaultJoinTimeoutMs;
    this.disabled = /^(0|false|off|no)$/i.test(options.env.TANDEM_EXTENSIONS ?? "");
  }

  /** An application created or resumed a session: it becomes the extensions' session unless a foreground was set. */
  sessionOpened(sessionId: string): void {
    if (this.explicitForeground !== undefined && this.explicitForeground !== sessionId) return;
    this.switchTo(sessionId);
  }

  /** `session.setForeground`: the extensions move to this session. */
  foregroundChanged(sessionId: string): void {
    this.explicitForeground = sessionId;
    this.switchTo(sessionId);
  }

  /** Resolves once the session's extensions have joined or failed (at once for other sessions). */
  async ready(sessionId: string): Promise<void> {
    // A session the extensions are neither running for nor moving to has none to wait for.
    if (this.target !== sessionId && this.loaded?.sessionId !== sessionId) return;
    await this.queue;
    if (this.loaded?.sessionId === sessionId) await this.loaded.ready;
  }

  /** The extensions running for `sessionId`. */
  list(sessionId: string): ExtensionInfo[] {
    if (this.loaded?.sessionId !== sessionId) return [];
    return this.loaded.processes.map(describe);
  }

  /** `session.extensions.reload`: stops and rediscovers the session's extensions. */
  reload(sessionId: string): Promise<void> {
    return this.enqueue(async () => {
      await this.stopLoaded();
      await this.load(sessionId);
      this.settledFor = sessionId;
    });
  }

  /**
   * An application client went away or left a session: when the extensions' session has no other
   * client left, they stop (and the session, then held by nobody, is released).
   */
  applicationLeft(): void {
    void this.enqueue(async () => {
      const loaded = this.loaded;
      if (!loaded) return;
      const session = this.options.findSession(loaded.sessionId);
      const held = session ? session.emitter.sinkCount - loaded.links.filter((link) => session.isAttached(link)).length : 0;
      if (held <= 0) await this.stopLoaded();
    });
  }

  /** Stops every extension (runtime exit). */
  stopAll(): Promise<void> {
    return this.enqueue(() => this.stopLoaded());
  }

  /**
   * Moves the extensions to `sessionId`. Switches asked for while others are under way collapse
   * into one to the latest session: creating ten sessions in a row starts the extensions of the
   * last one, not of each in turn (and a project without extensions looks for them once).
   */
  private switchTo(sessionId: string): void {
    this.target = sessionId;
    void this.enqueue(async () => {
      const target = this.target;
      if (target === undefined || target === this.settledFor) return;
      await this.stopLoaded();
      await this.load(target);
      this.settledFor = target;
    });
  }

  private enqueue(step: () => Promise<void>): Promise<void> {
    const next = this.queue.then(step).catch((error: unknown) => this.options.logger.error("extension host failed", error));
    this.queue = next;
    return next;
  }

  private async load(sessionId: string): Promise<void> {
    const { options } = this;
    const session = options.findSession(sessionId);
    if (!session || this.disabled || !session.extensionsWanted) return;
    const specs = await discoverExtensions(session.workingDirectory, options.home);
    if (specs.length === 0) return;
    const preload = findSdkPreload();
    if (!preload) options.logger.warn("the extension SDK bundle is missing (run build.mjs); extensions must bring their own SDK");
    const env = extensionEnv(options.env, sessionId, options.authTokenEnv);
    const links: Loaded["links"] = [];
    const processes = specs.map((spec) => {
      // `connect` runs inside the constructor; `onJoined` only later, once `started` is set.
      let started: ExtensionProcess | undefined = undefined;
      started = new ExtensionProcess({
        spec,
        execPath: process.execPath,
        execArgs: preload ? ["--import", preload] : [],
        cwd: session.workingDirectory,
        env,
        joinTimeoutMs: this.joinTimeoutMs,
        killGraceMs,
        logger: options.logger,
        connect: (input, output) => {
          const link = options.connect(input, output, spec.id, () => {
            started?.markJoined();
            this.announce();
          });
          links.push(link);
          return link;
        },
        onFailed: (message) => this.report(sessionId, spec, message),
      });
      return started;
    });
    this.loaded = { sessionId, processes, links, ready: Promise.all(processes.map((started) => started.settled)).then(() => undefined) };
    this.installExitHook();
    options.logger.info(`session ${sessionId}: started ${specs.length} extension(s): ${specs.map((spec) => spec.id).join(", ")}`);
    this.announce();
  }

  private async stopLoaded(): Promise<void> {
    this.settledFor = undefined;
    const loaded = this.loaded;
    if (!loaded) return;
    this.loaded = undefined;
    await Promise.all(loaded.processes.map((running) => running.stop()));
    this.removeExitHook();
    this.options.logger.info(`session ${loaded.sessionId}: extensions stopped`);
  }

  /** `session.extensions_loaded` (ephemeral) with every extension's status. */
  private announce(): void {
    const loaded = this.loaded;
    if (!loaded) return;
    const session = this.options.findSession(loaded.sessionId);
    session?.emitter.emit("session.extensions_loaded", { extensions: loaded.processes.map(({ spec, status }) => ({ id: spec.id, name: spec.name, source: spec.source, status })) });
  }

  private report(sessionId: string, spec: ExtensionSpec, message: string): void {
    const text = `Extension ${spec.id} ${message}`;
    this.options.logger.warn(`session ${sessionId}: ${text}`);
    this.options.findSession(sessionId)?.emitter.emit("session.warning", { warningType: "extension", message: text });
    if (this.loaded?.sessionId === sessionId) this.announce();
  }

  /** While extensions run, a runtime exit (even a forced one) takes them with it. */
  private installExitHook(): void {
    if (this.exitHookInstalled) return;
    process.once("exit", this.killOnExit);
    this.exitHookInstalled = true;
  }

  private removeExitHook(): void {
    if (!this.exitHookInstalled) return;
    process.removeListener("exit", this.killOnExit);
    this.exitHookInstalled = false;
  }

  private killNow(): void {
    for (const running of this.loaded?.processes ?? []) running.killNow();
  }
}

function describe(running: ExtensionProcess): ExtensionInfo {
  const { spec } = running;
  return { id: spec.id, name: spec.name, source: spec.source, status: running.status, ...(running.pid !== undefined ? { pid: running.pid } : {}) };
}
