import { describe, expect, it } from "vitest";
import { takeConnectionToken, tokenMatches } from "../../src/server/connection-token.js";

describe("takeConnectionToken", () => {
  it("reads COPILOT_CONNECTION_TOKEN and removes it, so the runtime's tools and MCP servers do not inherit it", () => {
    const env: NodeJS.ProcessEnv = { COPILOT_CONNECTION_TOKEN: "abc", PATH: "/bin" };
    expect(takeConnectionToken(env, undefined)).toBe("abc");
    expect(env).toEqual({ PATH: "/bin" });
  });

  it("reads the variable named by --connection-token-env instead (and removes both)", () => {
    const env: NodeJS.ProcessEnv = { COPILOT_CONNECTION_TOKEN: "ignored", MINE: "mine" };
    expect(takeConnectionToken(env, "MINE")).toBe("mine");
    expect(env).toEqual({});
  });

  it("treats an empty variable as no token, and a flag naming an unset variable as an error", () => {
    expect(takeConnectionToken({ COPILOT_CONNECTION_TOKEN: "" }, undefined)).toBeUndefined();
    expect(takeConnectionToken({}, undefined)).toBeUndefined();
    expect(() => takeConnectionToken({}, "MISSING")).toThrow("--connection-token-env names MISSING, which is not set (or empty)");
  });
});

describe("tokenMatches", () => {
  it("accepts only the same non-empty string, whatever the lengths", async () => {
    expect(await tokenMatches("secret", "secret")).toBe(true);
    expect(await tokenMatches("secret", "secreT")).toBe(false);
    expect(await tokenMatches("secret", "secret-and-more")).toBe(false);
    expect(await tokenMatches("secret", "")).toBe(false);
    expect(await tokenMatches("secret", 42)).toBe(false);
    expect(await tokenMatches("secret", undefined)).toBe(false);
  });
});
