/**
 * A full disk never silently loses turns. The runtime's state home (`COPILOT_HOME`) is a small
 * tmpfs; it is filled mid-conversation. The next turn's write fails: the client gets a
 * `session.error` (`errorType: "persistence"`) at once, the turn stops, `session.send` is refused
 * with `PersistenceFailed` while the disk is full, and once space returns the held events are
 * written in order, so a resumed session pairs every user message with its own answer.
 */
import { mkdirSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { approveAll, type CopilotClient, type SessionEvent } from "@github/copilot-sdk";
import { ErrorCodes } from "@tandem/protocol/errors";
import { afterEach, expect, it } from "vitest";
import { startWorld, waitFor, type TestWorld } from "../helpers/harness.js";
import { officialClient } from "../helpers/official-client.js";
import { fillDisk, tmpfsForFile } from "../helpers/tmpfs.js";

const disk = tmpfsForFile("1m", "the full-disk e2e test");
let world: TestWorld | undefined;
const clients: CopilotClient[] = [];

afterEach(async () => {
  for (const client of clients.splice(0)) await client.stop();
  await world?.dispose();
});

/** The user prompts and assistant answers of a history, in order. */
function conversation(events: ReadonlyArray<{ type: string; data: unknown }>): string[] {
  return events.flatMap((event) => {
    if (event.type === "user.message") return [`user: ${(event.data as { content: string }).content.slice(0, 8)}`];
    if (event.type === "assistant.message") return [`assistant: ${(event.data as { content: string }).content}`];
    return [];
  });
}

it("reports a full disk at once, refuses messages until space returns, then keeps every answer with its own prompt", async (context) => {
  const home = disk.dirOrSkip(context);
  world = await startWorld(["full-disk"], { COPILOT_HOME: home });
  const first = officialClient(world.env);
  clients.push(first);
  const session = await first.createSession({ onPermissionRequest: approveAll });
  const events: SessionEvent[] = [];
  session.on((event) => events.push(event));
  expect((await session.sendAndWait({ prompt: "prompt 1" }))?.data.content).toBe("answer to prompt 1");
  expect((await session.sendAndWait({ prompt: "prompt 2" }))?.data.content).toBe("answer to prompt 2");

  const filler = join(home, "filler");
  fillDisk(filler);
  const beforeFull = events.length;
  // Larger than the free rest of the events file's last page, so its first line cannot fit.
  // Its user.message cannot be stored, so the send is refused; the message is held and written first when space returns.
  const unstored = await session.send({ prompt: `prompt 3 ${"x".repeat(6000)}` }).then(
    () => undefined,
    (rejection: { code?: number; message?: string }) => rejection,
  );
  expect(unstored?.code).toBe(ErrorCodes.PersistenceFailed);
  expect(unstored?.message).toContain("is held in memory");
  await waitFor(() => events.slice(beforeFull).some((event) => event.type === "session.idle"), "the stopped turn to go idle");
  const fullTurn = events.slice(beforeFull);
  const error = fullTurn.find((event) => event.type === "session.error");
  expect(error?.data).toMatchObject({ errorType: "persistence" });
  expect((error?.data as { message: string }).message).toContain(join(home, "session-state", session.sessionId, "events.jsonl"));
  expect((error?.data as { message: string }).message).toContain("ENOSPC");
  const types = fullTurn.map((event) => event.type);
  expect(types.indexOf("session.error")).toBeLessThan(types.indexOf("session.idle"));
  expect(types).not.toContain("assistant.message");
  expect(fullTurn.find((event) => event.type === "abort")?.data).toEqual({ reason: "persistence failure" });

  const modelCalls = world.model.requests.length;
  const refused = await session.send({ prompt: "prompt 4" }).then(
    () => undefined,
    (rejection: { code?: number; message?: string }) => rejection,
  );
  expect(refused?.code).toBe(ErrorCodes.PersistenceFailed);
  expect(refused?.message).toContain("ENOSPC");
  expect(world.model.requests.length).toBe(modelCalls);

  rmSync(filler);
  expect((await session.sendAndWait({ prompt: "prompt 5" }))?.data.content).toBe("answer to prompt 5");
  expect(events.some((event) => event.type === "session.info" && event.data.infoType === "persistence")).toBe(true);
  expect((await session.sendAndWait({ prompt: "prompt 6" }))?.data.content).toBe("answer to prompt 6");
  await first.stop();

  const eventsPath = join(home, "session-state", session.sessionId, "events.jsonl");
  const text = readFileSync(eventsPath, "utf8");
  expect(text.endsWith("\n")).toBe(true);
  const stored = text.trimEnd().split("\n").map((line) => JSON.parse(line) as { type: string; data: unknown });
  expect(stored.some((event) => event.type === "session.error" && (event.data as { errorType: string }).errorType === "persistence")).toBe(true);

  const second = officialClient(world.env);
  clients.push(second);
  const resumed = await second.resumeSession(session.sessionId, { onPermissionRequest: approveAll });
  const expected = [
    "user: prompt 1",
    "assistant: answer to prompt 1",
    "user: prompt 2",
    "assistant: answer to prompt 2",
    "user: prompt 3",
    "user: prompt 5",
    "assistant: answer to prompt 5",
    "user: prompt 6",
    "assistant: answer to prompt 6",
  ];
  expect(conversation(stored)).toEqual(expected);
  expect(conversation(await resumed.getMessages())).toEqual(expected);
  expect((await resumed.sendAndWait({ prompt: "prompt 7" }))?.data.content).toBe("answer to prompt 7");
});

it("reports a workspace.yaml that cannot be written and writes it again before accepting the next message", async () => {
  world = await startWorld(["full-disk"]);
  const client = officialClient(world.env);
  clients.push(client);
  const session = await client.createSession({ onPermissionRequest: approveAll });
  const events: SessionEvent[] = [];
  session.on((event) => events.push(event));
  const workspaceFile = join(world.home, "session-state", session.sessionId, "workspace.yaml");
  // A non-empty folder in its place: the new file cannot be renamed over it (EISDIR/ENOTEMPTY).
  rmSync(workspaceFile);
  mkdirSync(join(workspaceFile, "blocker"), { recursive: true });

  await session.send({ prompt: "prompt 1" });
  // The summary's write runs beside the turn: its failure is reported when it happens, which may
  // be after a fast turn went idle.
  await waitFor(() => events.some((event) => event.type === "session.idle") && events.some((event) => event.type === "session.error"), "the turn to go idle and the failed write to be reported");
  const error = events.find((event) => event.type === "session.error");
  expect(error?.data).toMatchObject({ errorType: "persistence" });
  expect((error?.data as { message: string }).message).toContain(workspaceFile);
  const refused = await session.send({ prompt: "prompt 2" }).then(
    () => undefined,
    (rejection: { code?: number; message?: string }) => rejection,
  );
  expect(refused?.code).toBe(ErrorCodes.PersistenceFailed);
  expect(refused?.message).toContain(workspaceFile);

  rmSync(workspaceFile, { recursive: true });
  await session.sendAndWait({ prompt: "prompt 2" });
  expect(readFileSync(workspaceFile, "utf8")).toContain('summary: "prompt 1"');
});
