/**
 * The agent loop through the official SDK: steering with `mode: "immediate"`, agent
 * modes, and autopilot's bounded nudges.
 */
import { CopilotClient, approveAll, type SessionEvent } from "@github/copilot-sdk";
import { describe, expect, it } from "vitest";
import { eventsOf, waitFor, type TestWorld } from "../helpers/harness.js";
import { clientVariants, officialClientFixture } from "../helpers/official-client.js";

let world: TestWorld | undefined;
describe.each(clientVariants)("$sdk", ({ make }) => {
  const fixture = officialClientFixture(make);
  const start = (): CopilotClient => fixture.client();

  type ChatBody = { messages: Array<{ role: string; content: string }> };

  it("injects an immediate message into the running loop at the next model call", async () => {
    world = await fixture.startWorld(["steering"]);
    let release: () => void = () => undefined;
    let toolStarted = false;
    const session = await start().createSession({
      onPermissionRequest: approveAll,
      tools: [
        {
          name: "long_job",
          description: "A job that takes a while",
          handler: () => {
            toolStarted = true;
            return new Promise<string>((resolve) => (release = () => resolve("job finished")));
          },
        },
      ],
    });
    const events: SessionEvent[] = [];
    session.on((event) => events.push(event));
    const done = session.sendAndWait({ prompt: "Run the long job" });
    await waitFor(() => toolStarted, "the tool to start");
    await session.send({ prompt: "Oh, and use metric units", mode: "immediate" });
    release();
    const reply = await done;
    expect(reply?.data.content).toBe("Done, and I switched to metric units as you asked.");
    expect(world.model.requests).toHaveLength(2);
    const messages = (world.model.requests[1]?.body as ChatBody).messages;
    expect(messages.map((message) => message.role)).toEqual(["system", "user", "assistant", "tool", "user"]);
    expect(messages[4]?.content).toContain("use metric units");
    const userMessages = events.filter((event) => event.type === "user.message");
    expect(userMessages.map((event) => event.data.content)).toEqual(["Run the long job", "Oh, and use metric units"]);
    // Both messages belong to one interaction; there was exactly one idle.
    expect(new Set(userMessages.map((event) => event.data.interactionId)).size).toBe(1);
    expect(events.filter((event) => event.type === "session.idle")).toHaveLength(1);
  });

  it("gets and sets the agent mode, with session.mode_changed, and keeps it across resume", async () => {
    world = await fixture.startWorld(["plain-reply"]);
    const client = start();
    const session = await client.createSession({ onPermissionRequest: approveAll });
    expect(await session.rpc.mode.get()).toEqual({ mode: "interactive" });
    const changes: SessionEvent[] = [];
    session.on("session.mode_changed", (event) => changes.push(event));
    expect(await session.rpc.mode.set({ mode: "plan" })).toEqual({ mode: "plan" });
    await waitFor(() => changes.length === 1, "mode_changed");
    expect(changes[0]?.data).toEqual({ previousMode: "interactive", newMode: "plan" });
    await expect(session.rpc.mode.set({ mode: "sideways" as "plan" })).rejects.toThrow(/mode/);
    const reply = await session.sendAndWait({ prompt: "hello" });
    const user = (await session.getMessages()).find((event) => event.type === "user.message");
    expect(user?.data).toMatchObject({ agentMode: "plan" });
    expect(reply).toBeDefined();
    await session.disconnect();
    const resumed = await client.resumeSession(session.sessionId, { onPermissionRequest: approveAll });
    expect(await resumed.rpc.mode.get()).toEqual({ mode: "plan" });
  });

  it("nudges in autopilot when the model stops without task_complete, a bounded number of times", async () => {
    world = await fixture.startWorld(["autopilot-never-completes"]);
    const session = await start().createSession({ onPermissionRequest: approveAll });
    await session.rpc.mode.set({ mode: "autopilot" });
    const events: SessionEvent[] = [];
    session.on((event) => events.push(event));
    await session.sendAndWait({ prompt: "Fix everything" });
    expect(world.model.requests).toHaveLength(4);
    const nudges = eventsOf(events, "user.message").filter((event) => event.data.source === "autopilot");
    expect(nudges).toHaveLength(3);
    expect(nudges[0]?.data.content).toContain("task_complete");
    const turnIds = events.filter((event) => event.type === "assistant.turn_start").map((event) => event.data.turnId);
    expect(turnIds).toEqual(["0", "1", "2", "3"]);
    expect(events.filter((event) => event.type === "session.idle")).toHaveLength(1);
    expect(world.model.requests[1]?.expectationError).toBeUndefined();
  });

  it("does not nudge in interactive mode", async () => {
    world = await fixture.startWorld(["autopilot-never-completes"]);
    const session = await start().createSession({ onPermissionRequest: approveAll });
    await session.sendAndWait({ prompt: "Fix everything" });
    expect(world.model.requests).toHaveLength(1);
  });
});
