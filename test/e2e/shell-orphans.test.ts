/**
 * Shell children die with the runtime, even when it is killed with SIGKILL and no cleanup runs:
 * the processes an async shell and a still-running sync command started are gone within seconds,
 * while a detached command keeps running, as its caller asked.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseScript } from "@tandem/testkit";
import { afterEach, expect, it } from "vitest";
import { scriptsDir, startWorld, waitFor, type TestWorld } from "../helpers/harness.js";
import { RawClient, type WireMessage } from "../helpers/raw-client.js";

let world: TestWorld | undefined;
let client: RawClient | undefined;
let dir: string | undefined;
const groupsToKill: number[] = [];

afterEach(async () => {
  await client?.close(true);
  for (const group of groupsToKill.splice(0)) killGroup(group);
  await world?.dispose();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

function killGroup(group: number): void {
  try {
    process.kill(-group, "SIGKILL");
  } catch {
    // Already gone.
  }
}

/** The pids listed in a file, one per line (none while it does not exist). */
function pidsIn(file: string): number[] {
  if (!existsSync(file)) return [];
  return readFileSync(file, "utf8").split("\n").filter(Boolean).map(Number);
}

/** The live (not zombie) processes of the given process groups. */
function membersOf(groups: number[]): number[] {
  const members: number[] = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, "utf8");
      // Fields after the command name (which may hold spaces): state, ppid, pgrp, …
      const [state, , group] = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      if (state !== "Z" && groups.includes(Number(group))) members.push(Number(name));
    } catch {
      // Exited while we looked.
    }
  }
  return members;
}

function alive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2)[0] !== "Z";
  } catch {
    return false;
  }
}

const isEvent = (type: string) => (message: WireMessage) =>
  message.method === "session.event" && (message.params as { event: { type: string } }).event.type === type;

it("kills what non-detached shells started when the runtime is SIGKILLed, and lets detached commands run on", async () => {
  dir = mkdtempSync(join(tmpdir(), "tandem-orphans-"));
  world = await startWorld([]);
  const path = join(scriptsDir, "shell-orphans.yaml");
  world.model.addScript(parseScript(readFileSync(path, "utf8").replaceAll("__DIR__", dir), path));
  client = new RawClient(world.env);
  const { sessionId } = (await client.request("session.create", { requestPermission: true, workingDirectory: dir })).result as { sessionId: string };
  await client.request("session.send", { sessionId, prompt: "Please leave processes behind" });

  // Approve each bash call as it asks, until all three commands run (the sync one is still running).
  const approved = new Set<string>();
  const tied = join(dir, "tied");
  const detached = join(dir, "detached");
  await waitFor(() => {
    for (const message of client!.received.filter(isEvent("permission.requested"))) {
      const { requestId } = (message.params as { event: { data: { requestId: string } } }).event.data;
      if (approved.has(requestId)) continue;
      approved.add(requestId);
      void client!.request("session.permissions.handlePendingPermissionRequest", { sessionId, requestId, result: { kind: "approved" } });
    }
    return pidsIn(tied).length === 3 && pidsIn(join(dir!, "tied-groups")).length === 2 && pidsIn(join(dir!, "detached-groups")).length === 1;
  }, "the three commands to start");
  const tiedGroups = pidsIn(join(dir, "tied-groups"));
  const detachedGroups = pidsIn(join(dir, "detached-groups"));
  groupsToKill.push(...tiedGroups, ...detachedGroups);
  const tiedProcesses = [...new Set([...pidsIn(tied), ...membersOf(tiedGroups)])];
  expect(tiedProcesses.every(alive)).toBe(true);
  expect(client.received.some(isEvent("session.idle"))).toBe(false);

  await client.close(true);

  await waitFor(() => tiedProcesses.every((pid) => !alive(pid)) && membersOf(tiedGroups).length === 0, "the shells' processes to die", 5000).catch(() => undefined);
  expect(tiedProcesses.filter(alive)).toEqual([]);
  expect(membersOf(tiedGroups)).toEqual([]);
  expect(pidsIn(detached).filter(alive)).toHaveLength(1);
});
