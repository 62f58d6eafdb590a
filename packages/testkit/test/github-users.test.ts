import { describe, expect, it } from "vitest";
import { useServer } from "./helpers.js";

const startServer = useServer();

describe("ModelServer: the GitHub API's Copilot user lookup", () => {
  it("answers a known token's user, 401 Bad credentials for an unknown or missing one, and keeps lookups out of the model requests", async () => {
    const { url, server } = await startServer();
    server.copilotUsers.set("token-alice", { login: "alice", copilot_plan: "individual_pro", quota_snapshots: { chat: { entitlement: 10, percent_remaining: 50 } } });

    const known = await fetch(`${url}/copilot_internal/user`, { headers: { authorization: "Bearer token-alice" } });
    expect(known.status).toBe(200);
    expect(await known.json()).toEqual({ login: "alice", copilot_plan: "individual_pro", quota_snapshots: { chat: { entitlement: 10, percent_remaining: 50 } } });
    const asGitHubToken = await fetch(`${url}/copilot_internal/user`, { headers: { authorization: "token token-alice" } });
    expect(asGitHubToken.status).toBe(200);

    const unknown = await fetch(`${url}/copilot_internal/user`, { headers: { authorization: "Bearer nobody" } });
    expect(unknown.status).toBe(401);
    expect(await unknown.json()).toEqual({ message: "Bad credentials" });
    const missing = await fetch(`${url}/copilot_internal/user`);
    expect(missing.status).toBe(401);

    expect(server.copilotUsers.lookups).toEqual([
      { token: "token-alice", status: 200 },
      { token: "token-alice", status: 200 },
      { token: "nobody", status: 401 },
      { status: 401 },
    ]);
    expect(server.requests).toEqual([]);
  });
});
