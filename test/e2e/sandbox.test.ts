/**
 * The OS sandbox of a session's bash commands, through the built runtime and the real bubblewrap:
 * the file system policy (writes outside allowed paths, read-only and denied paths, symlink and
 * /proc escapes), the network (none, not even the host's 127.0.0.1 services; allowed hosts through
 * the runtime's proxy), named shells, output limits, the runtime-wide default, bypass through the
 * application's approval only, and the typed refusal when the sandbox cannot start.
 */
import { chmodSync, chownSync, existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, expect, it, onTestFinished } from "vitest";
import { fileURLToPath } from "node:url";
import { startWorld, type TestWorld } from "../helpers/harness.js";
import { RawClient } from "../helpers/raw-client.js";
import { ScriptedBash, type BashRun } from "../helpers/scripted-bash.js";

let world: TestWorld | undefined;
let client: RawClient | undefined;
let workdir: string;
let outside: string;
let server: Server | undefined;
let bash: ScriptedBash | undefined;

beforeEach(() => {
  workdir = realpathSync(mkdtempSync(join(tmpdir(), "tandem-sandbox-work-")));
  outside = realpathSync(mkdtempSync(join(tmpdir(), "tandem-sandbox-outside-")));
});

afterEach(async () => {
  await client?.close(true);
  client = undefined;
  await world?.dispose();
  world = undefined;
  if (server) await new Promise((resolve) => server?.close(resolve));
  server = undefined;
  rmSync(workdir, { recursive: true, force: true });
  rmSync(outside, { recursive: true, force: true });
});

async function open(env: Record<string, string> = {}, args: string[] = [], user?: { uid: number; gid: number }): Promise<RawClient> {
  world = await startWorld([]);
  if (user) for (const folder of [world.home, workdir, outside]) chownSync(folder, user.uid, user.gid);
  client = new RawClient({ ...world.env, ...env }, args, user);
  bash = new ScriptedBash(world, client, "sandbox");
  return client;
}

async function createSession(sandbox: unknown): Promise<string> {
  const response = await client!.request("session.create", { workingDirectory: workdir, requestPermission: true, ...(sandbox === undefined ? {} : { sandbox }) });
  expect(response.error).toBeUndefined();
  return (response.result as { sessionId: string }).sessionId;
}

/** The model runs one bash call; the application approves it (unless `approve` is false); answers the completion once the turn ended. */
const runBash = (sessionId: string, bashArgs: Record<string, unknown>, approve = true): Promise<BashRun> => bash!.run(sessionId, bashArgs, approve);

const sandboxOn = (extra: Record<string, unknown> = {}) => ({ enabled: true, ...extra });

