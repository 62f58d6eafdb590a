/**
 * GitHub accounts in Copilot API mode, driven through the official 1.0.x SDK against the real
 * `tandem` and the testkit's model server, which also serves the GitHub API's Copilot user lookup
 * (`COPILOT_DEBUG_GITHUB_API_URL` points at it): a session's own `gitHubToken` checked at create
 * (a refused one fails with AuthenticationFailed, nothing created) and reported with its login and
 * plan; sessions without any token; `account.login/getAllUsers/getCurrentAuth/logout` with the
 * logged-in account's token serving the model calls; `account.getQuota`; and the Copilot headers
 * that `session.provider.getEndpoint` reports and the model calls carry.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { CopilotClient as V1Client, RuntimeConnection, approveAll } from "copilot-sdk-v1";
import { ErrorCodes } from "@tandem/protocol/errors";
import { afterEach, describe, expect, it } from "vitest";
import { startWorld, tandemBin, type TestWorld } from "../helpers/harness.js";

const { AuthenticationFailed, InvalidParams } = ErrorCodes;

let world: TestWorld | undefined;
const cleanups: Array<() => Promise<unknown> | unknown> = [];

afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  await world?.dispose();
  world = undefined;
});

/** A world whose model server also answers the GitHub user lookup, with alice and bob known. */
async function gitHubWorld(scripts: string[] = []): Promise<TestWorld> {
  const started = await startWorld(scripts);
  started.env.COPILOT_DEBUG_GITHUB_API_URL = started.modelUrl;
  started.model.copilotUsers.set("token-alice", { login: "alice", copilot_plan: "individual_pro" });
  started.model.copilotUsers.set("token-bob", { login: "bob", copilot_plan: "business" });
  started.model.copilotUsers.set("test-token", { login: "runtime-user", copilot_plan: "enterprise" });
  return started;
}

/** The official SDK 1.0.x over stdio, started, and stopped after the test. */
async function v1Client(env: Record<string, string>, options: { gitHubToken?: string } = {}): Promise<V1Client> {
  const client = new V1Client({ connection: RuntimeConnection.forStdio({ path: tandemBin }), env, logLevel: "error", ...options });
  cleanups.push(() => client.forceStop());
  await client.start();
  return client;
}

/** The JSON-RPC error a call fails with (fails the test when it succeeds). */
async function rpcError(call: Promise<unknown>): Promise<{ code: number; message: string }> {
  return call.then(
    (result) => {
      throw new Error(`expected an error, got ${JSON.stringify(result)}`);
    },
    (error: { code: number; message: string }) => ({ code: error.code, message: error.message }),
  );
}

/** Every file under the runtime's session folder, as text. */
function sessionFilesText(home: string): string {
  const root = join(home, "session-state");
  if (!existsSync(root)) return "";
  const texts: string[] = [];
  for (const entry of readdirSync(root, { recursive: true, withFileTypes: true })) {
    if (entry.isFile()) texts.push(readFileSync(join(entry.parentPath, entry.name), "utf8"));
  }
  return texts.join("\n");
}

/** The `Authorization` headers of the model calls so far. */
function modelCallAuthorizations(current: TestWorld): string[] {
  return current.model.requests.filter((request) => request.path.endsWith("/chat/completions")).map((request) => request.headers.authorization ?? "");
}

