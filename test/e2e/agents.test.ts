/**
 * Custom agents and sub-agents through the official SDK: the `task` tool runs a
 * child loop that inherits the session's permission handler and custom tools; every event it
 * produces names the task call (0.2.0 clients: the data's `parentToolCallId`; 1.0.x: the envelope's
 * `agentId`); background agents; agent selection.
 */
import { fileURLToPath } from "node:url";
import { CopilotClient, type SessionEvent } from "@github/copilot-sdk";
import { describe, expect, it } from "vitest";
import { eventsOf, waitFor, type TestWorld } from "../helpers/harness.js";
import { clientVariants, officialClientFixture } from "../helpers/official-client.js";
import { subAgentOf } from "../helpers/session-events.js";

let world: TestWorld | undefined;
describe.each(clientVariants)("$sdk", ({ sdk, make }) => {
  const fixture = officialClientFixture(make);
  const start = (): CopilotClient => fixture.client();

  type ChatBody = { messages: Array<{ role: string; content: string }>; tools?: Array<{ function: { name: string } }> };

  it("runs a sub-agent whose tool call the parent's permission handler denies", async () => {
    world = await fixture.startWorld(["agents-main", "agents-sub"]);
    const asked: Array<{ kind: string; toolName?: unknown }> = [];
    let secretRead = false;
    const session = await start().createSession({
      onPermissionRequest: (request) => {
        asked.push({ kind: request.kind, toolName: request.toolName });
        return { kind: "denied-by-rules", rules: [{ kind: "custom-tool", argument: "get_secret" }] };
      },
      tools: [{ name: "get_secret", description: "Reads the secret", handler: () => ((secretRead = true), "s3cr3t") }],
    });
    const events: SessionEvent[] = [];
    session.on((event) => events.push(event));
    const reply = await session.sendAndWait({ prompt: "Please delegate finding the config" });
    expect(reply?.data.content).toBe("The sub-agent says the config is in config.yaml.");
    expect(secretRead).toBe(false);
    expect(asked).toEqual([{ kind: "custom-tool", toolName: "get_secret" }]);

    const started = events.find((event) => event.type === "subagent.started");
    // 1.0.x: the display name and description are the task call's `name` and `description`; 0.2.0 (as 1.0.10): the agent's own.
    const shownAs =
      sdk === "official SDK 0.2.0"
        ? { agentDisplayName: "General purpose", agentDescription: "Handles a self-contained piece of a larger task with the full tool set." }
        : { agentDisplayName: "finder", agentDescription: "find the config" };
    expect(started?.data).toMatchObject({ toolCallId: "call_task_1", agentName: "general-purpose", ...shownAs });
    expect(events.find((event) => event.type === "subagent.completed")?.data).toMatchObject({ toolCallId: "call_task_1" });
    const startIndex = events.indexOf(started!);
    const endIndex = events.findIndex((event) => event.type === "subagent.completed");
    // The session's own task-list signal (the run counts as one of its tasks) is not the child's.
    const childEvents = events.slice(startIndex + 1, endIndex).filter((event) => (event.type as string) !== "session.background_tasks_changed");
    expect(childEvents.length).toBeGreaterThan(5);
    for (const event of childEvents) {
      expect(subAgentOf(event), event.type).toBe("call_task_1");
    }
    expect(childEvents.map((event) => event.type)).toEqual(expect.arrayContaining(["assistant.message", "permission.requested", "tool.execution_complete"]));

    const taskComplete = eventsOf(events, "tool.execution_complete").find((event) => event.data.toolCallId === "call_task_1");
    expect(taskComplete?.data).toMatchObject({ success: true, result: { content: "I could not read the secret; the config is in config.yaml." } });
    expect((taskComplete?.data as { parentToolCallId?: string }).parentToolCallId).toBeUndefined();

    // The sub-agent's conversation is its own: its first request holds only its prompt.
    const subRequest = world.model.requests.find((request) => request.scriptName === "agents-sub");
    const subMessages = (subRequest?.body as ChatBody).messages;
    expect(subMessages.map((message) => message.role)).toEqual(["system", "user"]);
    // 1.0.x wraps the prompt as a user's message is (as 1.0.102 does); 0.2.0 gets it raw (as 1.0.10).
    const wrapped = sdk === "official SDK 0.2.0" ? "" : "<current_datetime>[^<]+</current_datetime>\n\n";
    expect(subMessages[1]?.content).toMatch(new RegExp(`^${wrapped}SUBTASK: find where the config lives$`));
    expect((subRequest?.body as ChatBody).tools?.map((tool) => tool.function.name)).not.toContain("task");
    // Its system prompt is announced as a system.message of the sub-agent (every injected prompt is announced).
    const subSystem = childEvents.filter((event) => (event.type as string) === "system.message").map((event) => event.data as { role: string; content: string });
    expect(subSystem).toEqual([expect.objectContaining({ role: "system", content: subMessages[0]?.content })]);
  });

  it("runs a background agent and reads its result", async () => {
    world = await fixture.startWorld(["agents-background", "agents-background-sub"]);
    const session = await start().createSession({ onPermissionRequest: () => ({ kind: "approved" }) });
    const events: SessionEvent[] = [];
    session.on((event) => events.push(event));
    const reply = await session.sendAndWait({ prompt: "Look around in the background please" });
    expect(reply?.data.content).toBe("The background agent finished.");
    const readResult = eventsOf(events, "tool.execution_complete").find((event) => event.data.toolCallId === "call_read_agent");
    expect(readResult?.data.result?.content).toContain("Background findings: all good.");
    expect(world.model.requests.map((request) => request.expectationError).filter(Boolean)).toEqual([]);
    const notification = eventsOf(events, "user.message").find((event) => event.data.source === "system");
    expect(notification?.data.content).toContain('Background agent "bg-finder" (explore) finished. Call read_agent with agent_id "bg-finder" for its result.');
  });

  it("selects a custom agent: its prompt and tool allow-list apply to the main loop", async () => {
    world = await fixture.startWorld(["plain-reply"]);
    const session = await start().createSession({
      onPermissionRequest: () => ({ kind: "approved" }),
      tools: [
        { name: "get_weather", description: "Weather", handler: () => "sunny" },
        { name: "get_time", description: "Time", handler: () => "noon" },
      ],
      customAgents: [
        { name: "forecaster", displayName: "Forecaster", description: "Answers weather questions", prompt: "You only talk about the weather.", tools: ["get_weather"] },
        { name: "clock", prompt: "You tell the time.", infer: false },
      ],
      agent: "forecaster",
    });
    const events: SessionEvent[] = [];
    session.on((event) => events.push(event));
    expect(await session.rpc.agent.getCurrent()).toEqual({ agent: { name: "forecaster", displayName: "Forecaster", description: "Answers weather questions" } });
    expect((await session.rpc.agent.list()).agents.map((agent) => agent.name)).toEqual(["forecaster", "clock"]);
    await session.sendAndWait({ prompt: "hi" });
    let body = world.model.requests[0]?.body as ChatBody;
    expect(body.messages[0]?.content).toContain("You only talk about the weather.");
    expect(body.tools?.map((tool) => tool.function.name)).toEqual(["get_weather"]);

    await session.rpc.agent.deselect();
    await waitFor(() => events.some((event) => event.type === "subagent.deselected"), "deselected");
    await session.sendAndWait({ prompt: "again" });
    body = world.model.requests[1]?.body as ChatBody;
    expect(body.messages[0]?.content).not.toContain("You only talk about the weather.");
    const names = body.tools?.map((tool) => tool.function.name) ?? [];
    expect(names).toEqual(expect.arrayContaining(["get_weather", "get_time", "task"]));
    // infer: false keeps "clock" out of the task tool's agent types.
    const taskTool = (body.tools as Array<{ function: { name: string; parameters: { properties: { agent_type: { enum: string[] } } } } }>).find((tool) => tool.function.name === "task");
    expect(taskTool?.function.parameters.properties.agent_type.enum).toEqual(["explore", "task", "general-purpose", "code-review", "forecaster"]);

    await expect(session.rpc.agent.select({ name: "nobody" })).rejects.toThrow(/Unknown agent/);
    const selected = await session.rpc.agent.select({ name: "clock" });
    expect(selected.agent.name).toBe("clock");
    // The selection at create ("forecaster") reaches the handler too: it follows the create result.
    const selections = () => events.filter((event) => event.type === "subagent.selected");
    await waitFor(() => selections().length === 2, "selected");
    expect(selections().map((event) => event.data)).toEqual([
      { agentName: "forecaster", agentDisplayName: "Forecaster", tools: ["get_weather"] },
      { agentName: "clock", agentDisplayName: "clock", tools: null },
    ]);
  });

  it("gives a custom agent its own MCP servers, for its runs only", async () => {
    world = await fixture.startWorld(["agent-mcp-main", "agent-mcp-sub"]);
    const stdioServer = fileURLToPath(new URL("../fixtures/mcp/stdio-server.mjs", import.meta.url));
    const permissions: Array<{ kind: string; serverName?: unknown }> = [];
    const session = await start().createSession({
      onPermissionRequest: (request) => (permissions.push({ kind: request.kind, serverName: request.serverName }), { kind: "approved" }),
      customAgents: [
        {
          name: "echoer",
          description: "Echoes through its own server",
          prompt: "You echo things.",
          tools: [],
          mcpServers: { agentsrv: { command: process.execPath, args: [stdioServer], tools: ["echo"] } },
        },
      ],
    });
    const reply = await session.sendAndWait({ prompt: "Use the agent with its own MCP server" });
    expect(reply?.data.content).toBe("Done through the agent's own server.");
    expect(permissions).toEqual([{ kind: "mcp", serverName: "agentsrv" }]);
    const requests = world.model.requests.map((request) => ({ script: request.scriptName, tools: (request.body as ChatBody).tools?.map((tool) => tool.function.name) ?? [] }));
    expect(requests.filter((request) => request.script === "agent-mcp-main").every((request) => !request.tools.includes("agentsrv-echo"))).toBe(true);
    expect(requests.find((request) => request.script === "agent-mcp-sub")?.tools).toEqual(["agentsrv-echo"]);
  });

  it("starts a selected agent's own MCP servers for the main loop", async () => {
    world = await fixture.startWorld(["plain-reply"]);
    const stdioServer = fileURLToPath(new URL("../fixtures/mcp/stdio-server.mjs", import.meta.url));
    const session = await start().createSession({
      onPermissionRequest: () => ({ kind: "approved" }),
      customAgents: [{ name: "echoer", prompt: "You echo things.", tools: [], mcpServers: { agentsrv: { command: process.execPath, args: [stdioServer], tools: ["echo"] } } }],
      agent: "echoer",
    });
    await session.sendAndWait({ prompt: "hi" });
    expect((world.model.requests[0]?.body as ChatBody).tools?.map((tool) => tool.function.name)).toEqual(["agentsrv-echo"]);
    await session.rpc.agent.deselect();
    await session.sendAndWait({ prompt: "again" });
    expect((world.model.requests[1]?.body as ChatBody).tools?.map((tool) => tool.function.name)).not.toContain("agentsrv-echo");
  });
});
