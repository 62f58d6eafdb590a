/**
 * A session's permission policy through the official SDK 1.0.x against the built `tandem`: rules
 * set by `session.permissions.configure` or `modifyRules` approve or deny requests without asking
 * (a deny rule wins; a directory argument covers the paths in it); URLs allowed from the start, or
 * every URL in unrestricted mode, are fetched without asking; `setRequired` says whether the calling
 * client answers the session's permission requests; `paths.*` keep the allowed directories.
 */
import { readFileSync, realpathSync, writeFileSync, mkdirSync, existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseScript } from "@tandem/testkit";
import type { CopilotClient as V1Client, PermissionRequest, SessionEvent } from "copilot-sdk-v1";
import { ErrorCodes } from "@tandem/protocol/errors";
import { describe, expect, it } from "vitest";
import { scriptsDir, type TestWorld } from "../helpers/harness.js";
import { officialClientFixture, officialV1Client } from "../helpers/official-client.js";

const fixture = officialClientFixture(officialV1Client);
const start = (): V1Client => fixture.client() as unknown as V1Client;

/** Adds a script of `test/scripts` with `__WORKDIR__` and `__URL__` filled in. */
function addScript(world: TestWorld, name: string, workdir: string, url = ""): void {
  const path = join(scriptsDir, `${name}.yaml`);
  world.model.addScript(parseScript(readFileSync(path, "utf8").replaceAll("__WORKDIR__", workdir).replaceAll("__URL__", url), path));
}

/** A fresh folder in the world's home, symbolic links resolved. */
function folder(world: TestWorld, name: string): string {
  const path = join(world.home, name);
  mkdirSync(path, { recursive: true });
  return realpathSync(path);
}

function completionsOf(events: SessionEvent[]): Map<string, { success: boolean; error?: string }> {
  const completions = new Map<string, { success: boolean; error?: string }>();
  for (const event of events) {
    if (event.type === "tool.execution_complete") completions.set(event.data.toolCallId, { success: event.data.success, ...(event.data.error ? { error: event.data.error.message } : {}) });
  }
  return completions;
}

describe("session.permissions rules and URL policy", () => {
  it("configure: rules decide without asking, a deny rule wins over an approve rule, allowed URLs are fetched without asking", async () => {
    const world = await fixture.startWorld([]);
    const workdir = folder(world, "project");
    addScript(world, "permission-kinds", workdir, `${world.modelUrl}/models`);
    writeFileSync(join(workdir, "existing.txt"), "old\n");
    const asked: PermissionRequest[] = [];
    const session = await start().createSession({ workingDirectory: workdir, onPermissionRequest: (request) => (asked.push(request), { kind: "approve-once" }) });
    const events: SessionEvent[] = [];
    session.on((event) => events.push(event));

    const configured = await session.rpc.permissions.configure({
      rules: { approved: [{ kind: "write", argument: workdir }], denied: [{ kind: "write", argument: join(workdir, "existing.txt") }] },
      urls: { initialAllowed: [world.modelUrl] },
    });
    expect(configured).toEqual({ success: true });
    expect((await session.sendAndWait({ prompt: "Please write and fetch" }, 30_000))?.data.content).toBe("Written and fetched.");

    expect(asked).toEqual([]);
    const completions = completionsOf(events);
    expect(completions.get("call_create")?.success).toBe(true);
    expect(readFileSync(join(workdir, "created.txt"), "utf8")).toBe("new\n");
    expect(completions.get("call_edit")).toEqual({ success: false, error: "Denied by rules" });
    expect(readFileSync(join(workdir, "existing.txt"), "utf8")).toBe("old\n");
    expect(completions.get("call_fetch")?.success).toBe(true);
    const decided = events.filter((event) => event.type === "permission.completed");
    expect(decided.map((event) => event.data.result.kind).sort()).toEqual(["approved", "approved", "denied-by-rules"]);
  });

  it("configure refuses an unknown rule kind or a relative path, and then nothing changes", async () => {
    const world = await fixture.startWorld([]);
    const session = await start().createSession({ onPermissionRequest: () => ({ kind: "approve-once" }) });
    const before = await session.rpc.permissions.paths.list();
    const badRule = session.rpc.permissions.configure({ rules: { approved: [{ kind: "everything", argument: null }], denied: [] }, paths: { workspacePath: folder(world, "elsewhere") } });
    await expect(badRule).rejects.toMatchObject({ code: ErrorCodes.InvalidParams, message: expect.stringMatching(/Unknown permission rule kind "everything"/) });
    const relative = session.rpc.permissions.paths.add({ path: "some/where" });
    await expect(relative).rejects.toMatchObject({ code: ErrorCodes.InvalidParams, message: expect.stringMatching(/is not absolute/) });
    expect(await session.rpc.permissions.paths.list()).toEqual(before);
  });

  it("modifyRules adds session approve rules (nobody is asked) and removes them (asked again); location scope is not available", async () => {
    const world = await fixture.startWorld([]);
    const workdir = folder(world, "project");
    addScript(world, "permission-rounds", workdir);
    writeFileSync(join(workdir, "data.txt"), "one\n");
    const asked: PermissionRequest[] = [];
    const session = await start().createSession({ workingDirectory: workdir, onPermissionRequest: (request) => (asked.push(request), { kind: "approve-once" }) });
    const rules = [
      { kind: "read", argument: null },
      { kind: "commands", argument: null },
    ];
    expect(await session.rpc.permissions.modifyRules({ scope: "session", add: rules })).toEqual({ success: true });
    expect((await session.sendAndWait({ prompt: "Do three things" }, 30_000))?.data.content).toBe("All three are done.");
    expect(asked).toEqual([]);

    expect(await session.rpc.permissions.modifyRules({ scope: "session", remove: rules })).toEqual({ success: true });
    expect((await session.sendAndWait({ prompt: "Do three things again" }, 30_000))?.data.content).toBe("All three are done again.");
    expect(asked.map((request) => request.kind).sort()).toEqual(["read", "read", "shell"]);

    await expect(session.rpc.permissions.modifyRules({ scope: "location", add: rules })).rejects.toMatchObject({ code: ErrorCodes.NotAvailable });
  });

  it("urls.setUnrestrictedMode fetches every URL without asking while on", async () => {
    const world = await fixture.startWorld([]);
    const workdir = folder(world, "project");
    addScript(world, "permission-kinds", workdir, `${world.modelUrl}/models`);
    writeFileSync(join(workdir, "existing.txt"), "old\n");
    const asked: PermissionRequest[] = [];
    const session = await start().createSession({ workingDirectory: workdir, onPermissionRequest: (request) => (asked.push(request), { kind: "approve-once" }) });
    expect(await session.rpc.permissions.urls.setUnrestrictedMode({ enabled: true })).toEqual({ success: true });
    await session.sendAndWait({ prompt: "Please write and fetch" }, 30_000);
    expect(asked.map((request) => request.kind)).toEqual(["write", "write"]);
  });
});

