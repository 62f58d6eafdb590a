/**
 * The runtime's command line: every flag an official SDK (0.1 to 1.0.x) passes is accepted, and
 * anything else stops the runtime with exit status 2 and the flag named on stderr, which the
 * official SDKs show to the application.
 */
import { spawnSync } from "node:child_process";
import { CopilotClient as Official02Client, approveAll as approve02 } from "@github/copilot-sdk";
import { CopilotClient as OfficialV1Client, RuntimeConnection, approveAll as approveV1 } from "copilot-sdk-v1";
import { afterEach, describe, expect, it } from "vitest";
import { startWorld, tandemBin, type TestWorld } from "../helpers/harness.js";

let world: TestWorld | undefined;
const cleanups: Array<() => Promise<unknown>> = [];

afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => undefined);
  await world?.dispose();
  world = undefined;
});

function runTandem(args: string[]): { status: number | null; stdout: string; stderr: string } {
  const result = spawnSync(process.execPath, [tandemBin, ...args], { encoding: "utf8", timeout: 30_000, input: "" });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

describe("tandem command line", () => {
  it("an unknown flag stops the runtime with status 2 and names the flag", () => {
    const result = runTandem(["--headless", "--stdio", "--frobnicate"]);
    expect(result.status).toBe(2);
    expect(result.stderr).toContain("unknown flag --frobnicate");
    expect(result.stdout).toBe("");
  });

  it("a stray argument is refused the same way", () => {
    const result = runTandem(["--stdio", "oops"]);
    expect(result.status).toBe(2);
    expect(result.stderr).toContain('unexpected argument "oops"');
  });

  it("accepts every flag the official SDKs pass (0.1's --server to 1.0's --session-idle-timeout and --remote)", () => {
    const sdkFlags = [
      "--server", "--headless", "--no-auto-update", "--log-level", "debug", "--stdio", "--auth-token-env", "COPILOT_SDK_AUTH_TOKEN",
      "--no-auto-login", "--session-idle-timeout", "600", "--remote", "--port", "0",
    ];
    const result = runTandem([...sdkFlags, "--version"]);
    expect(result.stderr).toBe("");
    expect(result.status).toBe(0);
  });

  it("--session-idle-timeout needs a whole number of seconds", () => {
    const result = runTandem(["--stdio", "--session-idle-timeout", "soon"]);
    expect(result.status).toBe(2);
    expect(result.stderr).toContain("--session-idle-timeout");
  });

  it("official SDK 0.2.0: an unknown flag in cliArgs fails start() with the runtime's stderr", async () => {
    world = await startWorld(["plain-reply"]);
    const client = new Official02Client({ cliPath: tandemBin, cliArgs: ["--frobnicate"], env: world.env, logLevel: "error" });
    cleanups.push(() => client.forceStop());
    await expect(client.start()).rejects.toThrow(/--frobnicate/);
  });

  it("official SDK 1.0.x: an unknown flag fails start() with the runtime's stderr", async () => {
    world = await startWorld(["plain-reply"]);
    const client = new OfficialV1Client({ connection: RuntimeConnection.forStdio({ path: tandemBin, env: world.env, args: ["--frobnicate"] }), logLevel: "error" });
    cleanups.push(() => client.forceStop());
    await expect(client.start()).rejects.toThrow(/--frobnicate/);
  });

  it("official SDK 1.0.x with every option that adds a flag (token, idle timeout, remote sessions): a full turn works", async () => {
    world = await startWorld(["plain-reply"]);
    const client = new OfficialV1Client({
      connection: RuntimeConnection.forStdio({ path: tandemBin, env: world.env }),
      logLevel: "error",
      gitHubToken: "test-token",
      useLoggedInUser: false,
      sessionIdleTimeoutSeconds: 600,
      enableRemoteSessions: true,
    });
    cleanups.push(() => client.stop());
    const session = await client.createSession({ onPermissionRequest: approveV1 });
    expect((await session.sendAndWait({ prompt: "Say hello" }))?.data.content).toBe("Hello from the scripted model.");
  });

  it("official SDK 0.2.0 with a token (--auth-token-env, --no-auto-login): a full turn works", async () => {
    world = await startWorld(["plain-reply"]);
    const client = new Official02Client({ cliPath: tandemBin, env: world.env, logLevel: "error", githubToken: "test-token", useLoggedInUser: false });
    cleanups.push(() => client.stop());
    const session = await client.createSession({ onPermissionRequest: approve02 });
    expect((await session.sendAndWait({ prompt: "Say hello" }))?.data.content).toBe("Hello from the scripted model.");
  });
});
