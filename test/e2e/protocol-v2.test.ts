/**
 * Protocol v2: with `--sdk-protocol-version 2` the runtime asks the client with `tool.call` and
 * `permission.request` requests instead of broadcast events. The official SDK answers both.
 */
import { CopilotClient, type SessionEvent } from "@github/copilot-sdk";
import { afterEach, expect, it } from "vitest";
import { startWorld, tandemBin, type TestWorld } from "../helpers/harness.js";

let world: TestWorld | undefined;
let copilot: CopilotClient | undefined;

afterEach(async () => {
  await copilot?.stop();
  await world?.dispose();
});

it("runs a custom tool through v2 tool.call after a v2 permission.request", async () => {
  world = await startWorld(["custom-tool"]);
  copilot = new CopilotClient({ cliPath: tandemBin, cliArgs: ["--sdk-protocol-version", "2"], env: world.env, logLevel: "error" });
  await copilot.start();
  expect((await copilot.ping()).protocolVersion).toBe(2);
  const permissions: string[] = [];
  const session = await copilot.createSession({
    onPermissionRequest: (request) => {
      permissions.push(request.kind);
      return { kind: "approved" };
    },
    tools: [{ name: "get_weather", description: "Weather", handler: () => "72 and sunny" }],
  });
  const events: SessionEvent[] = [];
  session.on((event) => events.push(event));
  const reply = await session.sendAndWait({ prompt: "weather?" });
  expect(reply?.data.content).toBe("It is 72 degrees in Paris.");
  expect(permissions).toEqual(["custom-tool"]);
  // No v3 broadcast events in v2 mode.
  expect(events.some((event) => event.type === "external_tool.requested" || event.type === "permission.requested")).toBe(false);
  const toolMessage = (world.model.requests[1]?.body as { messages: Array<{ role: string; content: string }> }).messages.at(-1);
  expect(toolMessage).toMatchObject({ role: "tool", content: "72 and sunny" });
});
