import { CanvasDeclaration, CommandRegistration, FactoryMeta, type SessionCreateParams, type ToolDefinition } from "@tandem/protocol";
import type { ClientNeed, ClientPort } from "./client-port.js";

/**
 * What one client brought when it created or resumed a session: the handlers it can answer with.
 * Everything else in `session.create` / `session.resume` (model, provider, systemMessage text,
 * availableTools / excludedTools, MCP servers, agents, skills, working directory) is per session:
 * the last client to send a field sets it for everyone.
 */
export interface ClientRegistration {
  /** Its custom tools (`tools`): the session offers the union over connected clients. */
  readonly tools: readonly ToolDefinition[];
  /** It answers permission requests (`requestPermission`, default true). */
  readonly requestPermission: boolean;
  /** It answers `userInput.request` (`requestUserInput`): `ask_user` exists while one such client is connected. */
  readonly requestUserInput: boolean;
  /** It answers `hooks.invoke` (`hooks`). */
  readonly hooks: boolean;
  /** It wants streaming deltas (`streaming`): deltas are emitted while one such client is connected. */
  readonly streaming: boolean;
  /** It sent a `systemMessage`, so its transform callbacks answer `systemMessage.transform`. */
  readonly systemMessage: boolean;
  /** Its `provider` or one of its `providers` has `hasBearerTokenProvider`: it answers `providerToken.getToken`. */
  readonly providerToken: boolean;
  /** It answers elicitations (1.0.x `requestElicitation`): the session's `ui.elicitation` capability. */
  readonly requestElicitation: boolean;
  /** It answers `exitPlanMode.request` (1.0.x `requestExitPlanMode`, set by `onExitPlanModeRequest`). */
  readonly requestExitPlanMode: boolean;
  /** Its slash commands (1.0.x `commands`): run by this client when invoked (`command.execute`). */
  readonly commands: readonly CommandRegistration[];
  /** The canvases it renders (1.0.x `canvases`): opened and acted on through it. */
  readonly canvases: readonly CanvasDeclaration[];
  /** It answers `autoModeSwitch.request` (1.0.x `requestAutoModeSwitch`, set by `onAutoModeSwitchRequest`). */
  readonly requestAutoModeSwitch: boolean;
  /** The agent factories it runs (1.0.x `factories`, from an extension): executed through it (`factory.execute`). */
  readonly factories: readonly FactoryMeta[];
}

/** The per-client part of `session.create` / `session.resume` params. */
export function registrationOf(params: SessionCreateParams): ClientRegistration {
  return {
    tools: params.tools ?? [],
    requestPermission: params.requestPermission !== false,
    requestUserInput: params.requestUserInput === true,
    hooks: params.hooks === true,
    streaming: params.streaming === true,
    systemMessage: params.systemMessage !== undefined,
    providerToken: params.provider?.hasBearerTokenProvider === true || (params.providers ?? []).some((provider) => provider.hasBearerTokenProvider === true),
    requestElicitation: (params as { requestElicitation?: unknown }).requestElicitation === true,
    requestExitPlanMode: params.requestExitPlanMode === true,
    commands: CommandRegistration.array().safeParse((params as { commands?: unknown }).commands).data ?? [],
    canvases: CanvasDeclaration.array().safeParse((params as { canvases?: unknown }).canvases).data ?? [],
    requestAutoModeSwitch: (params as { requestAutoModeSwitch?: unknown }).requestAutoModeSwitch === true,
    factories: FactoryMeta.array().safeParse((params as { factories?: unknown }).factories).data ?? [],
  };
}

/** The per-client `session.resume` params that register `registration` again (a client attached anew after a node stepped down). */
export function resumeParamsOf(registration: ClientRegistration): Record<string, unknown> {
  return {
    tools: [...registration.tools],
    requestPermission: registration.requestPermission,
    requestUserInput: registration.requestUserInput,
    hooks: registration.hooks,
    streaming: registration.streaming,
    requestElicitation: registration.requestElicitation,
    requestExitPlanMode: registration.requestExitPlanMode,
    requestAutoModeSwitch: registration.requestAutoModeSwitch,
    commands: [...registration.commands],
    canvases: [...registration.canvases],
  };
}

/**
 * The clients attached to one session and what each registered. A client that resumes again
 * replaces its own registration (and becomes the most recent); a client that detaches takes its
 * registration — its tools and handlers — with it.
 *
 * Rules: custom tools are the union over clients; a name two clients register is one tool with the
 * most recent registration's definition, and either client may be asked to run it. Flags
 * (`requestUserInput`, `hooks`, `streaming`, `requestPermission`) hold while any connected
 * client set them. A request that needs a client goes to the most recently registered open
 * client able to answer it.
 *
 * @example
 * clients.register(port, registrationOf(params));
 * const config = clients.overlay(mergedConfig);
 * clients.clientFor({ kind: "tool", toolName: "deploy" })?.sendRequest("tool.call", …);
 */
export class SessionClients {
  /** In registration order: the last entry is the most recent. */
  private readonly registrations = new Map<ClientPort, ClientRegistration>();
  /** Called after each registration (see {@link whenAble}). */
  private readonly registered = new Set<() => void>();

  /** Records (or replaces) what a client registered; it becomes the most recent. */
  register(port: ClientPort, registration: ClientRegistration): void {
    this.registrations.delete(port);
    this.registrations.set(port, registration);
    for (const listener of [...this.registered]) listener();
  }

