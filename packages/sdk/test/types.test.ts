import { describe, expectTypeOf, it } from "vitest";
import { z } from "zod";
import {
  approveAll,
  defineTool,
  type AssistantMessageEvent,
  type CopilotSession,
  type PermissionHandler,
  type SessionEvent,
  type ToolInvocation,
} from "../src/index.js";

// These checks run under `tsc -p packages/sdk/test`; at runtime they are no-ops.
describe("types", () => {
  it("defineTool infers handler args from a zod schema", () => {
    const tool = defineTool("lookup", {
      parameters: z.object({ id: z.number(), tags: z.array(z.string()).optional() }),
      handler: (args, invocation) => {
        expectTypeOf(args).toEqualTypeOf<{ id: number; tags?: string[] | undefined }>();
        expectTypeOf(invocation).toEqualTypeOf<ToolInvocation>();
        return args.id;
      },
    });
    expectTypeOf(tool.name).toBeString();
  });

  it("session.on narrows data by type", () => {
    const check = (session: CopilotSession) => {
      const off = session.on("assistant.message", (event) => {
        expectTypeOf(event.data.content).toBeString();
        expectTypeOf(event).toEqualTypeOf<AssistantMessageEvent>();
      });
      expectTypeOf(off).toEqualTypeOf<() => void>();
      session.on((event: SessionEvent) => {
        if (event.type === "tool.execution_start") expectTypeOf(event.data.toolName).toBeString();
      });
      // @ts-expect-error unknown event types are rejected
      session.on("no.such_event", () => {});
      expectTypeOf(session.sendAndWait).returns.resolves.toEqualTypeOf<AssistantMessageEvent | undefined>();
    };
    void check;
  });

  it("session.rpc is typed from the protocol tokens", () => {
    const check = async (session: CopilotSession) => {
      const { mode } = await session.rpc.mode.set({ mode: "plan" });
      expectTypeOf(mode).toEqualTypeOf<"interactive" | "plan" | "autopilot">();
      // @ts-expect-error the session id is filled in by the SDK
      await session.rpc.mode.get({ sessionId: "x" });
      // @ts-expect-error a required param is missing
      await session.rpc.workspace.readFile();
    };
    void check;
  });

  it("approveAll is a PermissionHandler", () => {
    expectTypeOf(approveAll).toEqualTypeOf<PermissionHandler>();
  });
});