it("a sandboxed command writes only where the policy allows, and cannot see denied paths, even through symlinks or /proc", { timeout: 120_000 }, async () => {
  mkdirSync(join(workdir, "frozen"));
  mkdirSync(join(outside, "writable"));
  mkdirSync(join(outside, "secrets"));
  writeFileSync(join(outside, "secrets", "key.txt"), "TOP-SECRET-DIR");
  writeFileSync(join(outside, "token.txt"), "TOP-SECRET-FILE");
  symlinkSync(join(outside, "secrets"), join(workdir, "link-to-secrets"));
  // A path on the host's disk outside the writable ones (the checkout this test runs from).
  const hostFile = join(process.cwd(), `sandbox-escape-${process.pid}.txt`);
  const systemFile = `/usr/local/sandbox-escape-${process.pid}.txt`;
  const tmpFile = `/tmp/sandbox-private-${process.pid}.txt`;
  onTestFinished(() => {
    for (const path of [hostFile, systemFile, tmpFile]) rmSync(path, { force: true });
  });
  await open();
  const sessionId = await createSession(
    sandboxOn({
      userPolicy: {
        filesystem: {
          readwritePaths: [join(outside, "writable")],
          readonlyPaths: [join(workdir, "frozen")],
          deniedPaths: [join(outside, "secrets"), join(outside, "token.txt")],
        },
      },
    }),
  );

  const writes = await runBash(sessionId, {
    command: [
      `echo ok > ${workdir}/inside.txt && echo workdir-written`,
      `echo ok > ${outside}/writable/granted.txt && echo granted-written`,
      `echo no > ${outside}/escaped.txt`,
      `echo no > ${hostFile} 2>/dev/null || echo outside-refused`,
      `echo no > ${workdir}/frozen/x.txt 2>/dev/null || echo frozen-refused`,
      `echo no > ${systemFile} 2>/dev/null || echo system-refused`,
      `echo private > ${tmpFile} && echo tmp-written`,
    ].join("; "),
  });
  expect(writes.permission).toMatchObject({ kind: "shell", sandboxed: true });
  expect(writes.complete.sandboxed).toBe(true);
  for (const line of ["workdir-written", "granted-written", "outside-refused", "frozen-refused", "system-refused", "tmp-written"]) expect(writes.text).toContain(line);
  expect(readFileSync(join(workdir, "inside.txt"), "utf8")).toBe("ok\n");
  expect(readFileSync(join(outside, "writable", "granted.txt"), "utf8")).toBe("ok\n");
  // Under /tmp it landed in the sandbox's private /tmp, not on the host.
  expect(existsSync(join(outside, "escaped.txt"))).toBe(false);
  expect(existsSync(hostFile)).toBe(false);
  expect(existsSync(join(workdir, "frozen", "x.txt"))).toBe(false);
  expect(existsSync(systemFile)).toBe(false);
  expect(existsSync(tmpFile)).toBe(false);

  const reads = await runBash(sessionId, {
    command: [
      `cat ${outside}/secrets/key.txt`,
      `cat ${outside}/token.txt`,
      `cat ${workdir}/link-to-secrets/key.txt`,
      `cat /proc/self/root${outside}/secrets/key.txt`,
      `cat /proc/1/root${outside}/secrets/key.txt`,
      `ls -A ${outside}/secrets | wc -l`,
      `echo reads-done`,
    ].join("; "),
  });
  expect(reads.complete.sandboxed).toBe(true);
  expect(reads.text).toContain("reads-done");
  expect(reads.text).not.toContain("TOP-SECRET");
});

it("the network is unreachable from the sandbox, the host's 127.0.0.1 services included, unless a host is allowed through the proxy", { timeout: 120_000 }, async () => {
  server = createServer((request, response) => response.end(`hello from the host to ${request.headers.host ?? ""}\n`));
  await new Promise<void>((resolve) => server!.listen(0, "127.0.0.1", () => resolve()));
  const port = (server.address() as AddressInfo).port;
  await open();
  const closed = await createSession(sandboxOn());
  const blocked = await runBash(closed, { command: `curl -sS --max-time 5 http://127.0.0.1:${port}/ || echo unreachable` });
  expect(blocked.complete.sandboxed).toBe(true);
  expect(blocked.text).toContain("unreachable");
  expect(blocked.text).not.toContain("hello from the host");

  const open_ = await createSession(sandboxOn({ userPolicy: { network: { allowedHosts: ["allowed.localhost"] } } }));
  const through = await runBash(open_, {
    command: [
      `curl -sS --max-time 10 http://allowed.localhost:${port}/`,
      `curl -sS --max-time 10 --proxytunnel http://allowed.localhost:${port}/tunnel`,
      `curl -sS --max-time 10 http://127.0.0.1:${port}/ || true`,
      `curl -sS --max-time 10 http://other.localhost:${port}/ || true`,
      `curl -sS --max-time 5 --noproxy '*' http://127.0.0.1:${port}/ || echo direct-unreachable`,
    ].join("; echo; "),
  });
  expect(through.complete.sandboxed).toBe(true);
  expect(through.text.match(/hello from the host to allowed\.localhost/g)?.length).toBe(2);
  expect(through.text).toContain("Blocked by the Tandem sandbox: 127.0.0.1 is not on the sandbox's allowedHosts");
  expect(through.text).toContain("Blocked by the Tandem sandbox: other.localhost is not on the sandbox's allowedHosts");
  expect(through.text).toContain("direct-unreachable");

  const status = (await client!.request("session.sandbox.getEnforcementStatus", { sessionId: open_ })).result;
  expect(status).toMatchObject({ enabled: true, enforced: true, mechanism: "bubblewrap", network: { allowOutbound: false, allowedHosts: ["allowed.localhost"] } });
});