describe("a session's own GitHub token", () => {
  it("is checked with GitHub at create, reported with its login and plan, and kept apart from other sessions' tokens", async () => {
    world = await gitHubWorld();
    const client = await v1Client(world.env);
    const alice = await client.createSession({ onPermissionRequest: approveAll, gitHubToken: "token-alice" });
    const bob = await client.createSession({ onPermissionRequest: approveAll, gitHubToken: "token-bob" });
    const shared = await client.createSession({ onPermissionRequest: approveAll });

    expect(await alice.rpc.gitHubAuth.getStatus()).toMatchObject({ isAuthenticated: true, authType: "token", login: "alice", copilotPlan: "individual_pro" });
    expect(await bob.rpc.gitHubAuth.getStatus()).toMatchObject({ isAuthenticated: true, authType: "token", login: "bob", copilotPlan: "business" });
    expect(await shared.rpc.gitHubAuth.getStatus()).toMatchObject({ isAuthenticated: true, authType: "env", login: "runtime-user", copilotPlan: "enterprise" });
    // Each token was looked up (once: the answer is kept), with the token as the bearer.
    expect(world.model.copilotUsers.lookups.map((lookup) => lookup.token).sort()).toEqual(["test-token", "token-alice", "token-bob"]);
  });

  it("fails session.create with AuthenticationFailed when GitHub refuses it, without creating anything or repeating the token", async () => {
    world = await gitHubWorld();
    const client = await v1Client(world.env);
    const refused = await rpcError(client.createSession({ onPermissionRequest: approveAll, gitHubToken: "invalid-token-12345" }));
    expect(refused.code).toBe(AuthenticationFailed);
    expect(refused.message).toMatch(/^GitHub refused the token \(401 Unauthorized\) at http:\/\/127\.0\.0\.1:\d+\/copilot_internal\/user: Bad credentials$/);
    expect(refused.message).not.toContain("invalid-token-12345");
    expect(await client.listSessions()).toEqual([]);
    expect(sessionFilesText(world.home)).toBe("");
    // The runtime still serves sessions with a good token, and never writes a token into a session's files.
    const alice = await client.createSession({ onPermissionRequest: approveAll, gitHubToken: "token-alice" });
    await alice.log("written");
    expect(sessionFilesText(world.home)).not.toContain("token-alice");
  });

  it("without any token, the session is created, reports no identity, and its first turn fails with one authentication session.error", async () => {
    world = await gitHubWorld(["plain-reply"]);
    const { GH_TOKEN: _runtimeToken, ...withoutToken } = world.env;
    const client = await v1Client(withoutToken);
    const session = await client.createSession({ onPermissionRequest: approveAll });
    const status = await session.rpc.gitHubAuth.getStatus();
    expect(status).toMatchObject({ isAuthenticated: false, statusMessage: "No GitHub token: neither the session nor the runtime has one." });
    expect(status.login).toBeUndefined();
    const errors: Array<{ errorType: string }> = [];
    session.on("session.error", (event) => errors.push(event.data));
    await expect(session.sendAndWait({ prompt: "hi" })).rejects.toThrow(/but no GitHub token is/);
    expect(errors).toEqual([expect.objectContaining({ errorType: "authentication" })]);
    expect(world.model.requests).toEqual([]);
  });
});

