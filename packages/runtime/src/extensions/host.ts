import { existsSync } from "node:fs";
import type { PermissionRequest } from "@tandem/protocol";
import { invalidParams } from "../errors.js";
import type { Logger } from "../log.js";
import type { ClientPort } from "../ports/clients.js";
import type { EventEmitterPort } from "../ports/events.js";
import { heldBackReason, type ConsentSession, type FolderConsent } from "../trust/folder-consent.js";
import { extensionEnv, findSdkPreload } from "./child-env.js";
import { discoverExtensions, extensionRoots, type ExtensionSpec } from "./discovery.js";
import type { ExtensionLink, ExtensionProcess, ExtensionStatus } from "./extension-process.js";

/** What the host needs to know of a session. */
export interface ExtensionSessionView {
  readonly workingDirectory: string;
  readonly emitter: EventEmitterPort;
  isAttached(port: ClientPort): boolean;
  /** False when the application opted out (1.0.x `requestExtensions: false`). */
  readonly extensionsWanted: boolean;
  /** The session's permission path, asked before a project extension starts. */
  readonly consent: ConsentSession;
  /**
   * The SDK folder the application chose for its extensions (1.0.x `extensionSdkPath`): what an
   * extension importing `@github/copilot-sdk[/extension]` gets when it installed no SDK itself.
   */
  readonly extensionSdkPath?: string;
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
  /** Decides whether an extension from the working folder may start. */
  consent: FolderConsent;
  findSession(sessionId: string): ExtensionSessionView | undefined;
  /**
   * Serves an extension's stdio as a client connection of the runtime; `onJoined` runs when its
   * `session.resume` (what `joinSession()` sends) succeeded.
   */
  connect(input: NodeJS.ReadableStream, output: NodeJS.WritableStream, extensionId: string, onJoined: () => void): ExtensionLink & ClientPort;
}

/** One extension as `session.extensions.list` and `session.extensions_loaded` report it (`disabled`: held back, not consented to). */
export type ExtensionInfo = {
  id: string;
  name: string;
  source: ExtensionSpec["source"];
  status: ExtensionStatus | "disabled";
  pid?: number;
};

/** How long an extension may take to join, unless `TANDEM_EXTENSION_JOIN_TIMEOUT_MS` says otherwise. */
const defaultJoinTimeoutMs = 10_000;
/** SIGTERM, then SIGKILL after this long. */
const killGraceMs = 5_000;

interface Loaded {
  sessionId: string;
  processes: ExtensionProcess[];
  /** Project extensions not started: nobody consented. */
  heldBack: ExtensionSpec[];
  links: Array<ExtensionLink & ClientPort>;
  ready: Promise<void>;
}

