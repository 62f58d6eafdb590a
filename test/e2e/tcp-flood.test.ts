/**
 * Another OS user cannot stall a TCP runtime: a flood of unauthenticated connections from `nobody`
 * (300 at once, reopened as soon as they close) leaves the runtime's own user with quick pings (p99
 * within 50 ms of this machine's flood-free p99), a quick new connection and session, and the
 * runtime's memory small; `nobody` keeps at most its share of unauthenticated connections, and its
 * token guesses are throttled. Real runtime, real sockets, a real second OS user (setpriv; the
 * tests run as root).
 */
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { startWorld, waitFor, type TestWorld } from "../helpers/harness.js";
import { RawTcpClient, startTcpRuntime, type TcpRuntime } from "../helpers/tcp.js";

const TOKEN = "flood-test-token-5f0c2a9e71d84b36";
// The flooder runs under SCHED_IDLE (only on otherwise idle CPU): a local user can always take CPU
// with a busy loop, and on a shared two-core machine that alone moves the owner's latencies. What is
// measured here is what the runtime's own handling of the flood costs its owner: its ping p99 under
// the flood may exceed the p99 of a flood-free baseline just before by less than 50 ms.
const asNobody = ["chrt", "--idle", "0", "setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"];
const flooderSource = readFileSync(fileURLToPath(new URL("../helpers/tcp-flooder.cjs", import.meta.url)), "utf8");

let world: TestWorld | undefined;
const cleanups: Array<() => Promise<unknown> | unknown> = [];

afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  await world?.dispose();
  world = undefined;
});

interface FloodCounts {
  opened: number;
  errors: number;
  refusedForLimit: number;
  maxHeld: number;
  checked: number;
  throttled: number;
  otherAnswers: number;
}

/** Runs the flooder as `nobody`; resolves with its counts when it is done. */
function floodAsNobody(options: { port: number; mode: "hold" | "guess"; connections: number; durationMs: number }): Promise<FloodCounts> {
  const child = spawn(asNobody[0] as string, [...asNobody.slice(1), process.execPath, "-e", flooderSource, JSON.stringify(options)], { stdio: ["ignore", "pipe", "pipe"] });
  cleanups.push(() => child.kill("SIGKILL"));
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve, reject) => {
    child.once("exit", (code) => {
      if (code !== 0) reject(new Error(`the flooder exited with ${code}: ${stderr}`));
      else resolve(JSON.parse(stdout) as FloodCounts);
    });
  });
}

async function runtimeWith(env: Record<string, string>): Promise<TcpRuntime> {
  const runtime = await startTcpRuntime(env, { args: ["--log-level", "warning"] });
  cleanups.push(() => runtime.stop());
  return runtime;
}

async function ownerClient(runtime: TcpRuntime, token: string | undefined): Promise<RawTcpClient> {
  const client = await runtime.connect();
  cleanups.push(() => client.close());
  if (token !== undefined) expect((await client.request("connect", { token })).result).toMatchObject({ ok: true });
  return client;
}

/** What the owner sees while `flood` runs: its ping times, and the runtime's largest RSS. */
async function measureDuring(runtime: TcpRuntime, client: RawTcpClient, flood: Promise<FloodCounts>): Promise<{ pingMs: number[]; maxRssBytes: number }> {
  let done = false;
  void flood.finally(() => (done = true)).catch(() => undefined);
  const pingMs: number[] = [];
  let maxRssBytes = runtime.rssBytes();
  while (!done) {
    const started = performance.now();
    expect((await client.request("ping", { message: "owner" })).result).toMatchObject({ message: "pong: owner" });
    pingMs.push(performance.now() - started);
    maxRssBytes = Math.max(maxRssBytes, runtime.rssBytes());
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
  return { pingMs, maxRssBytes };
}

/** The owner's ping times over `durationMs` with no flood: what this machine's load alone costs. */
async function baselinePingMs(client: RawTcpClient, durationMs: number): Promise<number[]> {
  const pingMs: number[] = [];
  const end = performance.now() + durationMs;
  while (performance.now() < end) {
    const started = performance.now();
    await client.request("ping", { message: "owner" });
    pingMs.push(performance.now() - started);
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
  return pingMs;
}

/** How long the owner takes to open a new connection (with `token` if given) and create a session. */
async function newSessionMs(runtime: TcpRuntime, token: string | undefined): Promise<number> {
  const started = performance.now();
  const client = await ownerClient(runtime, token);
  const created = await client.request("session.create", {});
  expect(created.result).toMatchObject({ sessionId: expect.any(String) });
  return performance.now() - started;
}

function percentile(values: number[], fraction: number): number {
  const sorted = [...values].sort((left, right) => left - right);
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * fraction))] ?? Number.NaN;
}

