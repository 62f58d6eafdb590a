import { describe, expect, it } from "vitest";
import type { ClientPort } from "../../src/session/client-port.js";
import { registrationOf, SessionClients } from "../../src/session/clients.js";

function port(id: number): ClientPort & { isOpen: boolean } {
  return { id, isOpen: true, deliverSessionEvent: () => undefined, sendRequest: () => Promise.reject(new Error("not used")) };
}

const tool = (name: string, description = name) => ({ name, description });

describe("SessionClients", () => {
  it("offers the union of the clients' tools; a shared name is one tool with the latest definition", () => {
    const clients = new SessionClients();
    const a = port(1);
    const b = port(2);
    clients.register(a, registrationOf({ tools: [tool("tool_a"), tool("shared", "from A")] }));
    clients.register(b, registrationOf({ tools: [tool("shared", "from B"), tool("tool_b")] }));
    expect(clients.tools()).toEqual([tool("tool_a"), tool("shared", "from B"), tool("tool_b")]);
    expect(clients.clientFor({ kind: "tool", toolName: "shared" })).toBe(b);
    expect(clients.clientFor({ kind: "tool", toolName: "tool_a" })).toBe(a);
    clients.remove(b);
    expect(clients.tools()).toEqual([tool("tool_a"), tool("shared", "from A")]);
    expect(clients.provides("tool_b")).toBe(false);
  });

  it("replaces a client's own registration when it registers again", () => {
    const clients = new SessionClients();
    const a = port(1);
    const b = port(2);
    clients.register(a, registrationOf({ tools: [tool("tool_a")] }));
    clients.register(b, registrationOf({ tools: [tool("tool_b")] }));
    clients.register(a, registrationOf({ tools: [tool("tool_a2")] }));
    expect(clients.tools().map((each) => each.name)).toEqual(["tool_b", "tool_a2"]);
  });

  it("asks the most recent open client that registered the capability", () => {
    const clients = new SessionClients();
    const a = port(1);
    const b = port(2);
    clients.register(a, registrationOf({ requestUserInput: true, hooks: true, systemMessage: { mode: "append", content: "x" } }));
    clients.register(b, registrationOf({ requestUserInput: false, hooks: false }));
    expect(clients.clientFor({ kind: "userInput" })).toBe(a);
    expect(clients.clientFor({ kind: "hooks" })).toBe(a);
    expect(clients.clientFor({ kind: "systemMessage" })).toBe(a);
    expect(clients.clientFor({ kind: "permission" })).toBe(b);
    b.isOpen = false;
    expect(clients.clientFor({ kind: "permission" })).toBe(a);
    a.isOpen = false;
    expect(clients.clientFor({ kind: "permission" })).toBeUndefined();
  });

  it("lays the clients' registrations over the session config (flags hold while any client set them)", () => {
    const clients = new SessionClients();
    const config = { model: "gpt-test", tools: [tool("stale")], requestUserInput: false, streaming: false };
    expect(clients.overlay(config)).toBe(config);
    clients.register(port(1), registrationOf({ tools: [tool("tool_a")], requestUserInput: true, streaming: true }));
    clients.register(port(2), registrationOf({ requestPermission: false, hooks: false, streaming: false }));
    expect(clients.overlay(config)).toEqual({
      model: "gpt-test",
      tools: [tool("tool_a")],
      requestPermission: true,
      requestUserInput: true,
      hooks: false,
      streaming: true,
    });
  });
});
