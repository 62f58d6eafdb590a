/**
 * Client-given ids and names never escape their folders: session ids are one safe path component
 * (checked at the edge with -32602, and again where they become paths), workspace file paths stay
 * in the session's files folder (also through symbolic links), and an id in use is never created
 * a second time.
 */
import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { startWorld, type TestWorld } from "../helpers/harness.js";
import { RawClient } from "../helpers/raw-client.js";

let world: TestWorld | undefined;
let client: RawClient | undefined;

afterEach(async () => {
  await client?.close(true);
  await world?.dispose();
});

async function start(): Promise<{ world: TestWorld; client: RawClient }> {
  world = await startWorld(["plain-reply"]);
  client = new RawClient(world.env);
  return { world, client };
}

const hostileIds = ["..", ".", "../../somewhere", "../x", "a/b", "a\\b", ".hidden", "", "x\0y", "%2e%2e", "a".repeat(129), "/etc"];

describe("session ids", () => {
  it.each(["session.delete", "session.resume", "session.getMessages", "session.send", "session.abort", "session.destroy", "session.setForeground"])(
    "%s refuses ids that are not one safe path component with -32602",
    async (method) => {
      const { world, client } = await start();
      // Things an escaping id would reach: the state home itself and a folder beside it.
      const outside = join(world.home, "..", `${world.home.split("/").pop()}-victim`);
      mkdirSync(outside, { recursive: true });
      writeFileSync(join(outside, "keep.txt"), "precious");
      writeFileSync(join(world.home, "keep.txt"), "precious");
      for (const sessionId of [...hostileIds, `../${outside.split("/").pop()}`]) {
        const response = await client.request(method, { sessionId, prompt: "hi" });
        expect(response.error?.code, `${method} ${JSON.stringify(sessionId)}`).toBe(-32602);
        expect(response.error?.message).toContain("sessionId");
      }
      expect(readFileSync(join(outside, "keep.txt"), "utf8")).toBe("precious");
      expect(readFileSync(join(world.home, "keep.txt"), "utf8")).toBe("precious");
    },
  );

  it("session.create refuses hostile ids, and the state home never becomes a workspace", async () => {
    const { world, client } = await start();
    for (const sessionId of hostileIds) {
      const response = await client.request("session.create", { sessionId });
      expect(response.error?.code, JSON.stringify(sessionId)).toBe(-32602);
    }
    expect(existsSync(join(world.home, "events.jsonl"))).toBe(false);
    expect(existsSync(join(world.home, "session-state", "events.jsonl"))).toBe(false);
    expect(existsSync(join(world.home, "workspace.yaml"))).toBe(false);
  });

  it("session.delete removes only session folders", async () => {
    const { world, client } = await start();
    const notASession = join(world.home, "session-state", "notes");
    mkdirSync(notASession, { recursive: true });
    writeFileSync(join(notASession, "todo.txt"), "mine");
    const response = await client.request("session.delete", { sessionId: "notes" });
    expect(response.result).toMatchObject({ success: false });
    expect(readFileSync(join(notASession, "todo.txt"), "utf8")).toBe("mine");

    const created = (await client.request("session.create", { sessionId: "real-one" })).result as { sessionId: string };
    await client.request("session.destroy", { sessionId: created.sessionId });
    expect((await client.request("session.delete", { sessionId: "real-one" })).result).toEqual({ success: true });
    expect(existsSync(join(world.home, "session-state", "real-one"))).toBe(false);
  });

  it("session.create with the id of a live or persisted session fails clearly and writes nothing", async () => {
    const { world, client } = await start();
    await client.request("session.create", { sessionId: "taken" });
    const again = await client.request("session.create", { sessionId: "taken" });
    expect(again.error?.code).toBe(-32602);
    expect(again.error?.message).toContain("already exists");
    await client.request("session.destroy", { sessionId: "taken" });
    const afterDestroy = await client.request("session.create", { sessionId: "taken" });
    expect(afterDestroy.error?.message).toContain("already exists");
    const racing = await Promise.all([client.request("session.create", { sessionId: "race" }), client.request("session.create", { sessionId: "race" })]);
    expect(racing.filter((response) => response.error).length).toBe(1);
    await client.request("session.destroy", { sessionId: "race" });

    const lines = readFileSync(join(world.home, "session-state", "taken", "events.jsonl"), "utf8").trim().split("\n");
    expect(lines.filter((line) => line.includes('"session.start"'))).toHaveLength(1);
    const raceLines = readFileSync(join(world.home, "session-state", "race", "events.jsonl"), "utf8").trim().split("\n");
    expect(raceLines.filter((line) => line.includes('"session.start"'))).toHaveLength(1);
  });
});

describe("workspace files", () => {
  it("stay inside the session's files folder, also through symbolic links", async () => {
    const { world, client } = await start();
    const { sessionId, workspacePath } = (await client.request("session.create", {})).result as { sessionId: string; workspacePath: string };
    const outside = join(world.home, "outside");
    mkdirSync(outside);
    symlinkSync(outside, join(workspacePath, "files", "escape"));
    for (const path of ["../../x.txt", "/tmp/x.txt", "", "escape/planted.txt", "a\0b", "..", "."]) {
      const created = await client.request("session.workspace.createFile", { sessionId, path, content: "planted" });
      expect(created.error?.code, JSON.stringify(path)).toBe(-32602);
      const read = await client.request("session.workspace.readFile", { sessionId, path });
      expect(read.error?.code, JSON.stringify(path)).toBe(-32602);
    }
    expect(existsSync(join(outside, "planted.txt"))).toBe(false);
    writeFileSync(join(outside, "secret.txt"), "secret");
    const leaked = await client.request("session.workspace.readFile", { sessionId, path: "escape/secret.txt" });
    expect(leaked.error?.code).toBe(-32602);

    expect((await client.request("session.workspace.createFile", { sessionId, path: "notes/a.md", content: "fine" })).error).toBeUndefined();
    expect((await client.request("session.workspace.readFile", { sessionId, path: "notes/a.md" })).result).toEqual({ content: "fine" });
    const intoFolder = await client.request("session.workspace.createFile", { sessionId, path: "notes", content: "x" });
    expect(intoFolder.error?.code).toBe(-32602);
  });
});