it("a named shell keeps its state inside the sandbox, and a flooding command stays bounded", { timeout: 120_000 }, async () => {
  await open();
  const sessionId = await createSession(sandboxOn());
  const marker = `tandem-named-${process.pid}-${Date.now()}`;
  const first = await runBash(sessionId, { command: `cd /tmp && export KEPT=${marker} && echo $KEPT > /tmp/${marker}`, shellId: "named" });
  expect(first.complete.sandboxed).toBe(true);
  const second = await runBash(sessionId, { command: `pwd; echo "var=$KEPT"; cat /tmp/${marker}`, shellId: "named" });
  expect(second.complete.sandboxed).toBe(true);
  expect(second.text).toContain("/tmp\n");
  expect(second.text).toContain(`var=${marker}`);
  expect(second.text.split(marker).length).toBeGreaterThanOrEqual(3);
  expect(existsSync(join("/tmp", marker))).toBe(false);

  const flood = await runBash(sessionId, { command: "yes", initial_wait: 2 });
  expect(flood.complete.sandboxed).toBe(true);
  expect(flood.text).toContain("<command timed out after 2 seconds");
  expect(flood.text.length).toBeLessThan(40_000);
});

it("with the runtime's --sandbox default a session without its own sandbox config is sandboxed; TANDEM_SANDBOX does the same", { timeout: 120_000 }, async () => {
  await open({}, ["--sandbox", "on"]);
  const byFlag = await createSession(undefined);
  const run = await runBash(byFlag, { command: `echo x > ${outside}/flag.txt 2>/dev/null || echo refused` });
  expect(run.complete.sandboxed).toBe(true);
  expect(run.text).toContain("refused");
  const ownConfig = await createSession({ enabled: false });
  const unsandboxed = await runBash(ownConfig, { command: "echo plain" });
  expect(unsandboxed.complete.sandboxed).toBe(false);
  expect(unsandboxed.permission).not.toHaveProperty("sandboxed");
  await client!.close(true);
  await world!.dispose();

  await open({ TANDEM_SANDBOX: JSON.stringify({ enabled: true }) });
  const byEnv = await createSession(undefined);
  const envRun = await runBash(byEnv, { command: `echo x > ${outside}/env.txt 2>/dev/null || echo refused` });
  expect(envRun.complete.sandboxed).toBe(true);
  expect(existsSync(join(outside, "env.txt"))).toBe(false);
});

it("when bubblewrap cannot start, commands are refused with the reason and how to run unsandboxed; nothing runs", { timeout: 120_000 }, async () => {
  const failing = join(outside, "bwrap-without-userns");
  writeFileSync(failing, "#!/bin/sh\necho 'bwrap: No permissions to create new namespace' >&2\nexit 1\n");
  chmodSync(failing, 0o755);
  await open({ TANDEM_BWRAP: failing });
  const sessionId = await createSession(sandboxOn());
  const refused = await runBash(sessionId, { command: `touch ${workdir}/ran.txt` });
  expect(refused.complete.success).toBe(false);
  expect(refused.complete.sandboxed).toBe(false);
  expect(refused.text).toContain("The sandbox cannot start");
  expect(refused.text).toContain("No permissions to create new namespace");
  expect(refused.text).toContain("sandbox.enabled to false");
  expect(existsSync(join(workdir, "ran.txt"))).toBe(false);

  const status = (await client!.request("session.sandbox.getEnforcementStatus", { sessionId })).result as Record<string, unknown>;
  expect(status).toMatchObject({ enabled: true, enforced: false, mechanism: null, allowBypass: false });
  expect(String(status.reason)).toContain("No permissions to create new namespace");

  const disable = await client!.request("session.sandbox.disableForSession", { sessionId });
  expect(disable.error).toMatchObject({ code: -32015 });
  const missing = await createSession(sandboxOn());
  expect(missing).toBeTruthy();
  await client!.close(true);
  await world!.dispose();

  await open({ TANDEM_BWRAP: join(outside, "no-such-bwrap") });
  const absent = await createSession(sandboxOn());
  const notFound = await runBash(absent, { command: `touch ${workdir}/ran.txt` });
  expect(notFound.text).toContain(`bubblewrap was not found at ${join(outside, "no-such-bwrap")}`);
  expect(existsSync(join(workdir, "ran.txt"))).toBe(false);
});

