/**
 * Shell children die with the runtime, even when it is killed with SIGKILL and no cleanup runs:
 * the processes an async shell and a still-running sync command started are gone within seconds,
 * while a detached command keeps running, as its caller asked.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseScript } from "@tandem/testkit";
import { afterEach, expect, it } from "vitest";
import { scriptsDir, startWorld, waitFor, type TestWorld } from "../helpers/harness.js";
import { hasExited, processGroupMembers } from "../helpers/proc.js";
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

const alive = (pid: number) => !hasExited(pid);

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
  const tiedProcesses = [...new Set([...pidsIn(tied), ...processGroupMembers(tiedGroups)])];
  expect(tiedProcesses.every(alive)).toBe(true);
  expect(client.received.some(isEvent("session.idle"))).toBe(false);

  await client.close(true);

  await waitFor(() => tiedProcesses.every((pid) => !alive(pid)) && processGroupMembers(tiedGroups).length === 0, "the shells' processes to die", 5000).catch(() => undefined);
  expect(tiedProcesses.filter(alive)).toEqual([]);
  expect(processGroupMembers(tiedGroups)).toEqual([]);
  expect(pidsIn(detached).filter(alive)).toHaveLength(1);
});