describe("session.permissions.setRequired", () => {
  it("a client that says it is not required is not asked (requests are denied as unanswerable); required again, it is asked", async () => {
    const world = await fixture.startWorld([]);
    const workdir = folder(world, "project");
    addScript(world, "permission-rounds", workdir);
    writeFileSync(join(workdir, "data.txt"), "one\n");
    const asked: PermissionRequest[] = [];
    const client = start();
    const session = await client.createSession({ workingDirectory: workdir, onPermissionRequest: (request) => (asked.push(request), { kind: "approve-once" }) });
    const events: SessionEvent[] = [];
    session.on((event) => events.push(event));

    expect(await session.rpc.permissions.setRequired({ required: false })).toEqual({ success: true });
    await session.sendAndWait({ prompt: "Do three things" }, 30_000);
    expect(asked).toEqual([]);
    expect([...completionsOf(events).values()].map((completion) => completion.error)).toEqual(["Permission denied", "Permission denied", "Permission denied"]);

    expect(await session.rpc.permissions.setRequired({ required: true })).toEqual({ success: true });
    await session.sendAndWait({ prompt: "Do three things again" }, 30_000);
    expect(asked).toHaveLength(3);
  });
});

describe("session.permissions.paths", () => {
  it("lists the primary and allowed directories, adds one, moves the primary, and answers where a path is", async () => {
    const world = await fixture.startWorld([]);
    const workdir = folder(world, "project");
    const shared = folder(world, "shared");
    const added = folder(world, "added");
    const moved = folder(world, "moved");
    const session = await start().createSession({ workingDirectory: workdir, onPermissionRequest: () => ({ kind: "approve-once" }) });

    // By default: the working directory is the primary, and the temporary directory is allowed.
    const initial = await session.rpc.permissions.paths.list();
    expect(initial.primary).toBe(workdir);
    expect(initial.directories).toEqual([workdir, tmpdir()]);

    await session.rpc.permissions.configure({ paths: { additionalDirectories: [shared], includeTempDirectory: false } });
    expect(await session.rpc.permissions.paths.list()).toEqual({ primary: workdir, directories: [workdir, shared] });
    expect((await session.rpc.permissions.paths.isPathWithinAllowedDirectories({ path: join(tmpdir(), "x.txt") })).allowed).toBe(false);

    expect(await session.rpc.permissions.paths.add({ path: added })).toEqual({ success: true });
    expect((await session.rpc.permissions.paths.isPathWithinAllowedDirectories({ path: join(added, "child.txt") })).allowed).toBe(true);
    // A sibling whose name starts the same is not inside.
    expect((await session.rpc.permissions.paths.isPathWithinAllowedDirectories({ path: `${added}-not/child.txt` })).allowed).toBe(false);
    expect((await session.rpc.permissions.paths.isPathWithinAllowedDirectories({ path: join(added, "..", "outside.txt") })).allowed).toBe(false);

    expect(await session.rpc.permissions.paths.updatePrimary({ path: moved })).toEqual({ success: true });
    expect(await session.rpc.permissions.paths.list()).toEqual({ primary: moved, directories: [moved, shared, added] });
    expect((await session.rpc.permissions.paths.isPathWithinWorkspace({ path: join(moved, "child.txt") })).allowed).toBe(true);
    expect((await session.rpc.permissions.paths.isPathWithinWorkspace({ path: join(workdir, "child.txt") })).allowed).toBe(false);
    expect((await session.rpc.permissions.paths.isPathWithinAllowedDirectories({ path: join(workdir, "child.txt") })).allowed).toBe(false);

    await session.rpc.permissions.configure({ paths: { unrestricted: true } });
    expect((await session.rpc.permissions.paths.isPathWithinAllowedDirectories({ path: "/anywhere/at/all" })).allowed).toBe(true);
    expect(await session.rpc.permissions.notifyPromptShown({ message: "Allow the build to write dist/?" })).toEqual({ success: true });
    expect(existsSync(workdir)).toBe(true);
  });
});
