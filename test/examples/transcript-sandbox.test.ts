/** The chat sample's lines for the sandbox: where a shell command will run when asked, and where it ran. */
import type { PermissionRequest, SessionEvent } from "@tandem/sdk";
import { describe, expect, it } from "vitest";
import { shellRequestText, toolResultText } from "../../examples/src/transcript.js";

type Complete = Extract<SessionEvent, { type: "tool.execution_complete" }>;
type ShellRequest = Extract<PermissionRequest, { kind: "shell" }>;
const plain = (text: string) => text.replace(/\x1b\[\d+m/g, "");
const complete = (data: Partial<Complete["data"]>): Complete =>
  ({ id: "e1", timestamp: "2026-01-01T00:00:00.000Z", parentId: null, type: "tool.execution_complete", data: { toolCallId: "c1", success: true, ...data } }) as Complete;
const shell = (extra: Partial<ShellRequest>): ShellRequest =>
  ({ kind: "shell", fullCommandText: "make test", intention: "Run the tests", commands: [{ identifier: "make test", readOnly: false }], possiblePaths: [], ...extra }) as ShellRequest;

describe("the chat sample and the sandbox", () => {
  it("says under a bash result whether it ran sandboxed, and nothing for tools that do not say", () => {
    expect(plain(toolResultText(complete({ sandboxed: true, result: { content: "ok" } })))).toBe("  │ ok\n  [sandboxed]\n");
    expect(plain(toolResultText(complete({ sandboxed: false, success: false, error: { message: "The sandbox cannot start" } })))).toBe("[The sandbox cannot start]\n  [not sandboxed]\n");
    expect(plain(toolResultText(complete({ result: { content: "ok" } })))).toBe("  │ ok\n");
  });

  it("asks for a shell command saying where it will run, and a bypass with the model's reason", () => {
    expect(shellRequestText(shell({}))).toBe("run `make test`");
    expect(shellRequestText(shell({ sandboxed: true }))).toBe("run `make test` in the sandbox");
    expect(shellRequestText(shell({ sandboxed: false, requestSandboxBypass: true, requestSandboxBypassReason: "needs docker" }))).toBe("run `make test` OUTSIDE the sandbox (needs docker)");
  });
});