it("a command runs outside the sandbox only when allowBypass is set and the application approves the bypass request", { timeout: 120_000 }, async () => {
  await open();
  const strict = await createSession(sandboxOn());
  // Without allowBypass the model is not offered the bypass: asking for it changes nothing.
  const notAllowed = await runBash(strict, { command: `echo x > ${outside}/bypass.txt && echo wrote`, requestSandboxBypass: true });
  expect(notAllowed.permission).toMatchObject({ sandboxed: true });
  expect(notAllowed.permission).not.toHaveProperty("requestSandboxBypass");
  expect(notAllowed.complete.sandboxed).toBe(true);
  expect(existsSync(join(outside, "bypass.txt"))).toBe(false);
  const offered = (world!.model.requests.at(-1)?.body as { tools?: Array<{ function: { name: string; parameters: { properties: object } } }> }).tools;
  expect(Object.keys(offered?.find((tool) => tool.function.name === "bash")?.function.parameters.properties ?? {})).not.toContain("requestSandboxBypass");

  const lenient = await createSession(sandboxOn({ allowBypass: true }));
  const denied = await runBash(lenient, { command: `echo x > ${outside}/bypass.txt`, requestSandboxBypass: true, requestSandboxBypassReason: "needs the host" }, false);
  expect(denied.permission).toMatchObject({ kind: "shell", sandboxed: false, requestSandboxBypass: true, requestSandboxBypassReason: "needs the host" });
  expect(existsSync(join(outside, "bypass.txt"))).toBe(false);
  const approved = await runBash(lenient, { command: `echo x > ${outside}/bypass.txt && echo bypassed`, requestSandboxBypass: true });
  expect(approved.permission).toMatchObject({ requestSandboxBypass: true, sandboxed: false });
  expect(approved.complete.sandboxed).toBe(false);
  expect(readFileSync(join(outside, "bypass.txt"), "utf8")).toBe("x\n");
  const back = await runBash(lenient, { command: `echo y > ${outside}/after.txt 2>/dev/null || echo refused` });
  expect(back.complete.sandboxed).toBe(true);
  expect(existsSync(join(outside, "after.txt"))).toBe(false);

  expect((await client!.request("session.sandbox.disableForSession", { sessionId: lenient })).result).toEqual({ success: true });
  const status = (await client!.request("session.sandbox.getEnforcementStatus", { sessionId: lenient })).result;
  expect(status).toMatchObject({ enabled: true, enforced: false, disabledForSession: true });
  const disabled = await runBash(lenient, { command: "echo free" });
  expect(disabled.complete.sandboxed).toBe(false);
});

const stdioServer = fileURLToPath(new URL("../fixtures/mcp/stdio-server.mjs", import.meta.url));

