import { afterEach, describe, expect, it } from "vitest";
import type { McpServerConfig } from "@tandem/protocol";
import { McpManager } from "../../src/mcp/manager.js";
import { fixtureTools } from "../../../../test/fixtures/mcp/fixture-server.mjs";
import { startHttpFixture, type HttpFixture } from "../../../../test/fixtures/mcp/http-server.mjs";
import { FakeHost, FixtureLog, toolContext, waitFor } from "./helpers.js";

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function fixture(port = 0): Promise<HttpFixture> {
  const started = await startHttpFixture(port);
  cleanups.push(() => started.close());
  return started;
}

async function startManager(configs: Record<string, McpServerConfig>) {
  const dir = new FixtureLog();
  const host = new FakeHost(dir.dir);
  const manager = new McpManager(configs, host, { connectTimeoutMs: 5_000 });
  cleanups.push(() => dir.remove(), () => manager.dispose());
  await manager.start();
  return { manager, host };
}

function tool(manager: McpManager, name: string) {
  const found = manager.findTool(name);
  if (!found) throw new Error(`no tool ${name}`);
  return found;
}

describe("McpManager over HTTP", () => {
  it("connects to a streamable HTTP server with the configured headers and calls its tools", async () => {
    const server = await fixture();
    const { manager, host } = await startManager({ remote: { type: "http", url: server.url, tools: ["*"], headers: { "x-fixture-token": "secret" } } });

    expect(manager.list()).toEqual([{ name: "remote", status: "connected" }]);
    expect(manager.tools().map((entry) => entry.name)).toEqual(fixtureTools.map((entry) => `remote-${entry.name}`));
    expect(server.requestHeaders.length).toBeGreaterThan(0);
    expect(server.requestHeaders.every((headers) => headers["x-fixture-token"] === "secret")).toBe(true);

    const outcome = await tool(manager, "remote-add").execute({ a: 40, b: 2 }, toolContext(host));
    expect(outcome).toMatchObject({ resultType: "success", textForModel: "42" });
    expect(server.log.filter((entry) => entry.event === "call")).toEqual([{ event: "call", tool: "add", arguments: { a: 40, b: 2 } }]);

    const slow = await tool(manager, "remote-slow").execute({ steps: 2, delayMs: 5 }, toolContext(host, { toolCallId: "call-p" }));
    expect(slow.textForModel).toBe("slow done");
    expect(host.eventsOf("tool.execution_progress")).toEqual([
      { toolCallId: "call-p", progressMessage: "step 1 of 2" },
      { toolCallId: "call-p", progressMessage: "step 2 of 2" },
    ]);

    host.elicitAnswer = async () => ({ action: "accept", content: { name: "Grace" } });
    const elicited = await tool(manager, "remote-elicit").execute({}, toolContext(host, { toolCallId: "call-e" }));
    expect(elicited.textForModel).toBe("hello Grace");
    expect(host.elicitations[0]).toMatchObject({ serverName: "remote", toolCallId: "call-e", message: "What is your name?" });
  });

  it("connects to an SSE server", async () => {
    const server = await fixture();
    const { manager, host } = await startManager({ legacy: { type: "sse", url: server.sseUrl, tools: ["echo"] } });

    expect(manager.tools().map((entry) => entry.name)).toEqual(["legacy-echo"]);
    const outcome = await tool(manager, "legacy-echo").execute({ text: "over sse" }, toolContext(host));
    expect(outcome.textForModel).toBe("over sse");
  });

  it("reports an unreachable server as failed", async () => {
    const server = await fixture();
    const { port } = server;
    await server.close();
    const { manager, host } = await startManager({ down: { type: "http", url: `http://127.0.0.1:${port}/mcp`, tools: ["*"] } });

    expect(manager.list()[0]).toMatchObject({ name: "down", status: "failed" });
    expect(host.eventsOf("session.warning")).toHaveLength(1);
  });

  it("marks a server that went away as failed, and reconnects on the next use", async () => {
    const first = await fixture();
    const { manager, host } = await startManager({ remote: { type: "http", url: first.url, tools: ["*"] } });
    await first.close();

    const failed = await tool(manager, "remote-echo").execute({ text: "anyone?" }, toolContext(host));
    expect(failed.resultType).toBe("failure");
    await waitFor(() => manager.list()[0]!.status === "failed");
    expect(manager.tools()).toEqual([]);

    const second = await fixture(first.port);
    const again = await tool(manager, "remote-echo").execute({ text: "back" }, toolContext(host));
    expect(again).toMatchObject({ resultType: "success", textForModel: "back" });
    expect(manager.list()).toEqual([{ name: "remote", status: "connected" }]);
    expect(second.log.filter((entry) => entry.event === "call")).toHaveLength(1);
  });
});
