import { mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { PermissionResult, SessionEvent } from "@tandem/protocol";
import type { UserInputAnswer, UserInputQuestion } from "../../src/session/user-input.js";
import type { ClientToolReply, ToolContext, ToolPermissionRequest } from "../../src/tools/types.js";

/** An event a tool emitted through its context. */
export interface EmittedEvent {
  type: string;
  data: Record<string, unknown>;
}

/** A ToolContext for unit tests, recording permissions and events. */
export interface FakeContext {
  context: ToolContext;
  permissions: ToolPermissionRequest[];
  events: EmittedEvent[];
  controller: AbortController;
}

export const approve = (): PermissionResult => ({ kind: "approved" });
export const denyAll = (): PermissionResult => ({ kind: "denied-interactively-by-user" });

/** A context in `cwd` whose permission requests are answered by `decide` (approve by default). */
export function fakeContext(
  cwd: string,
  options: {
    decide?: (request: ToolPermissionRequest) => PermissionResult;
    askUser?: (question: UserInputQuestion) => Promise<UserInputAnswer>;
    toolCallId?: string;
  } = {},
): FakeContext {
  const permissions: ToolPermissionRequest[] = [];
  const events: EmittedEvent[] = [];
  const controller = new AbortController();
  const emitter = {
    emit(type: string, data: Record<string, unknown>) {
      events.push({ type, data });
      return { type, data } as unknown as SessionEvent;
    },
    sinkCount: 1,
    addListener: () => () => undefined,
  };
  const context: ToolContext = {
    sessionId: "session-1",
    toolCallId: options.toolCallId ?? "call-1",
    toolName: "test",
    signal: controller.signal,
    workingDirectory: cwd,
    emitter: emitter as unknown as ToolContext["emitter"],
    async requestPermission(request) {
      permissions.push(request);
      return (options.decide ?? approve)(request);
    },
    async callClientTool(): Promise<ClientToolReply> {
      throw new Error("no client tools in unit tests");
    },
    async requestUserInput(question) {
      if (!options.askUser) throw new Error("no user input handler");
      return options.askUser(question);
    },
  };
  return { context, permissions, events, controller };
}

/** A fresh temporary folder (its real path) and a function removing it. */
export function tempDir(prefix = "tandem-tools-"): { path: string; remove(): void } {
  const path = realpathSync(mkdtempSync(join(tmpdir(), prefix)));
  return { path, remove: () => rmSync(path, { recursive: true, force: true }) };
}
