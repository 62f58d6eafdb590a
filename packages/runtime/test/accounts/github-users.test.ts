import { ModelServer } from "@tandem/testkit";
import { ErrorCodes } from "@tandem/protocol/errors";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { GitHubUsers, gitHubApiUrlFromEnv, maxKnownTokens } from "../../src/accounts/github-users.js";

let server: ModelServer;
let url: string;

beforeEach(async () => {
  server = new ModelServer();
  ({ url } = await server.start());
});

afterEach(async () => {
  await server.stop();
});

describe("GitHubUsers", () => {
  it("asks GitHub once per token for who it is, again when asked for fresh numbers, and every time for a refused token", async () => {
    server.copilotUsers.set("token-a", { login: "a", copilot_plan: "business" });
    const users = new GitHubUsers({ apiUrl: url });
    expect(await users.lookup("token-a")).toMatchObject({ login: "a", copilot_plan: "business" });
    await users.lookup("token-a");
    expect(server.copilotUsers.lookups).toHaveLength(1);
    await users.lookup("token-a", { fresh: true });
    expect(server.copilotUsers.lookups).toHaveLength(2);

    for (let attempt = 0; attempt < 2; attempt++) {
      const refused = await users.lookup("token-bad").catch((error: unknown) => error);
      expect(refused).toMatchObject({ code: ErrorCodes.AuthenticationFailed, message: `GitHub refused the token (401 Unauthorized) at ${url}/copilot_internal/user: Bad credentials` });
      expect(String((refused as Error).message)).not.toContain("token-bad");
    }
    expect(server.copilotUsers.lookups.filter((lookup) => lookup.token === "token-bad")).toHaveLength(2);
  });

  it(`keeps the users of the last ${maxKnownTokens} tokens only`, async () => {
    const users = new GitHubUsers({ apiUrl: url });
    for (let index = 0; index <= maxKnownTokens; index++) server.copilotUsers.set(`token-${index}`, { login: `user-${index}` });
    for (let index = 0; index <= maxKnownTokens; index++) await users.lookup(`token-${index}`);
    await users.lookup(`token-${maxKnownTokens}`);
    await users.lookup("token-0");
    expect(server.copilotUsers.lookups.filter((lookup) => lookup.token === `token-${maxKnownTokens}`)).toHaveLength(1);
    expect(server.copilotUsers.lookups.filter((lookup) => lookup.token === "token-0")).toHaveLength(2);
  });

  it("fails with ProviderError when GitHub cannot be reached, and NotAvailable when no GitHub API is known", async () => {
    await server.stop();
    const unreachable = await new GitHubUsers({ apiUrl: url, timeoutMs: 5000 }).lookup("token-a").catch((error: unknown) => error);
    expect(unreachable).toMatchObject({ code: ErrorCodes.ProviderError, message: expect.stringMatching(/^Could not look up the GitHub user at /) });
    const none = await new GitHubUsers({ apiUrl: undefined }).lookup("token-a").catch((error: unknown) => error);
    expect(none).toMatchObject({ code: ErrorCodes.NotAvailable });
    server = new ModelServer();
  });

  it("knows the GitHub API from COPILOT_DEBUG_GITHUB_API_URL, else the public one for the public Copilot API only", () => {
    expect(gitHubApiUrlFromEnv({ COPILOT_DEBUG_GITHUB_API_URL: "http://127.0.0.1:9/", COPILOT_API_URL: "http://x" })).toBe("http://127.0.0.1:9");
    expect(gitHubApiUrlFromEnv({})).toBe("https://api.github.com");
    expect(gitHubApiUrlFromEnv({ COPILOT_API_URL: "http://copilot.internal" })).toBeUndefined();
    expect(gitHubApiUrlFromEnv({ OPENAI_API_KEY: "sk" })).toBeUndefined();
  });
});