/** The status of each of the session's MCP servers once none is still connecting. */
async function mcpStatuses(sessionId: string): Promise<Record<string, string>> {
  let servers: Array<{ name: string; status: string }> = [];
  // Polled: a server's start is not an event of its own here.
  for (let attempt = 0; attempt < 300; attempt++) {
    servers = ((await client!.request("session.mcp.list", { sessionId })).result as { servers: typeof servers }).servers;
    if (servers.length > 0 && servers.every((server) => server.status !== "connecting" && server.status !== "pending")) break;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  // The application's servers only: a Copilot API session also lists GitHub's MCP server (HTTP, never sandboxed).
  return Object.fromEntries(servers.filter((server) => server.name !== "github-mcp-server").map((server) => [server.name, server.status]));
}

it("stdio MCP servers start in the sandbox unless sandboxMcpServers is false, and fail to start when the sandbox cannot", { timeout: 120_000 }, async () => {
  const hostDisk = realpathSync(mkdtempSync(join(process.cwd(), ".sandbox-mcp-")));
  try {
    const server = (log: string) => ({ command: process.execPath, args: [stdioServer], tools: ["*"], env: { MCP_FIXTURE_LOG: log } });
    await open();
    const sandboxed = (await client!.request("session.create", {
      workingDirectory: workdir,
      sandbox: { enabled: true },
      mcpServers: { inside: server(join(workdir, "inside.log")), escaping: server(join(hostDisk, "escaping.log")) },
    })).result as { sessionId: string };
    expect(await mcpStatuses(sandboxed.sessionId)).toEqual({ inside: "connected", escaping: "failed" });
    expect(readFileSync(join(workdir, "inside.log"), "utf8")).toContain("start");
    expect(existsSync(join(hostDisk, "escaping.log"))).toBe(false);

    const trusted = (await client!.request("session.create", {
      workingDirectory: workdir,
      sandbox: { enabled: true, sandboxMcpServers: false },
      mcpServers: { trusted: server(join(hostDisk, "trusted.log")) },
    })).result as { sessionId: string };
    expect(await mcpStatuses(trusted.sessionId)).toEqual({ trusted: "connected" });
    expect(existsSync(join(hostDisk, "trusted.log"))).toBe(true);
    await client!.close(true);
    await world!.dispose();

    await open({ TANDEM_BWRAP: join(outside, "no-such-bwrap") });
    const refused = (await client!.request("session.create", {
      workingDirectory: workdir,
      sandbox: { enabled: true },
      mcpServers: { refused: server(join(hostDisk, "refused.log")) },
    })).result as { sessionId: string };
    expect(await mcpStatuses(refused.sessionId)).toEqual({ refused: "failed" });
    expect(existsSync(join(hostDisk, "refused.log"))).toBe(false);
  } finally {
    rmSync(hostDisk, { recursive: true, force: true });
  }
});

it("an unprivileged runtime sandboxes as well (as nobody when the tests run as root, as CI does)", { timeout: 120_000 }, async () => {
  // CI runs as root, where bubblewrap could lean on privileges; the user namespaces must work without them.
  const nobody = process.getuid?.() === 0 ? { uid: 65534, gid: 65534 } : undefined;
  writeFileSync(join(outside, "secret.txt"), "UNPRIVILEGED-SECRET");
  chmodSync(join(outside, "secret.txt"), 0o644);
  await open({}, [], nobody);
  const sessionId = await createSession(sandboxOn({ userPolicy: { filesystem: { deniedPaths: [join(outside, "secret.txt")] } } }));
  const run = await runBash(sessionId, {
    command: [`id -u`, `echo ok > ${workdir}/mine.txt && echo wrote`, `cat ${outside}/secret.txt`, `echo no > /usr/local/nope.txt 2>/dev/null || echo system-refused`].join("; "),
  });
  expect(run.complete.sandboxed).toBe(true);
  expect(run.text).toContain("wrote");
  expect(run.text).toContain("system-refused");
  expect(run.text).not.toContain("UNPRIVILEGED-SECRET");
  expect(readFileSync(join(workdir, "mine.txt"), "utf8")).toBe("ok\n");
  if (nobody) expect(run.text).toMatch(/^65534$/m);
  const status = (await client!.request("session.sandbox.getEnforcementStatus", { sessionId })).result;
  expect(status).toMatchObject({ enforced: true, mechanism: "bubblewrap" });
});

it("a runtime-wide sandbox setting that is not on, off or a valid SandboxConfig is refused, never taken as off", { timeout: 60_000 }, async () => {
  const garbage = await open({ TANDEM_SANDBOX: "maybe" });
  await garbage.waitClosed(30_000);
  expect(garbage.child.exitCode ?? (await new Promise((resolve) => garbage.child.once("exit", resolve)))).toBe(2);
  expect(garbage.stderr).toContain("TANDEM_SANDBOX must be on, off or a SandboxConfig as JSON");
  await world!.dispose();

  await open({ TANDEM_SANDBOX: JSON.stringify({ enabled: "yes" }) });
  const refused = await client!.request("session.create", { workingDirectory: workdir });
  expect(refused.error?.message).toContain("--sandbox / TANDEM_SANDBOX is not a valid SandboxConfig (enabled: Invalid input: expected boolean, received string)");
});
