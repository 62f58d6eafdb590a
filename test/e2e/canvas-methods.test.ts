/**
 * `session.canvas.*` through the official SDK 1.0.x against the built `tandem`: a client declares a
 * canvas with `createCanvas`; the runtime lists it, forwards open / action / close to that client's
 * handlers, keeps the open instances, and answers typed errors for what is not declared or not open.
 */
import { approveAll, createCanvas } from "copilot-sdk-v1";
import type { CopilotClient as V1Client } from "copilot-sdk-v1";
import { describe, expect, it } from "vitest";
import { officialClientFixture, officialV1Client } from "../helpers/official-client.js";
import { ErrorCodes } from "@tandem/protocol/errors";

const { InvalidParams } = ErrorCodes;

const fixture = officialClientFixture(officialV1Client);

function counterCanvas(calls: Array<{ kind: string; context: Record<string, unknown> }>) {
  return createCanvas({
    id: "counter",
    displayName: "Counter",
    description: "Counts.",
    inputSchema: { type: "object", properties: { startValue: { type: "number" } } },
    actions: [
      {
        name: "increment",
        description: "Adds to the counter",
        handler: (context) => {
          calls.push({ kind: "action", context: { ...context } });
          const amount = (context.input as { amount?: number } | undefined)?.amount ?? 1;
          return { newValue: 10 + amount };
        },
      },
    ],
    open: (context) => {
      calls.push({ kind: "open", context: { ...context } });
      return { url: "https://example.test/counter", title: "Counter", status: "ready" };
    },
    onClose: (context) => {
      calls.push({ kind: "close", context: { ...context } });
    },
  });
}

describe("session.canvas.* (official SDK 1.0.x)", () => {
  it("lists the declared canvas; open, invoke and close reach the declaring client; open instances are tracked", async () => {
    await fixture.startWorld(["plain-reply"]);
    const calls: Array<{ kind: string; context: Record<string, unknown> }> = [];
    const client = fixture.client() as unknown as V1Client;
    const session = await client.createSession({ onPermissionRequest: approveAll, canvases: [counterCanvas(calls)] });

    const { canvases } = await session.rpc.canvas.list();
    expect(canvases).toHaveLength(1);
    expect(canvases[0]).toMatchObject({ canvasId: "counter", displayName: "Counter", description: "Counts.", actions: [{ name: "increment", description: "Adds to the counter" }] });
    const extensionId = canvases[0]!.extensionId;
    expect(extensionId).toBeTruthy();
    expect((await session.rpc.canvas.listOpen()).openCanvases).toEqual([]);

    const opened = await session.rpc.canvas.open({ canvasId: "counter", instanceId: "c-1", input: { startValue: 10 } });
    expect(opened).toMatchObject({ instanceId: "c-1", canvasId: "counter", extensionId, url: "https://example.test/counter", title: "Counter", status: "ready", input: { startValue: 10 } });
    expect(calls[0]).toMatchObject({ kind: "open", context: { sessionId: session.sessionId, extensionId, canvasId: "counter", instanceId: "c-1", input: { startValue: 10 } } });
    expect((await session.rpc.canvas.listOpen()).openCanvases).toEqual([opened]);

    const invoked = await session.rpc.canvas.action.invoke({ instanceId: "c-1", actionName: "increment", input: { amount: 5 } });
    expect(invoked).toEqual({ result: { newValue: 15 } });
    expect(calls[1]).toMatchObject({ kind: "action", context: { canvasId: "counter", instanceId: "c-1", actionName: "increment", input: { amount: 5 } } });

    await session.rpc.canvas.close({ instanceId: "c-1" });
    expect(calls[2]).toMatchObject({ kind: "close", context: { canvasId: "counter", instanceId: "c-1" } });
    expect((await session.rpc.canvas.listOpen()).openCanvases).toEqual([]);
    expect(calls).toHaveLength(3);
  });

  it("answers invalid params for an undeclared canvas, an unknown action and an instance that is not open; the client is not called", async () => {
    await fixture.startWorld(["plain-reply"]);
    const calls: Array<{ kind: string; context: Record<string, unknown> }> = [];
    const client = fixture.client() as unknown as V1Client;
    const session = await client.createSession({ onPermissionRequest: approveAll, canvases: [counterCanvas(calls)] });
    await expect(session.rpc.canvas.open({ canvasId: "chart", instanceId: "x" })).rejects.toMatchObject({ code: InvalidParams, message: expect.stringContaining("No canvas 'chart'") });
    await expect(session.rpc.canvas.close({ instanceId: "never-opened" })).rejects.toMatchObject({ code: InvalidParams, message: expect.stringContaining("No open canvas instance 'never-opened'") });
    await expect(session.rpc.canvas.action.invoke({ instanceId: "never-opened", actionName: "increment" })).rejects.toMatchObject({ code: InvalidParams });
    await session.rpc.canvas.open({ canvasId: "counter", instanceId: "c-2" });
    await expect(session.rpc.canvas.action.invoke({ instanceId: "c-2", actionName: "explode" })).rejects.toMatchObject({ code: InvalidParams, message: expect.stringContaining("no action 'explode'") });
    expect(calls.map((call) => call.kind)).toEqual(["open"]);
  });

  it("a session without declared canvases lists none", async () => {
    await fixture.startWorld(["plain-reply"]);
    const client = fixture.client() as unknown as V1Client;
    const session = await client.createSession({ onPermissionRequest: approveAll });
    expect(await session.rpc.canvas.list()).toEqual({ canvases: [] });
  });
});
