/**
 * A model turn split over several `choices` (the Copilot API's answer shape for Claude models:
 * the text in choice 0, each tool call in its own following choice) through both SDKs against the
 * real runtime, streamed and not: every tool call runs, the conversation goes on, and the next
 * request echoes the turn as ONE assistant message with all tool calls in order, as the reference
 * runtime does.
 */
import { mkdtempSync, readFileSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { approveAll, type SessionEvent } from "@github/copilot-sdk";
import { parseScript } from "@tandem/testkit";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { eventsOf, scriptsDir } from "../helpers/harness.js";
import { clientVariants, officialClientFixture } from "../helpers/official-client.js";

interface ChatMessage {
  role: string;
  content: string | null;
  tool_calls?: Array<{ id: string; type: string; function: { name: string; arguments: string } }>;
  tool_call_id?: string;
}

let workdir: string;
beforeEach(() => {
  workdir = realpathSync(mkdtempSync(join(tmpdir(), "tandem-split-")));
});
afterEach(() => rmSync(workdir, { recursive: true, force: true }));

describe.each(clientVariants)("$sdk", ({ make }) => {
  const fixture = officialClientFixture(make);

  it.each([false, true])("runs every tool call of a turn split over several choices and goes on (streaming: %s)", async (streaming) => {
    const world = await fixture.startWorld([]);
    const path = join(scriptsDir, "split-choices.yaml");
    world.model.addScript(parseScript(readFileSync(path, "utf8").replaceAll("__WORKDIR__", workdir), path));
    const tickets: unknown[] = [];
    const session = await fixture.client().createSession({
      workingDirectory: workdir,
      streaming,
      onPermissionRequest: approveAll,
      tools: [
        {
          name: "file_ticket",
          description: "Files a ticket",
          parameters: { type: "object", properties: { title: { type: "string" } }, required: ["title"] },
          handler: async (args) => {
            tickets.push(args);
            return "Filed ticket T-1.";
          },
        },
      ],
    });
    const events: SessionEvent[] = [];
    session.on((event) => events.push(event));

    const reply = await session.sendAndWait({ prompt: "Write the notes and file a ticket" });

    expect(reply?.data.content).toBe("Both done: notes.txt is written and ticket T-1 is filed.");
    expect(readFileSync(join(workdir, "notes.txt"), "utf8")).toBe("alpha\n");
    expect(tickets).toEqual([{ title: "Notes written" }]);
    const completed = eventsOf(events, "tool.execution_complete").map((event) => [event.data.toolCallId, event.data.success]);
    expect(completed).toEqual(expect.arrayContaining([["call_create", true], ["call_ticket", true]]));
    expect(completed).toHaveLength(2);
    const first = eventsOf(events, "assistant.message")[0];
    expect(first?.data.content).toBe("I'll write the notes file and file a ticket.");
    expect(first?.data.toolRequests?.map((request) => request.toolCallId)).toEqual(["call_create", "call_ticket"]);
    if (streaming) {
      const deltas = eventsOf(events, "assistant.message_delta").filter((event) => event.data.messageId === first?.data.messageId);
      expect(deltas.map((event) => event.data.deltaContent).join("")).toBe(first?.data.content);
    }

    // The next request echoes the split turn as one assistant message, tool calls in order.
    const requests = world.model.requests.filter((request) => request.path.endsWith("/chat/completions"));
    expect(requests).toHaveLength(2);
    expect(requests.every((request) => (request.body as { stream?: boolean }).stream === (streaming || undefined))).toBe(true);
    expect(requests.map((request) => request.expectationError)).toEqual([undefined, undefined]);
    const messages = (requests[1]?.body as { messages: ChatMessage[] }).messages;
    expect(messages.map((message) => message.role)).toEqual(["system", "user", "assistant", "tool", "tool"]);
    const assistant = messages[2];
    expect(assistant?.content).toBe("I'll write the notes file and file a ticket.");
    expect(assistant?.tool_calls).toEqual([
      { id: "call_create", type: "function", function: { name: "create", arguments: JSON.stringify({ path: join(workdir, "notes.txt"), file_text: "alpha\n" }) } },
      { id: "call_ticket", type: "function", function: { name: "file_ticket", arguments: '{"title":"Notes written"}' } },
    ]);
    const results = Object.fromEntries(messages.slice(3).map((message) => [message.tool_call_id, message.content]));
    expect(results).toEqual({
      call_create: `Created file ${join(workdir, "notes.txt")} with 6 characters`,
      call_ticket: "Filed ticket T-1.",
    });
  });
});