/**
 * Runs the extensions of the foreground session: discovers them, starts each as a
 * child process connected over stdio, restarts them when the foreground session changes, and stops
 * them at exit. The foreground session is the one set with `session.setForeground`, or else the one
 * an application opened last. A failing extension is reported as a `session.warning`
 * (`warningType: "extension"`); the session goes on without it.
 *
 * An extension from the working folder (`.github/extensions`, source `project`) is code the folder
 * brings, so it starts only with consent (see {@link FolderConsent}): an `extension-management`
 * permission request (`operation: "start"`) the application approves, asked once each time the
 * session's extensions load, or the user's opt-in. Nothing of it is read or run before the answer.
 * Held back, it is listed as `disabled` and a `session.warning` names it and the ways to allow it.
 * The user's own extensions (`<home>/extensions`) start without a question.
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
  /** Extensions turned off with `session.extensions.disable` (by id), for the runtime's lifetime. */
  private readonly turnedOff = new Set<string>();
  /** Aborts the consent questions under way (runtime exit, or the extensions moving to another session). */
  private asking: AbortController | undefined;

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
    return [...this.loaded.processes.map(describe), ...this.loaded.heldBack.map(describeHeldBack)];
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
   * Why the session's extensions cannot be managed, or undefined when they can: extensions are off
   * for the runtime or the session, or neither extension folder exists.
   */
  unavailableReason(sessionId: string): string | undefined {
    const session = this.options.findSession(sessionId);
    if (!session) return "the session is not open";
    if (this.disabled) return "TANDEM_EXTENSIONS turns them off for this runtime";
    if (!session.extensionsWanted) return "the session did not ask for them (requestExtensions: false)";
    const roots = extensionRoots(session.workingDirectory, this.options.home);
    if (roots.some(({ dir }) => existsSync(dir))) return undefined;
    return `no extension folder exists (${roots.map(({ dir }) => dir).join(", ")})`;
  }

  /**
   * `session.extensions.enable` / `disable`: turns a discovered extension on or off (for the
   * runtime's lifetime) and reloads the session's extensions. Throws for an unknown id.
   */
  async setEnabled(sessionId: string, extensionId: string, enabled: boolean): Promise<void> {
    const session = this.options.findSession(sessionId);
    if (!session) return;
    const discovered = await discoverExtensions(session.workingDirectory, this.options.home);
    if (!discovered.some((spec) => spec.id === extensionId)) {
      throw invalidParams(`Extension not found: ${extensionId} (found: ${discovered.map((spec) => spec.id).join(", ") || "none"})`, { id: extensionId });
    }
    if (enabled) this.turnedOff.delete(extensionId);
    else this.turnedOff.add(extensionId);
    await this.reload(sessionId);
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
    this.asking?.abort();
    return this.enqueue(() => this.stopLoaded());
  }

  /**
   * Moves the extensions to `sessionId`. Switches asked for while others are under way collapse
   * into one to the latest session: creating ten sessions in a row starts the extensions of the
   * last one, not of each in turn (and a project without extensions looks for them once).
   */
  private switchTo(sessionId: string): void {
    if (this.target !== sessionId) this.asking?.abort();
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
    const discovered = await discoverExtensions(session.workingDirectory, options.home);
    if (discovered.length === 0) return;
    // The process code loads with the first session that has extensions to start.
    const { ExtensionProcess } = await import("./extension-process.js");
    const turnedOff = discovered.filter((spec) => this.turnedOff.has(spec.id));
    const wanted = discovered.filter((spec) => !this.turnedOff.has(spec.id));
    const { allowed: specs, heldBack: notConsented, cancelled } = await this.consented(sessionId, session, wanted);
    const heldBack = [...notConsented, ...turnedOff];
    // The runtime is exiting, the extensions moved on, or the session closed while the application was asked.
    if (cancelled || !options.findSession(sessionId)) return;
    const preload = findSdkPreload();
    if (!preload) options.logger.warn("the extension SDK bundle is missing (run build.mjs); extensions must bring their own SDK");
    const env = extensionEnv(options.env, sessionId, options.authTokenEnv, session.extensionSdkPath);
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
    this.loaded = { sessionId, processes, heldBack, links, ready: Promise.all(processes.map((started) => started.settled)).then(() => undefined) };
    if (processes.length > 0) {
      this.installExitHook();
      this.sessionLog(sessionId).info(`started ${specs.length} extension(s): ${specs.map((spec) => spec.id).join(", ")}`);
    }
    this.announce();
  }

  /**
   * Splits the discovered extensions into those that may start and those held back. User
   * extensions may; each project extension needs consent, asked one after another.
   */
  private async consented(
    sessionId: string,
    session: ExtensionSessionView,
    specs: readonly ExtensionSpec[],
  ): Promise<{ allowed: ExtensionSpec[]; heldBack: ExtensionSpec[]; cancelled: boolean }> {
    const allowed: ExtensionSpec[] = [];
    const heldBack: ExtensionSpec[] = [];
    if (!specs.some((spec) => spec.source === "project")) return { allowed: [...specs], heldBack, cancelled: false };
    const asking = new AbortController();
    this.asking = asking;
    try {
      for (const spec of specs) {
        if (spec.source === "user") {
          allowed.push(spec);
          continue;
        }
        const request: PermissionRequest = {
          kind: "extension-management",
          operation: "start",
          extensionName: spec.name,
          extensionId: spec.id,
          path: spec.entry,
          workingDirectory: session.workingDirectory,
        };
        const decision = await this.options.consent.decide(session.workingDirectory, request, session.consent, asking.signal);
        if (asking.signal.aborted) return { allowed: [], heldBack: [], cancelled: true };
        if (decision.allowed) {
          this.sessionLog(sessionId).info(`extension ${spec.id} may start (${decision.grant})`);
          allowed.push(spec);
          continue;
        }
        heldBack.push(spec);
        this.holdBack(sessionId, session, spec, heldBackReason(decision.result));
      }
    } finally {
      if (this.asking === asking) this.asking = undefined;
    }
    return { allowed, heldBack, cancelled: false };
  }

  /** Says which extension was not started, why, and how to allow it. */
  private holdBack(sessionId: string, session: ExtensionSessionView, spec: ExtensionSpec, reason: string): void {
    const text = `Extension ${spec.id} (${spec.entry}) was not started: it comes from the working folder ${session.workingDirectory} and ${reason}. ${this.options.consent.howToAllow(session.workingDirectory)}`;
    this.sessionLog(sessionId).warn(text);
    session.emitter.emit("session.warning", { warningType: "extension", message: text });
  }

  private async stopLoaded(): Promise<void> {
    this.settledFor = undefined;
    const loaded = this.loaded;
    if (!loaded) return;
    this.loaded = undefined;
    await Promise.all(loaded.processes.map((running) => running.stop()));
    this.removeExitHook();
    this.sessionLog(loaded.sessionId).info("extensions stopped");
  }

  /** The runtime's logger with `sessionId` on each line. */
  private sessionLog(sessionId: string): Logger {
    return this.options.logger.child(() => ({ sessionId }));
  }

  /** `session.extensions_loaded` (ephemeral) with every extension's status. */
  private announce(): void {
    const loaded = this.loaded;
    if (!loaded) return;
    const session = this.options.findSession(loaded.sessionId);
    const extensions = [...loaded.processes.map(({ spec, status }) => ({ id: spec.id, name: spec.name, source: spec.source, status })), ...loaded.heldBack.map(describeHeldBack)];
    session?.emitter.emit("session.extensions_loaded", { extensions });
  }

  private report(sessionId: string, spec: ExtensionSpec, message: string): void {
    const text = `Extension ${spec.id} ${message}`;
    this.sessionLog(sessionId).warn(text);
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

function describeHeldBack(spec: ExtensionSpec): ExtensionInfo {
  return { id: spec.id, name: spec.name, source: spec.source, status: "disabled" };
}

function describe(running: ExtensionProcess): ExtensionInfo {
  const { spec } = running;
  return { id: spec.id, name: spec.name, source: spec.source, status: running.status, ...(running.pid !== undefined ? { pid: running.pid } : {}) };
}
