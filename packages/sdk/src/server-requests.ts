import {
  HooksInvoke,
  PermissionRequestV2,
  SessionEventNotification,
  SessionLifecycleNotification,
  ToolCallV2,
  UserInputRequest,
  type SessionEvent,
  type SessionLifecycleEvent,
} from "@tandem/protocol";
import type { MessageConnection } from "vscode-jsonrpc/node.js";
import type { PermissionRequest } from "./permissions.js";
import type { SessionBackend } from "./session-backend.js";

/** The runtime asks the client that registered `onExitPlanModeRequest` to review a plan (1.0.x name). */
const EXIT_PLAN_MODE_REQUEST_METHOD = "exitPlanMode.request";

/** Not in the protocol package yet: the runtime asks for rewritten system prompt sections. */
const SYSTEM_MESSAGE_TRANSFORM_METHOD = "systemMessage.transform";

/** What the request handlers need from the client. */
export interface ServerRequestRouting {
  findSession(sessionId: string): SessionBackend | undefined;
  onLifecycleEvent(event: SessionLifecycleEvent): void;
}

type Params = Record<string, unknown>;

function isObject(value: unknown): value is Params {
  return typeof value === "object" && value !== null;
}

function optionalString(value: unknown): string | undefined {
  return typeof value === "string" ? value : undefined;
}

/**
 * Registers the runtime-to-client traffic on a connection: the `session.event` and
 * `session.lifecycle` notifications and the `tool.call`, `permission.request` (protocol v2),
 * `userInput.request`, `exitPlanMode.request`, `hooks.invoke` and `systemMessage.transform` requests. Both protocol versions
 * are handled at all times; a v3 runtime simply never sends the v2 requests.
 */
export function attachServerRequests(connection: MessageConnection, routing: ServerRequestRouting): void {
  const sessionFor = (params: Params, notFound: (id: string) => string): SessionBackend => {
    const sessionId = params.sessionId as string;
    const session = routing.findSession(sessionId);
    if (!session) throw new Error(notFound(sessionId));
    return session;
  };

  connection.onNotification(SessionEventNotification.method, (params: unknown) => {
    if (!isObject(params) || typeof params.sessionId !== "string" || !isObject(params.event)) return;
    routing.findSession(params.sessionId)?.dispatch(params.event as SessionEvent);
  });

  connection.onNotification(SessionLifecycleNotification.method, (params: unknown) => {
    if (!isObject(params) || typeof params.type !== "string" || typeof params.sessionId !== "string") return;
    routing.onLifecycleEvent(params as SessionLifecycleEvent);
  });

  connection.onRequest(ToolCallV2.method, async (params: unknown) => {
    if (!isObject(params) || typeof params.sessionId !== "string" || typeof params.toolCallId !== "string" || typeof params.toolName !== "string") {
      throw new Error("Invalid tool call payload");
    }
    const session = sessionFor(params, (id) => `Unknown session ${id}`);
    return session.handleToolCall({
      toolCallId: params.toolCallId,
      toolName: params.toolName,
      arguments: params.arguments,
      traceparent: optionalString(params.traceparent),
      tracestate: optionalString(params.tracestate),
    });
  });

  connection.onRequest(PermissionRequestV2.method, async (params: unknown) => {
    if (!isObject(params) || typeof params.sessionId !== "string" || !params.permissionRequest) {
      throw new Error("Invalid permission request payload");
    }
    const session = sessionFor(params, (id) => `Session not found: ${id}`);
    // A throwing handler is answered with a denial; only a v2-incompatible "no-result" fails the request.
    return { result: await session.handlePermissionRequest(params.permissionRequest as PermissionRequest) };
  });

  connection.onRequest(UserInputRequest.method, async (params: unknown) => {
    if (!isObject(params) || typeof params.sessionId !== "string" || typeof params.question !== "string") {
      throw new Error("Invalid user input request payload");
    }
    const session = sessionFor(params, (id) => `Session not found: ${id}`);
    return session.handleUserInputRequest({
      question: params.question,
      choices: Array.isArray(params.choices) ? (params.choices as string[]) : undefined,
      allowFreeform: typeof params.allowFreeform === "boolean" ? params.allowFreeform : undefined,
    });
  });

  connection.onRequest(EXIT_PLAN_MODE_REQUEST_METHOD, async (params: unknown) => {
    if (!isObject(params) || typeof params.sessionId !== "string" || typeof params.summary !== "string" || !Array.isArray(params.actions)) {
      throw new Error("Invalid exit plan mode request payload");
    }
    const session = sessionFor(params, (id) => `Session not found: ${id}`);
    return session.handleExitPlanModeRequest({
      summary: params.summary,
      planContent: typeof params.planContent === "string" ? params.planContent : "",
      actions: params.actions as string[],
      recommendedAction: typeof params.recommendedAction === "string" ? params.recommendedAction : "",
    });
  });

  connection.onRequest(HooksInvoke.method, async (params: unknown) => {
    if (!isObject(params) || typeof params.sessionId !== "string" || typeof params.hookType !== "string") {
      throw new Error("Invalid hooks invoke payload");
    }
    const session = sessionFor(params, (id) => `Session not found: ${id}`);
    return { output: await session.handleHooksInvoke(params.hookType, params.input) };
  });

  connection.onRequest(SYSTEM_MESSAGE_TRANSFORM_METHOD, async (params: unknown) => {
    if (!isObject(params) || typeof params.sessionId !== "string" || !isObject(params.sections)) {
      throw new Error("Invalid systemMessage.transform payload");
    }
    const session = sessionFor(params, (id) => `Session not found: ${id}`);
    return session.handleSystemMessageTransform(params.sections as Record<string, { content: string }>);
  });
}
