/**
 * MCP servers through the official SDK: a real stdio MCP server configured in
 * `mcpServers`, its tools offered to the model as `{server}-{tool}`, the `mcp` permission, MCP
 * results and progress, elicitation, `session.mcp.*`, and the server stopped with the session.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { CopilotClient, type SessionEvent } from "@github/copilot-sdk";
import { afterEach, describe, expect, it } from "vitest";
import { fixtureTools } from "../fixtures/mcp/fixture-server.mjs";
import { eventsOf, startWorld, waitFor, type TestWorld } from "../helpers/harness.js";
import { officialVariants } from "../helpers/official-client.js";

const fixturesDir = fileURLToPath(new URL("../fixtures/mcp/", import.meta.url));
const stdioServer = join(fixturesDir, "stdio-server.mjs");

let world: TestWorld | undefined;
let copilot: CopilotClient | undefined;
let logDir: string | undefined;

afterEach(async () => {
  await copilot?.stop();
  await world?.dispose();
  if (logDir) rmSync(logDir, { recursive: true, force: true });
  copilot = undefined;
  world = undefined;
  logDir = undefined;
});

describe.each(officialVariants)("$sdk", ({ make }) => {
  async function setUp(script: string): Promise<{ client: CopilotClient; logFile: string }> {
    world = await startWorld([]);
    world.model.loadScriptFile(join(fixturesDir, `${script}.yaml`));
    logDir = mkdtempSync(join(tmpdir(), "tandem-mcp-e2e-"));
    copilot = make(world.env);
    return { client: copilot, logFile: join(logDir, "server.jsonl") };
  }

  function serverLog(logFile: string): Array<Record<string, unknown>> {
    try {
      return readFileSync(logFile, "utf8").split("\n").filter(Boolean).map((line) => JSON.parse(line) as Record<string, unknown>);
    } catch {
      return [];
    }
  }

  function processAlive(pid: number): boolean {
    try {
      process.kill(pid, 0);
      return true;
    } catch {
      return false;
    }
  }

  function rawConnection(session: unknown): { sendRequest(method: string, params: unknown): Promise<unknown> } {
    return (session as { connection: { sendRequest(method: string, params: unknown): Promise<unknown> } }).connection;
  }

  type ChatBody = { tools?: Array<{ function: { name: string; parameters?: unknown } }> };

  // Skipped until the session wiring lands (McpManager in Session, session.mcp.* and
  // session.ui.handlePendingElicitation in dispatch, `contents` in tool-runner): remove `.skip` then.
  describe("MCP servers end to end", () => {
    it("offers MCP tools last, asks the mcp permission, runs the tool and stops the server with the session", async () => {
      const { client, logFile } = await setUp("mcp-echo");
      const permissions: Array<Record<string, unknown>> = [];
      const session = await client.createSession({
        onPermissionRequest: (request) => {
          permissions.push({ ...request });
          return { kind: "approved" };
        },
        mcpServers: { local: { command: process.execPath, args: [stdioServer], tools: ["*"], env: { MCP_FIXTURE_LOG: logFile } } },
      });
      const events: SessionEvent[] = [];
      session.on((event) => events.push(event));

      const reply = await session.sendAndWait({ prompt: "Please do the MCP echo" });

      expect(reply?.data.content).toBe("The MCP server said hello mcp.");
      expect(world!.model.requests.map((request) => request.expectationError).filter(Boolean)).toEqual([]);
      const tools = (world!.model.requests[0]?.body as ChatBody).tools ?? [];
      const mcpNames = fixtureTools.map((tool) => `local-${tool.name}`);
      expect(tools.slice(-mcpNames.length).map((tool) => tool.function.name)).toEqual(mcpNames);
      expect(tools.find((tool) => tool.function.name === "local-echo")?.function.parameters).toEqual(fixtureTools[0]!.inputSchema);

      expect(permissions).toHaveLength(1);
      expect(permissions[0]).toMatchObject({ kind: "mcp", serverName: "local", toolName: "local-echo", toolTitle: "echo", args: { text: "hello mcp" }, readOnly: false });
      const start = eventsOf(events, "tool.execution_start").find((event) => event.data.toolCallId === "call_mcp_echo");
      expect(start?.data).toMatchObject({ toolName: "local-echo", mcpServerName: "local", mcpToolName: "echo" });
      const complete = eventsOf(events, "tool.execution_complete").find((event) => event.data.toolCallId === "call_mcp_echo");
      expect(complete?.data).toMatchObject({ success: true, result: { content: "hello mcp", contents: [{ type: "text", text: "hello mcp" }] } });

      expect(await session.rpc.mcp.list()).toEqual({ servers: [{ name: "github-mcp-server", status: "connected", source: "builtin" }, { name: "local", status: "connected" }] });
      expect(serverLog(logFile).filter((entry) => entry.event === "call")).toEqual([expect.objectContaining({ tool: "echo", arguments: { text: "hello mcp" } })]);

      const pid = serverLog(logFile).find((entry) => entry.event === "start")?.pid as number;
      await session.destroy();
      await waitFor(() => !processAlive(pid), "the MCP server to stop");
    });

    it("relays MCP progress and elicitation, and disables servers", async () => {
      const { client, logFile } = await setUp("mcp-progress-elicit");
      const session = await client.createSession({
        onPermissionRequest: () => ({ kind: "approved" }),
        mcpServers: { local: { command: process.execPath, args: [stdioServer], tools: ["slow", "elicit"], env: { MCP_FIXTURE_LOG: logFile } } },
      });
      const events: SessionEvent[] = [];
      session.on((event) => {
        events.push(event);
        if (event.type === "elicitation.requested") {
          // The official SDK 0.2.0 has no call for this answer (Tandem's own method), so use its connection.
          void rawConnection(session).sendRequest("session.ui.handlePendingElicitation", {
            sessionId: session.sessionId,
            requestId: event.data.requestId,
            result: { action: "accept", content: { name: "Ada" } },
          });
        }
      });

      const reply = await session.sendAndWait({ prompt: "Fill in the MCP form" });

      expect(reply?.data.content).toBe("Hello Ada.");
      expect(eventsOf(events, "tool.execution_progress").map((event) => event.data)).toEqual([
        expect.objectContaining({ toolCallId: "call_mcp_slow", progressMessage: "step 1 of 2" }),
        expect.objectContaining({ toolCallId: "call_mcp_slow", progressMessage: "step 2 of 2" }),
      ]);
      const requested = eventsOf(events, "elicitation.requested")[0];
      expect(requested?.data).toMatchObject({ toolCallId: "call_mcp_elicit", message: "Your name, please", requestedSchema: { type: "object" } });
      expect(eventsOf(events, "elicitation.completed").map((event) => event.data.requestId)).toEqual([requested?.data.requestId]);

      await session.rpc.mcp.disable({ serverName: "local" });
      expect(await session.rpc.mcp.list()).toEqual({ servers: [{ name: "github-mcp-server", status: "connected", source: "builtin" }, { name: "local", status: "disabled" }] });
      await session.rpc.mcp.enable({ serverName: "local" });
      expect(await session.rpc.mcp.list()).toEqual({ servers: [{ name: "github-mcp-server", status: "connected", source: "builtin" }, { name: "local", status: "connected" }] });
    });
  });
});
