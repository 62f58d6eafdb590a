import type { SessionEvent, SessionEventOf } from "@tandem/protocol";
import type { MessageConnection } from "vscode-jsonrpc/node.js";
import { runCommandAndRespond, type CommandDefinition, type CommandHandler } from "./commands.js";
import { HandlerRegistry } from "./handler-registry.js";
import { hookHandlerFor, type SessionHooks } from "./hooks.js";
import {
  DENIED_COULD_NOT_REQUEST,
  NO_RESULT_PERMISSION_V2_ERROR,
  type PermissionHandler,
  type PermissionRequest,
  type PermissionRequestResult,
  type UserInputHandler,
  type UserInputRequest,
  type UserInputResponse,
} from "./permissions.js";
import { createSessionRpc, type SessionRpc } from "./rpc.js";
import { applySectionTransforms, type SectionTransformFn } from "./system-message.js";
import type { TraceContextProvider } from "./telemetry.js";
import {
  errorMessage,
  failedToolResult,
  toToolResultObject,
  toToolResultString,
  unsupportedToolResult,
  type Tool,
  type ToolHandler,
  type ToolInvocation,
  type ToolResultObject,
} from "./tools.js";
import type { SessionEventHandler } from "./types.js";
import type { ElicitationHandler, ExitPlanModeHandler, ExitPlanModeRequest, ExitPlanModeResponse } from "./plan-and-forms.js";
import { SessionUiHandlePendingElicitation } from "@tandem/protocol";

/** The local handlers of a session, as `createSession` / `resumeSession` register them. */
export interface SessionHandlers {
  tools?: Tool<any>[];
  onPermissionRequest: PermissionHandler;
  onUserInputRequest?: UserInputHandler;
  hooks?: SessionHooks;
  transforms?: Map<string, SectionTransformFn>;
  onEvent?: SessionEventHandler;
  onExitPlanModeRequest?: ExitPlanModeHandler;
  onElicitationRequest?: ElicitationHandler;
  commands?: CommandDefinition[];
}

/** Arguments of a v2 `tool.call` request. */
export interface ToolCallRequest {
  toolCallId: string;
  toolName: string;
  arguments: unknown;
  traceparent?: string;
  tracestate?: string;
}

/**
 * The client-side state of one session and its protocol handling: event fan-out, v3 broadcast
 * requests (`external_tool.requested`, `permission.requested`) and the v2 / server-to-client requests
 * the client routes here. Internal: {@link CopilotSession} is the public face.
 */
export class SessionBackend {
  readonly events = new HandlerRegistry<SessionEvent>();
  workspacePath: string | undefined;
  readonly #toolHandlers = new Map<string, ToolHandler<any>>();
  readonly #commandHandlers = new Map<string, CommandHandler>();
  #permissionHandler: PermissionHandler | undefined;
  #userInputHandler: UserInputHandler | undefined;
  #hooks: SessionHooks | undefined;
  #transforms: Map<string, SectionTransformFn> | undefined;
  #exitPlanModeHandler: ExitPlanModeHandler | undefined;
  #elicitationHandler: ElicitationHandler | undefined;
  #rpc: SessionRpc | undefined;
  #connection: MessageConnection;
  /** Ids of the stored events handed out, to resume after a reconnect without gap or duplicate. */
  readonly #seen = new SeenEvents();
  /** Set while the session catches up after a reconnect: live events wait here. */
  #caughtUpLater: SessionEvent[] | undefined;

  constructor(
    readonly sessionId: string,
    connection: MessageConnection,
    handlers: SessionHandlers,
    readonly traceContextProvider: TraceContextProvider | undefined,
    /** Called once the session is disconnected, so the client stops routing to it. */
    readonly onDisconnected: () => void = () => {},
    /** Waits for the client's reconnect under way: true once connected again, false when there is none. */
    readonly awaitReconnect: () => Promise<boolean> = async () => false,
  ) {
    for (const tool of handlers.tools ?? []) this.#toolHandlers.set(tool.name, tool.handler);
    for (const command of handlers.commands ?? []) this.#commandHandlers.set(command.name, command.handler);
    this.#permissionHandler = handlers.onPermissionRequest;
    this.#userInputHandler = handlers.onUserInputRequest;
    this.#hooks = handlers.hooks;
    this.#transforms = handlers.transforms;
    this.#exitPlanModeHandler = handlers.onExitPlanModeRequest;
    this.#elicitationHandler = handlers.onElicitationRequest;
    if (handlers.onEvent) this.events.add(handlers.onEvent);
    this.#connection = connection;
  }