const MiB = 1024 * 1024;

describe("a flood from another OS user", () => {
  it("without a token: 300 connections from nobody, reopened as they are refused, leave the owner served quickly", async () => {
    world = await startWorld([]);
    const runtime = await runtimeWith(world.env);
    const owner = await ownerClient(runtime, undefined);
    const baseline = await baselinePingMs(owner, 2000);

    const flood = floodAsNobody({ port: runtime.port, mode: "hold", connections: 300, durationMs: 8000 });
    const [measured, sessionMs] = await Promise.all([
      measureDuring(runtime, owner, flood),
      waitFor(() => runtime.stderr.includes("(uid 65534) is not this runtime's"), "the flood to be refused").then(() => newSessionMs(runtime, undefined)),
    ]);
    const counts = await flood;

    expect(counts.opened).toBeGreaterThan(300);
    expect(counts.maxHeld).toBe(0);
    expect(measured.pingMs.length).toBeGreaterThan(50);
    expect(percentile(measured.pingMs, 0.99)).toBeLessThan(50 + percentile(baseline, 0.99));
    expect(sessionMs).toBeLessThan(1000);
    expect(measured.maxRssBytes).toBeLessThan(120 * MiB);
    expect(runtime.stderr).toMatch(/refused TCP client 127\.0\.0\.1:\d+: its OS user \(uid 65534\) is not this runtime's/);
  }, 60_000);

  it("with a token: nobody holds at most its share of unauthenticated connections; the rest are refused at once", async () => {
    world = await startWorld([]);
    const runtime = await runtimeWith({ ...world.env, COPILOT_CONNECTION_TOKEN: TOKEN });
    const owner = await ownerClient(runtime, TOKEN);
    const baseline = await baselinePingMs(owner, 2000);

    const flood = floodAsNobody({ port: runtime.port, mode: "hold", connections: 300, durationMs: 8000 });
    const [measured, sessionMs] = await Promise.all([
      measureDuring(runtime, owner, flood),
      waitFor(() => runtime.stderr.includes("too many unauthenticated connections from uid 65534"), "the flood to hit its bound").then(() => newSessionMs(runtime, TOKEN)),
    ]);
    const counts = await flood;

    // 16 per OS user by default; a few more may still be on their way through the accept queue.
    expect(counts.maxHeld).toBeLessThanOrEqual(20);
    expect(counts.refusedForLimit).toBeGreaterThanOrEqual(280);
    expect(percentile(measured.pingMs, 0.99)).toBeLessThan(50 + percentile(baseline, 0.99));
    expect(sessionMs).toBeLessThan(1000);
    expect(measured.maxRssBytes).toBeLessThan(120 * MiB);
    expect(runtime.stderr).toMatch(/refused TCP client 127\.0\.0\.1:\d+: too many unauthenticated connections from uid 65534 \(limit 16\)/);
  }, 60_000);

  it("token guessing from nobody is throttled to about 10 a second, while the owner still connects", async () => {
    world = await startWorld([]);
    const runtime = await runtimeWith({ ...world.env, COPILOT_CONNECTION_TOKEN: TOKEN });

    const durationMs = 4000;
    const flood = floodAsNobody({ port: runtime.port, mode: "guess", connections: 8, durationMs });
    const [counts, sessionMs] = await Promise.all([
      flood,
      waitFor(() => runtime.stderr.includes("too many wrong connection tokens"), "the guessing to be throttled").then(() => newSessionMs(runtime, TOKEN)),
    ]);

    // A burst of 10, then 10 a second (some slack for the start-up of the flooder).
    expect(counts.checked).toBeLessThanOrEqual(10 + (10 * durationMs) / 1000 + 5);
    expect(counts.throttled).toBeGreaterThan(counts.checked);
    expect(sessionMs).toBeLessThan(1000);
  }, 60_000);
});
