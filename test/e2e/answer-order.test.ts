/**
 * The order a client sees things in, with every client (official 0.2.0 and 1.0.x, ours): a send is
 * answered before the events of the turn it starts (an SDK's `sendAndWait` listens for the turn's
 * end only once `send` answered), and a request to the client about a tool call comes after that
 * call's `tool.execution_start`.
 */
import type { CopilotClient as OfficialClient, SessionEvent } from "@github/copilot-sdk";
import { afterEach, describe, expect, it } from "vitest";
import { startWorld, waitFor, type TestWorld } from "../helpers/harness.js";
import { clientVariants } from "../helpers/official-client.js";

let world: TestWorld | undefined;
let client: OfficialClient | undefined;

afterEach(async () => {
  await client?.stop();
  client = undefined;
  await world?.dispose();
  world = undefined;
});

describe.each(clientVariants)("$sdk", ({ make }) => {
  it("answers a send before the session.error of a turn whose model call fails at once", async () => {
    world = await startWorld(["plain-reply"]);
    const { GH_TOKEN: _token, COPILOT_API_URL: _url, ...unconfigured } = world.env;
    client = make(unconfigured);
    const session = await client.createSession({ onPermissionRequest: () => ({ kind: "approved" }) });
    let answered = false;
    const seen: Array<{ type: string; afterAnswer: boolean }> = [];
    session.on((event: SessionEvent) => seen.push({ type: event.type, afterAnswer: answered }));

    await session.send({ prompt: "hi" });
    answered = true;
    await waitFor(() => seen.some((event) => event.type === "session.error"), "the turn's session.error");

    expect(seen.filter((event) => event.type === "session.error")).toEqual([{ type: "session.error", afterAnswer: true }]);
    expect(seen.filter((event) => !event.afterAnswer).map((event) => event.type)).not.toContain("session.idle");
  });

  it("asks the user about a tool call only after that call's tool.execution_start reached the client", async () => {
    world = await startWorld(["multiclient-ask"]);
    client = make(world.env);
    const events: SessionEvent[] = [];
    const startedWhenAsked: boolean[] = [];
    const session = await client.createSession({
      onPermissionRequest: () => ({ kind: "approved" }),
      onUserInputRequest: () => {
        startedWhenAsked.push(events.some((event) => event.type === "tool.execution_start" && event.data.toolCallId === "call_ask"));
        return { answer: "blue", wasFreeform: false };
      },
    });
    session.on((event) => events.push(event));

    const reply = await session.sendAndWait({ prompt: "ask through A" });

    expect(reply?.data.content).toBe("Noted: blue.");
    expect(startedWhenAsked).toEqual([true]);
  });
});
