/**
 * `session.setForeground` per client generation, against the built `tandem`: a runtime without a
 * terminal UI answers a 1.0.x client that there is no foreground session to switch (its SDK throws
 * the answer's `error`) and keeps none; a 0.2.0 client still picks the foreground session (the
 * extensions follow it, see `extensions.test.ts`).
 */
import { approveAll as v1ApproveAll, type CopilotClient as V1Client } from "copilot-sdk-v1";
import { approveAll } from "@github/copilot-sdk";
import { describe, expect, it } from "vitest";
import { officialClient, officialClientFixture, officialV1Client, rawConnection } from "../helpers/official-client.js";

const current = officialClientFixture(officialV1Client);
const legacy = officialClientFixture(officialClient);

describe("session.setForeground", () => {
  it("tells a 1.0.x client that a runtime without a terminal UI has no foreground to switch, and keeps none", async () => {
    await current.startWorld(["plain-reply"]);
    const client = current.client() as unknown as V1Client;
    const session = await client.createSession({ onPermissionRequest: v1ApproveAll });
    await expect(client.setForegroundSessionId(session.sessionId)).rejects.toThrow(/not running in TUI\+server mode: this runtime has no terminal UI/i);
    expect(await client.getForegroundSessionId()).toBeUndefined();
    // An unknown session is still an error of its own, not the same refusal.
    await expect(rawConnection(client).sendRequest("session.setForeground", { sessionId: "no-such-session" })).rejects.toThrow(/not found/i);
  });

  it("sets the foreground session for a 0.2.0 client", async () => {
    await legacy.startWorld(["plain-reply"]);
    const client = legacy.client();
    const session = await client.createSession({ onPermissionRequest: approveAll });
    await client.setForegroundSessionId(session.sessionId);
    expect(await client.getForegroundSessionId()).toBe(session.sessionId);
  });
});