  /** The connection the session's requests go over (replaced when the client reconnects). */
  get connection(): MessageConnection {
    return this.#connection;
  }

  /**
   * Moves the session to a new connection after a reconnect; the live events that arrive until
   * {@link finishCatchUp} wait, so the stored events missed meanwhile go first.
   */
  rebind(connection: MessageConnection): void {
    this.#connection = connection;
    this.#rpc = undefined;
    this.#caughtUpLater ??= [];
  }

  /**
   * Hands out the stored events (the session's history, in order) after the last one this session
   * saw, then the live events that arrived meanwhile; each event once.
   */
  finishCatchUp(stored: readonly SessionEvent[]): void {
    const waiting = this.#caughtUpLater ?? [];
    this.#caughtUpLater = undefined;
    const last = this.#seen.last;
    const from = last === undefined ? 0 : stored.findIndex((event) => event.id === last) + 1;
    for (const event of stored.slice(from)) this.dispatch(event);
    for (const event of waiting) this.dispatch(event);
  }

  /** Session-scoped typed RPC (created on first use). */
  get rpc(): SessionRpc {
    this.#rpc ??= createSessionRpc(this.connection, this.sessionId);
    return this.#rpc;
  }

  /** Drops every local handler (after `session.destroy`). */
  release(): void {
    this.events.clear();
    this.#toolHandlers.clear();
    this.#commandHandlers.clear();
    this.#permissionHandler = undefined;
    this.#userInputHandler = undefined;
    this.#hooks = undefined;
    this.#transforms = undefined;
    this.#exitPlanModeHandler = undefined;
    this.#elicitationHandler = undefined;
    this.onDisconnected();
  }

  /** Handles broadcast requests, then hands the event to the subscribers (each stored event once). */
  dispatch(event: SessionEvent): void {
    if (this.#caughtUpLater) {
      this.#caughtUpLater.push(event);
      return;
    }
    if (event.ephemeral !== true && !this.#seen.add(event.id)) return;
    if (event.type === "external_tool.requested") this.#onToolRequested(event);
    if (event.type === "permission.requested") this.#onPermissionRequested(event);
    // Sent to the registering client alone: an unknown name is answered as an error (as 1.0.x does).
    if (event.type === "command.execute") void runCommandAndRespond(this.rpc, this.sessionId, this.#commandHandlers, event);
    if (event.type === "elicitation.requested") this.#answer(event.data.requestId, this.#elicitationHandler, event.data, SessionUiHandlePendingElicitation.method, (result) => ({ result }));
    this.events.emit(event);
  }

  /**
   * Answers a Tandem request event with the registered handler; a handler that throws answers
   * with a refusal (`stay` for plans, `cancel` for forms). Without a handler, another client may answer.
   */
  #answer<Request extends { requestId: string }, Answer>(
    requestId: string,
    handler: ((request: Omit<Request, "requestId">, invocation: { sessionId: string }) => Promise<Answer> | Answer) | undefined,
    data: Request,
    method: string,
    toParams: (answer: Answer | { action: "cancel" | "stay" }) => object,
  ): void {
    if (!handler) return;
    const { requestId: _id, ...request } = data;
    const refusal = method === SessionUiHandlePendingElicitation.method ? { action: "cancel" as const } : { action: "stay" as const };
    void (async () => {
      let answer: Answer | { action: "cancel" | "stay" };
      try {
        answer = await handler(request, { sessionId: this.sessionId });
      } catch {
        answer = refusal;
      }
      try {
        await this.connection.sendRequest(method, { sessionId: this.sessionId, requestId, ...toParams(answer) });
      } catch {
        // The connection is gone or the request was already answered.
      }
    })();
  }

  #onToolRequested(event: SessionEventOf<"external_tool.requested">): void {
    const { requestId, toolName, toolCallId } = event.data;
    const handler = this.#toolHandlers.get(toolName);
    // Another client connected to the same session may own this tool.
    if (!handler) return;
    const invocation: ToolInvocation = {
      sessionId: this.sessionId,
      toolCallId,
      toolName,
      arguments: event.data.arguments,
      traceparent: stringField(event.data, "traceparent"),
      tracestate: stringField(event.data, "tracestate"),
    };
    void this.#runToolAndRespond(requestId, handler, invocation);
  }

