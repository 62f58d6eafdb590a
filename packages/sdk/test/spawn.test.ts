import { createServer } from "node:net";
import { realpathSync } from "node:fs";
import { tmpdir } from "node:os";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { CopilotClient, type CopilotClientOptions } from "../src/index.js";
import { defaultCliPath } from "../src/options.js";

const fakeCli = fileURLToPath(new URL("./fixtures/fake-cli.js", import.meta.url));
const exitAtOnce = fileURLToPath(new URL("./fixtures/exit-at-once.js", import.meta.url));

const clients: CopilotClient[] = [];
afterEach(async () => {
  for (const client of clients.splice(0)) await client.forceStop();
});

function newClient(options: CopilotClientOptions): CopilotClient {
  const client = new CopilotClient(options);
  clients.push(client);
  return client;
}

/** The fake runtime answers ping with how it was started. */
async function describeRuntime(client: CopilotClient) {
  return JSON.parse((await client.ping()).message) as {
    argv: string[];
    cwd: string;
    token: string | null;
    connectionToken: string | null;
    nodeDebug: string | null;
    custom: string | null;
  };
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (!address || typeof address === "string") throw new Error("no port");
  return address.port;
}

describe("spawning the runtime", () => {
  it("defaults to the tandem bin of @tandem/runtime", () => {
    expect(defaultCliPath()).toMatch(/packages[\\/]runtime[\\/]bin[\\/]tandem\.js$/);
  });

  it("stdio: passes the official args, the token through the environment, and drops NODE_DEBUG", async () => {
    const cwd = realpathSync(tmpdir());
    const client = newClient({
      cliPath: fakeCli,
      cliArgs: ["--extra", "x"],
      cwd,
      githubToken: "gho_secret",
      env: { ...process.env, NODE_DEBUG: "net", FAKE_CUSTOM: "yes" },
    });
    await client.start();
    expect(client.getState()).toBe("connected");
    const runtime = await describeRuntime(client);
    expect(runtime.argv).toEqual([
      "--extra",
      "x",
      "--headless",
      "--no-auto-update",
      "--log-level",
      "debug",
      "--stdio",
      "--auth-token-env",
      "COPILOT_SDK_AUTH_TOKEN",
      "--no-auto-login",
    ]);
    expect(runtime).toMatchObject({ cwd, token: "gho_secret", nodeDebug: null, custom: "yes" });
    expect(await client.stop()).toEqual([]);
    expect(client.getState()).toBe("disconnected");
  });

  it("stdio: without a token there is no auth flag and logged-in use stays on", async () => {
    const client = newClient({ cliPath: fakeCli, logLevel: "info" });
    await client.start();
    expect((await describeRuntime(client)).argv).toEqual(["--headless", "--no-auto-update", "--log-level", "info", "--stdio"]);
  });

  it("reports a runtime that exits at once with its exit code and stderr", async () => {
    const client = newClient({ cliPath: exitAtOnce });
    const error = (await client.start().catch((caught: unknown) => caught)) as Error;
    expect(error.message).toMatch(/exited with code 3/);
    expect(error.message).toContain("fatal: no model provider configured");
    expect(client.getState()).toBe("error");
  });

  it("reports a missing cliPath", async () => {
    const client = newClient({ cliPath: "/nonexistent/tandem.js" });
    await expect(client.start()).rejects.toThrow("Copilot CLI not found at /nonexistent/tandem.js");
  });

  it("TCP with port 0: waits for 'listening on port N' and connects to it", async () => {
    const client = newClient({ cliPath: fakeCli, useStdio: false });
    await client.start();
    expect((await describeRuntime(client)).argv).toEqual(["--headless", "--no-auto-update", "--log-level", "debug"]);
    expect(await client.stop()).toEqual([]);
  });

  it("TCP: gives the runtime a fresh random connection token in COPILOT_CONNECTION_TOKEN (the official SDK 1.0's way)", async () => {
    const first = newClient({ cliPath: fakeCli, useStdio: false });
    const second = newClient({ cliPath: fakeCli, useStdio: false });
    await Promise.all([first.start(), second.start()]);
    const firstToken = (await describeRuntime(first)).connectionToken;
    expect(firstToken).toMatch(/^[0-9a-f-]{36}$/);
    expect((await describeRuntime(second)).connectionToken).not.toBe(firstToken);
  });

  it("TCP: uses the connectionToken option when given; stdio gets none", async () => {
    const tcp = newClient({ cliPath: fakeCli, useStdio: false, connectionToken: "chosen-token" });
    await tcp.start();
    expect((await describeRuntime(tcp)).connectionToken).toBe("chosen-token");
    const stdio = newClient({ cliPath: fakeCli, env: { ...process.env, COPILOT_CONNECTION_TOKEN: undefined } });
    await stdio.start();
    expect((await describeRuntime(stdio)).connectionToken).toBeNull();
  });

  it("TCP with a fixed port: passes --port N", async () => {
    const port = await freePort();
    const client = newClient({ cliPath: fakeCli, useStdio: false, port, useLoggedInUser: false });
    await client.start();
    expect((await describeRuntime(client)).argv).toEqual([
      "--headless",
      "--no-auto-update",
      "--log-level",
      "debug",
      "--port",
      String(port),
      "--no-auto-login",
    ]);
  });

  it("rejects in-flight requests when the runtime dies, and goes to disconnected without autoRestart", async () => {
    const client = newClient({ cliPath: fakeCli, autoRestart: false });
    await client.start();
    await expect(client.ping("crash")).rejects.toThrow();
    expect(client.getState()).toBe("disconnected");
    await expect(client.ping()).rejects.toThrow("Client not connected");
  });

  it("respawns the runtime after a crash when autoRestart is on", async () => {
    const client = newClient({ cliPath: fakeCli });
    await client.start();
    const firstPid = ((await client.ping()) as { pid?: number }).pid;
    await expect(client.ping("crash")).rejects.toThrow();
    // A respawn is a new Node process: allow for a loaded machine.
    await expect.poll(() => client.getState(), { timeout: 15_000 }).toBe("connected");
    const secondPid = ((await client.ping()) as { pid?: number }).pid;
    expect(secondPid).toBeTypeOf("number");
    expect(secondPid).not.toBe(firstPid);
  });

  it("TCP: a runtime that exits before listening fails the start", async () => {
    const client = newClient({ cliPath: exitAtOnce, useStdio: false });
    await expect(client.start()).rejects.toThrow(/exited with code 3/);
  });
});