describe("account.*", () => {
  it("logs an account in after GitHub confirms its token, lists it, makes its token the runtime's for model calls, and logs it out", async () => {
    world = await gitHubWorld(["plain-reply"]);
    const client = await v1Client(world.env);
    expect(await client.rpc.account.getCurrentAuth()).toEqual({});
    expect(await client.rpc.account.getAllUsers()).toEqual([]);

    expect(await client.rpc.account.login({ host: "https://github.com", login: "alice", token: "token-alice" })).toEqual({ storedInVault: false });
    expect(await client.rpc.account.getCurrentAuth()).toEqual({ authInfo: { type: "user", host: "https://github.com", login: "alice" } });
    const users = await client.rpc.account.getAllUsers();
    expect(users).toEqual([{ authInfo: { type: "user", host: "https://github.com", login: "alice" }, selectionId: expect.any(String), token: "token-alice" }]);

    const session = await client.createSession({ onPermissionRequest: approveAll });
    expect(await session.rpc.gitHubAuth.getStatus()).toMatchObject({ isAuthenticated: true, authType: "user", login: "alice" });
    await session.sendAndWait({ prompt: "Say hello" });
    expect(modelCallAuthorizations(world)).toEqual(["Bearer token-alice"]);
    // The account's token is kept out of what the session writes, even when something repeats it.
    await session.log("the token is token-alice", { level: "warning" });
    await client.rpc.sessions.save({ sessionId: session.sessionId });
    expect(sessionFilesText(world.home)).toContain("the token is ******");
    expect(sessionFilesText(world.home)).not.toContain("token-alice");

    // Without `login`, the name is the one GitHub reports for the token.
    await client.rpc.account.login({ host: "https://github.com", token: "token-bob" });
    expect((await client.rpc.account.getCurrentAuth()).authInfo).toMatchObject({ type: "user", login: "bob" });
    expect(await client.rpc.account.logout({ authInfo: { type: "user", host: "https://github.com", login: "bob" } })).toEqual({ hasMoreUsers: true });
    expect(await client.rpc.account.logout({ authInfo: { type: "user", host: "https://github.com", login: "alice" } })).toEqual({ hasMoreUsers: false });
    expect(await client.rpc.account.getCurrentAuth()).toEqual({});
    expect(await client.rpc.account.getAllUsers()).toEqual([]);
    // Logged out, sessions go back to the runtime's own token.
    const after = await client.createSession({ onPermissionRequest: approveAll });
    expect(await after.rpc.gitHubAuth.getStatus()).toMatchObject({ authType: "env", login: "runtime-user" });
  });

  it("refuses a token GitHub refuses, and a login that is not the token's, storing neither", async () => {
    world = await gitHubWorld();
    const client = await v1Client(world.env);
    const refused = await rpcError(client.rpc.account.login({ host: "https://github.com", login: "mallory", token: "stolen-token" }));
    expect(refused.code).toBe(AuthenticationFailed);
    expect(refused.message).toMatch(/401 Unauthorized/);
    expect(refused.message).not.toContain("stolen-token");
    const mismatch = await rpcError(client.rpc.account.login({ host: "https://github.com", login: "mallory", token: "token-alice" }));
    expect(mismatch).toEqual({ code: InvalidParams, message: "account.login: the token belongs to alice, not mallory" });
    expect(await client.rpc.account.getAllUsers()).toEqual([]);
    const notAnAccount = await rpcError(client.rpc.account.logout({ authInfo: { type: "env", host: "https://github.com", token: "x", envVar: "GH_TOKEN" } }));
    expect(notAnAccount.code).toBe(InvalidParams);
  });

  it("reports the token the runtime was started with as the current auth, with its login", async () => {
    world = await gitHubWorld();
    const client = await v1Client(world.env, { gitHubToken: "token-bob" });
    expect(await client.rpc.account.getCurrentAuth()).toEqual({ authInfo: { type: "token", host: "https://github.com", token: "token-bob", login: "bob" } });
  });

  it("reads a token's Copilot quotas from GitHub: used requests from the entitlement and percentage left, unlimited ones as -1", async () => {
    world = await gitHubWorld();
    world.model.copilotUsers.set("token-quota", {
      login: "carol",
      quota_reset_date_utc: "2026-12-01T00:00:00Z",
      quota_snapshots: {
        chat: { entitlement: 300, percent_remaining: 40, overage_count: 3, overage_permitted: false, timestamp_utc: "2026-11-20T10:00:00Z" },
        completions: { unlimited: true, entitlement: 0, percent_remaining: 100 },
      },
    });
    const client = await v1Client(world.env);
    const { quotaSnapshots } = await client.rpc.account.getQuota({ gitHubToken: "token-quota" });
    expect(quotaSnapshots).toEqual({
      chat: {
        isUnlimitedEntitlement: false,
        entitlementRequests: 300,
        usedRequests: 180,
        usageAllowedWithExhaustedQuota: false,
        remainingPercentage: 40,
        overage: 3,
        overageAllowedWithExhaustedQuota: false,
        resetDate: "2026-12-01T00:00:00Z",
      },
      completions: {
        isUnlimitedEntitlement: true,
        entitlementRequests: -1,
        usedRequests: 0,
        usageAllowedWithExhaustedQuota: true,
        remainingPercentage: 100,
        overage: 0,
        overageAllowedWithExhaustedQuota: false,
        resetDate: "2026-12-01T00:00:00Z",
      },
    });
    // Quotas change: each call asks GitHub again.
    world.model.copilotUsers.set("token-quota", { login: "carol", quota_snapshots: { chat: { entitlement: 300, percent_remaining: 10 } } });
    expect((await client.rpc.account.getQuota({ gitHubToken: "token-quota" })).quotaSnapshots.chat).toMatchObject({ usedRequests: 270, remainingPercentage: 10 });
    // A logged-in account's quota by its selectionId.
    await client.rpc.account.login({ host: "https://github.com", token: "token-quota" });
    const [carol] = await client.rpc.account.getAllUsers();
    expect((await client.rpc.account.getQuota({ selectionId: carol?.selectionId })).quotaSnapshots.chat?.usedRequests).toBe(270);
    expect((await rpcError(client.rpc.account.getQuota({ gitHubToken: "no-such-token" }))).code).toBe(AuthenticationFailed);
  });
});

describe("Copilot API headers", () => {
  it("provider.getEndpoint reports the headers the session's model calls carry: API version, the session id as interaction id, a Copilot API User-Agent", async () => {
    world = await gitHubWorld(["plain-reply"]);
    const client = await v1Client({ ...world.env, COPILOT_ALLOW_GET_PROVIDER_ENDPOINT: "true" });
    const session = await client.createSession({ onPermissionRequest: approveAll, gitHubToken: "token-alice" });
    const endpoint = await session.rpc.provider.getEndpoint({});
    expect(endpoint).toMatchObject({ type: "openai", wireApi: "completions", baseUrl: world.modelUrl, apiKey: "token-alice" });
    expect(endpoint.headers).toMatchObject({
      Authorization: "Bearer token-alice",
      "X-Interaction-Id": session.sessionId,
      "X-GitHub-Api-Version": expect.stringMatching(/^\d{4}-\d\d-\d\d$/),
      "User-Agent": expect.stringMatching(/^tandem\/\S+ \(GitHub Copilot API client\)$/),
    });
    await session.sendAndWait({ prompt: "Say hello" });
    const [call] = world.model.requests.filter((request) => request.path.endsWith("/chat/completions"));
    expect(call?.headers).toMatchObject({
      authorization: "Bearer token-alice",
      "x-interaction-id": session.sessionId,
      "x-github-api-version": endpoint.headers["X-GitHub-Api-Version"],
      "user-agent": endpoint.headers["User-Agent"],
      "copilot-integration-id": "tandem",
    });
  });
});