  async #runToolAndRespond(requestId: string, handler: ToolHandler<any>, invocation: ToolInvocation): Promise<void> {
    let answer: { result: string } | { error: string };
    try {
      answer = { result: toToolResultString(await handler(invocation.arguments, invocation)) };
    } catch (error) {
      answer = { error: errorMessage(error) };
    }
    try {
      await this.rpc.tools.handlePendingToolCall({ requestId, ...answer });
    } catch {
      // The connection is gone or the runtime no longer waits for this call: nothing left to do.
    }
  }

  #onPermissionRequested(event: SessionEventOf<"permission.requested">): void {
    const handler = this.#permissionHandler;
    if (!handler) return;
    void this.#decidePermissionAndRespond(event.data.requestId, event.data.permissionRequest, handler);
  }

  async #decidePermissionAndRespond(requestId: string, request: PermissionRequest, handler: PermissionHandler): Promise<void> {
    let result: PermissionRequestResult;
    try {
      result = await handler(request, { sessionId: this.sessionId });
    } catch {
      result = DENIED_COULD_NOT_REQUEST;
    }
    // "no-result": leave the request to another client.
    if (result.kind === "no-result") return;
    try {
      await this.rpc.permissions.handlePendingPermissionRequest({ requestId, result });
    } catch {
      // The connection is gone or the request was already answered.
    }
  }

  /** Protocol v2 `tool.call`: run the handler and answer with a structured result. */
  async handleToolCall(request: ToolCallRequest): Promise<{ result: ToolResultObject }> {
    const handler = this.#toolHandlers.get(request.toolName);
    if (!handler) return { result: unsupportedToolResult(request.toolName) };
    const invocation: ToolInvocation = { sessionId: this.sessionId, ...request };
    try {
      return { result: toToolResultObject(await handler(request.arguments, invocation)) };
    } catch (error) {
      return { result: failedToolResult(error) };
    }
  }

  /** Protocol v2 `permission.request`: the handler's decision; `no-result` is an error here. */
  async handlePermissionRequest(request: PermissionRequest): Promise<Exclude<PermissionRequestResult, { kind: "no-result" }>> {
    const handler = this.#permissionHandler;
    if (!handler) return DENIED_COULD_NOT_REQUEST;
    let result: PermissionRequestResult;
    try {
      result = await handler(request, { sessionId: this.sessionId });
    } catch {
      return DENIED_COULD_NOT_REQUEST;
    }
    if (result.kind === "no-result") throw new Error(NO_RESULT_PERMISSION_V2_ERROR);
    return result;
  }

  /** `userInput.request`: the user input handler's answer. */
  async handleUserInputRequest(request: UserInputRequest): Promise<UserInputResponse> {
    const handler = this.#userInputHandler;
    if (!handler) throw new Error("User input requested but no handler registered");
    return handler(request, { sessionId: this.sessionId });
  }

  /** `exitPlanMode.request`: the registered handler's answer (a handler that throws keeps planning). */
  async handleExitPlanModeRequest(request: ExitPlanModeRequest): Promise<ExitPlanModeResponse> {
    const handler = this.#exitPlanModeHandler;
    if (!handler) throw new Error("Exit plan mode requested but no handler registered");
    try {
      return await handler(request, { sessionId: this.sessionId });
    } catch (error) {
      return { approved: false, feedback: `The exit-plan-mode handler failed: ${error instanceof Error ? error.message : String(error)}` };
    }
  }

  /** `hooks.invoke`: the hook's output, or undefined when there is no such hook or it throws. */
  async handleHooksInvoke(hookType: string, input: unknown): Promise<unknown> {
    const handler = hookHandlerFor(this.#hooks, hookType);
    if (!handler) return undefined;
    try {
      return await handler(input, { sessionId: this.sessionId });
    } catch {
      return undefined;
    }
  }

  /** `systemMessage.transform`: run the section transform callbacks. */
  handleSystemMessageTransform(sections: Record<string, { content: string }>): Promise<{ sections: Record<string, { content: string }> }> {
    return applySectionTransforms(this.#transforms, sections);
  }
}

function stringField(data: object, key: string): string | undefined {
  const value = (data as Record<string, unknown>)[key];
  return typeof value === "string" ? value : undefined;
}

/** How many ids of handed-out stored events are remembered to drop a repeat after a reconnect. */
const SEEN_EVENTS_KEPT = 10_000;

/** The ids of the stored events a session handed out, the most recent {@link SEEN_EVENTS_KEPT}. */
class SeenEvents {
  readonly #ids = new Set<string>();
  #last: string | undefined;

  /** The id of the last stored event handed out. */
  get last(): string | undefined {
    return this.#last;
  }

  /** Records `id`; false when it was handed out already. */
  add(id: string): boolean {
    if (this.#ids.has(id)) return false;
    this.#ids.add(id);
    this.#last = id;
    if (this.#ids.size > SEEN_EVENTS_KEPT) this.#ids.delete(this.#ids.values().next().value as string);
    return true;
  }
}