  /**
   * The client able to answer `need` now, else the first one that registers within `timeoutMs`
   * (undefined when none did, or `signal` aborted).
   */
  whenAble(need: ClientNeed, timeoutMs: number, signal?: AbortSignal): Promise<ClientPort | undefined> {
    const now = this.clientFor(need);
    if (now || timeoutMs <= 0 || signal?.aborted) return Promise.resolve(now);
    return new Promise((resolve) => {
      const finish = (port: ClientPort | undefined): void => {
        clearTimeout(timer);
        this.registered.delete(check);
        signal?.removeEventListener("abort", onAbort);
        resolve(port);
      };
      const check = (): void => {
        const port = this.clientFor(need);
        if (port) finish(port);
      };
      const onAbort = (): void => finish(undefined);
      const timer = setTimeout(() => finish(undefined), timeoutMs);
      timer.unref();
      this.registered.add(check);
      signal?.addEventListener("abort", onAbort, { once: true });
    });
  }

  /** The attached clients with what each registered, the most recent last. */
  attached(): Array<[ClientPort, ClientRegistration]> {
    return [...this.registrations];
  }

  /** What a client registered, if it is registered. */
  registrationOf(port: ClientPort): ClientRegistration | undefined {
    return this.registrations.get(port);
  }

  /** Forgets a client. */
  remove(port: ClientPort): void {
    this.registrations.delete(port);
  }

  /** The number of registered clients. */
  get size(): number {
    return this.registrations.size;
  }

  /** The union of the clients' custom tools, in first-registration order, each with its most recent definition. */
  tools(): ToolDefinition[] {
    const byName = new Map<string, ToolDefinition>();
    for (const registration of this.registrations.values()) {
      for (const tool of registration.tools) byName.set(tool.name, tool);
    }
    return [...byName.values()];
  }

  /** The slash commands the connected clients registered (the most recent registration of a name wins). */
  commands(): CommandRegistration[] {
    const byName = new Map<string, CommandRegistration>();
    for (const [port, registration] of this.registrations) {
      if (!port.isOpen) continue;
      for (const command of registration.commands) byName.set(command.name.toLowerCase(), command);
    }
    return [...byName.values()];
  }

  /** The canvases the connected clients declared, each with its client (the most recently registered client last). */
  declaredCanvases(): Array<{ owner: ClientPort; declaration: CanvasDeclaration }> {
    return [...this.registrations].flatMap(([port, registration]) => (port.isOpen ? registration.canvases.map((declaration) => ({ owner: port, declaration })) : []));
  }

  /** The agent factories the connected clients declared, each with its client (the most recently registered client last). */
  declaredFactories(): Array<{ owner: ClientPort; meta: FactoryMeta }> {
    return [...this.registrations].flatMap(([port, registration]) => (port.isOpen ? registration.factories.map((meta) => ({ owner: port, meta })) : []));
  }

  /** Whether a connected client registered this custom tool. */
  provides(toolName: string): boolean {
    return this.clientFor({ kind: "tool", toolName }) !== undefined;
  }

  /** Whether a connected client answers elicitations (the `ui.elicitation` capability). */
  get anyAnswersElicitation(): boolean {
    return [...this.registrations].some(([port, registration]) => port.isOpen && registration.requestElicitation);
  }

  /** Whether a connected client registered permission handling. */
  get anyAnswersPermissions(): boolean {
    return this.clientFor({ kind: "permission" }) !== undefined;
  }

  /** The clients whose hooks run: the most recent application client with hooks, then extensions in the order they joined. */
  hookClients(): ClientPort[] {
    const withHooks = [...this.registrations].filter(([port, registration]) => port.isOpen && registration.hooks).map(([port]) => port);
    const application = withHooks.filter((port) => port.extensionId === undefined).at(-1);
    return [...(application ? [application] : []), ...withHooks.filter((port) => port.extensionId !== undefined)];
  }

  /** The most recently registered open client that can answer `need`. */
  clientFor(need: ClientNeed): ClientPort | undefined {
    const entries = [...this.registrations];
    for (let index = entries.length - 1; index >= 0; index--) {
      const [port, registration] = entries[index]!;
      if (port.isOpen && answers(registration, need)) return port;
    }
    return undefined;
  }

  /**
   * The session config with the per-client fields replaced by what the clients registered
   * together. Without clients the config is returned as it is (a session being opened).
   */
  overlay(config: SessionCreateParams): SessionCreateParams {
    if (this.registrations.size === 0) return config;
    const all = [...this.registrations.values()];
    return {
      ...config,
      tools: this.tools(),
      requestPermission: all.some((registration) => registration.requestPermission),
      requestUserInput: all.some((registration) => registration.requestUserInput),
      hooks: all.some((registration) => registration.hooks),
      streaming: all.some((registration) => registration.streaming),
    };
  }
}

function answers(registration: ClientRegistration, need: ClientNeed): boolean {
  switch (need.kind) {
    case "tool":
      return registration.tools.some((tool) => tool.name === need.toolName);
    case "permission":
      return registration.requestPermission;
    case "userInput":
      return registration.requestUserInput;
    case "hooks":
      return registration.hooks;
    case "systemMessage":
      return registration.systemMessage;
    case "providerToken":
      return registration.providerToken;
    case "exitPlanMode":
      return registration.requestExitPlanMode;
    case "autoModeSwitch":
      return registration.requestAutoModeSwitch;
    case "command":
      return registration.commands.some((command) => command.name.toLowerCase() === need.name.toLowerCase());
  }
}
