/**
 * Rewind (`session.history.*`) and git checkpoints against the real runtime, in real git
 * repositories in temporary folders: three turns change files; the rewind points, the preview's file
 * list, the files on disk after a rewind, the model's next request, a resume in a new runtime
 * process, the user's HEAD / branches / index / stash left alone, a folder that is not a git
 * repository (the file tools' writes are tracked and restored; without tracking, the conversation
 * only), truncation, and worktree isolation. Driven by the official SDK 1.0
 * (the protocol's current names) and by `@tandem/sdk`.
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CopilotClient as TandemClient, approveAll as tandemApproveAll } from "@tandem/sdk";
import { parseScript } from "@tandem/testkit";
import { CopilotClient as OfficialV1Client, RuntimeConnection, approveAll as v1ApproveAll } from "copilot-sdk-v1";
import { afterAll, afterEach, beforeEach, describe, expect, it } from "vitest";
import { scriptsDir, startWorld, tandemBin, type TestWorld } from "../helpers/harness.js";
import { startSuitePostgres, storeVariants } from "../helpers/stores.js";

let world: TestWorld | undefined;
let workdir: string;
/** Every test runs on the file store and on PostgreSQL. */
const stores = storeVariants(await startSuitePostgres());
afterAll(() => stores.stop());
const stops: Array<() => Promise<unknown>> = [];

beforeEach(() => {
  workdir = realpathSync(mkdtempSync(join(tmpdir(), "tandem-rewind-")));
});

afterEach(async () => {
  for (const stop of stops.splice(0).reverse()) await stop().catch(() => undefined);
  await world?.dispose();
  world = undefined;
  rmSync(workdir, { recursive: true, force: true });
});

const gitEnv = { ...process.env, GIT_CONFIG_NOSYSTEM: "1", GIT_AUTHOR_NAME: "User", GIT_AUTHOR_EMAIL: "user@example.com", GIT_COMMITTER_NAME: "User", GIT_COMMITTER_EMAIL: "user@example.com" };

function git(...args: string[]): string {
  return execFileSync("git", args, { cwd: workdir, env: gitEnv, encoding: "utf8" });
}

/**
 * A repository with a commit, a stash entry, a staged new file, an untracked file of the user's
 * and an ignored file.
 */
function makeUserRepository(): void {
  git("init", "-q", "-b", "main");
  writeFileSync(join(workdir, "a.txt"), "alpha\n");
  writeFileSync(join(workdir, "b.txt"), "bravo\n");
  writeFileSync(join(workdir, ".gitignore"), "*.log\n");
  git("add", "-A");
  git("commit", "-q", "-m", "initial");
  writeFileSync(join(workdir, "a.txt"), "alpha\nstashed line\n");
  git("stash", "-q");
  writeFileSync(join(workdir, "staged.txt"), "staged\n");
  git("add", "staged.txt");
  writeFileSync(join(workdir, "notes.md"), "mine\n");
  writeFileSync(join(workdir, "debug.log"), "before\n");
}

/** What must never change: HEAD, branches, the index, the stash. */
function userRepositoryState() {
  return {
    head: git("rev-parse", "HEAD"),
    branches: git("for-each-ref", "refs/heads", "refs/stash"),
    index: git("ls-files", "--stage"),
    stash: git("stash", "list"),
  };
}

function loadTurns(): void {
  const path = join(scriptsDir, "rewind-turns.yaml");
  world?.model.addScript(parseScript(readFileSync(path, "utf8").replaceAll("__WORKDIR__", workdir), path));
}

type RequestBody = { messages: Array<{ role: string; content: unknown }> };

/** The user texts of the model request that carried `prompt`. */
function userTextsOfRequestWith(prompt: string): string[] {
  const request = world?.model.requests.find((item) => JSON.stringify((item.body as RequestBody).messages.at(-1)?.content ?? "").includes(prompt));
  if (!request) throw new Error(`no model request carried ${prompt}`);
  return (request.body as RequestBody).messages.filter((message) => message.role === "user").map((message) => JSON.stringify(message.content));
}

const read = (name: string) => readFileSync(join(workdir, name), "utf8");

function v1Client(): OfficialV1Client {
  if (!world) throw new Error("no world");
  const client = new OfficialV1Client({ connection: RuntimeConnection.forStdio({ path: tandemBin, env: world.env }), logLevel: "error" });
  stops.push(() => client.forceStop());
  return client;
}

function tandemClient(): TandemClient {
  if (!world) throw new Error("no world");
  const client = new TandemClient({ env: world.env, logLevel: "error" });
  stops.push(() => client.forceStop());
  return client;
}

describe.each(stores.variants)("$store store", (store) => {
  describe.skipIf(store.skipped)("in a git repository", () => {
    it("official SDK 1.0: three rewind points; the preview lists the files; a rewind restores them and drops turns 2–3 from the model's history; the user's HEAD, branches, index and stash are untouched", async () => {
      makeUserRepository();
      const before = { ...userRepositoryState(), status: git("status", "--porcelain", "--untracked-files=all") };
      world = await startWorld([], await store.env());
      loadTurns();
      const session = await v1Client().createSession({ workingDirectory: workdir, enableFileChangeTracking: true, onPermissionRequest: v1ApproveAll });
      const rewinds: unknown[] = [];
      session.on("session.snapshot_rewind", (event) => rewinds.push(event.data));

      for (const prompt of ["turn one", "turn two", "turn three"]) await session.sendAndWait({ prompt });
      expect(read("a.txt")).toBe("ALPHA!\n");
      expect(existsSync(join(workdir, "b.txt"))).toBe(false);
      expect(read("c.txt")).toBe("CHARLIE\n");

      const listed = await session.rpc.history.listRewindPoints();
      expect(listed.fileChangeTrackingEnabled).toBe(true);
      expect(listed.unavailableReason).toBeUndefined();
      expect(listed.points.map((point) => point.userMessage)).toEqual(["turn one", "turn two", "turn three"]);
      const [first, second, third] = listed.points;
      expect(first).toMatchObject({ canRestoreFiles: true, turnChangedFiles: true, linesAdded: 1, linesRemoved: 1, isAutopilotContinuation: false });
      expect(second).toMatchObject({ canRestoreFiles: true, turnChangedFiles: true, fileCount: 4 });
      expect(third).toMatchObject({ turnChangedFiles: true, fileCount: 2 });
      expect(Date.parse(second?.timestamp ?? "")).toBeGreaterThan(0);

      const preview = await session.rpc.history.previewRewind({ eventId: second?.eventId ?? "" });
      expect(preview).toEqual({
        available: true,
        fileCount: 4,
        files: [
          { path: join(workdir, "a.txt"), changeType: "modified", linesAdded: 1, linesRemoved: 1 },
          { path: join(workdir, "b.txt"), changeType: "deleted", linesAdded: 0, linesRemoved: 1 },
          { path: join(workdir, "c.txt"), changeType: "created", linesAdded: 1, linesRemoved: 0 },
          { path: join(workdir, "sub", "d.txt"), changeType: "created", linesAdded: 1, linesRemoved: 0 },
        ],
      });

      const result = await session.rpc.history.rewind({ eventId: second?.eventId ?? "", mode: "conversation-and-files" });
      expect(result).toMatchObject({ outcome: "success", skippedFiles: [] });
      expect(result.eventsRemoved).toBeGreaterThan(6);
      expect([...result.restoredFiles].sort()).toEqual(preview.files.map((file) => file.path));
      expect(read("a.txt")).toBe("ALPHA\n");
      expect(read("b.txt")).toBe("bravo\n");
      expect(existsSync(join(workdir, "c.txt"))).toBe(false);
      expect(existsSync(join(workdir, "sub"))).toBe(false);
      expect(read("debug.log")).toBe("turn2\n"); // ignored: never touched
      expect(read("notes.md")).toBe("mine\n");
      expect(rewinds).toEqual([{ eventsRemoved: result.eventsRemoved, upToEventId: second?.eventId }]);
      expect(userRepositoryState()).toEqual({ head: before.head, branches: before.branches, index: before.index, stash: before.stash });

      // The rewound turns are gone from the points and from what the model sees next.
      const after = await session.rpc.history.listRewindPoints();
      expect(after.points.map((point) => point.userMessage)).toEqual(["turn one"]);
      await expect(session.rpc.history.rewind({ eventId: third?.eventId ?? "", mode: "conversation" })).rejects.toThrow(/no longer|never existed/);
      await session.sendAndWait({ prompt: "turn four" });
      const seen = userTextsOfRequestWith("turn four");
      expect(seen.some((text) => text.includes("turn one"))).toBe(true);
      expect(seen.some((text) => text.includes("turn two") || text.includes("turn three"))).toBe(false);
      // getMessages leaves out the rewound events; the marker stays.
      const events = await session.getEvents();
      expect(events.filter((event) => event.type === "user.message").map((event) => (event.data as { content?: string }).content)).toEqual(["turn one", "turn four"]);
      expect(events.some((event) => event.type === "session.snapshot_rewind")).toBe(true);

      // Undoing everything leaves the repository exactly as the user had it.
      const all = await session.rpc.history.listRewindPoints();
      const undo = await session.rpc.history.rewind({ eventId: all.points[0]?.eventId ?? "", mode: "conversation-and-files" });
      expect(undo.outcome).toBe("success");
      expect({ ...userRepositoryState(), status: git("status", "--porcelain", "--untracked-files=all") }).toEqual(before);
      expect(read("a.txt")).toBe("alpha\n");
      expect(git("for-each-ref", "--format=%(refname)", "refs/tandem/").split("\n").filter(Boolean).length).toBeGreaterThan(6);
    });

    it("@tandem/sdk: a resume in a new runtime process keeps the rewound history and the tracking; truncate drops events without touching files", async () => {
      makeUserRepository();
      world = await startWorld([], await store.env());
      loadTurns();
      const first = tandemClient();
      const session = await first.createSession({ workingDirectory: workdir, enableFileChangeTracking: true, onPermissionRequest: tandemApproveAll });
      for (const prompt of ["turn one", "turn two", "turn three"]) await session.sendAndWait({ prompt });
      const { points } = await session.rpc.history.listRewindPoints();
      expect(points).toHaveLength(3);
      const result = await session.rpc.history.rewind({ eventId: points[1]?.eventId ?? "", mode: "conversation-and-files" });
      expect(result.outcome).toBe("success");
      expect(read("a.txt")).toBe("ALPHA\n");
      await first.stop();

      const second = tandemClient();
      const resumed = await second.resumeSession(session.sessionId, { workingDirectory: workdir, onPermissionRequest: tandemApproveAll });
      const listed = await resumed.rpc.history.listRewindPoints();
      expect(listed.fileChangeTrackingEnabled).toBe(true); // not asked again on resume: the session was tracked
      expect(listed.points.map((point) => point.userMessage)).toEqual(["turn one"]);
      expect(listed.points[0]?.canRestoreFiles).toBe(true);
      await resumed.sendAndWait({ prompt: "turn four" });
      const seen = userTextsOfRequestWith("turn four");
      expect(seen.some((text) => text.includes("turn one"))).toBe(true);
      expect(seen.some((text) => text.includes("turn two") || text.includes("turn three"))).toBe(false);

      // truncate: from the reply of turn four on, the events leave the conversation; files stay.
      const events = await resumed.getMessages();
      const turnFour = events.findLast((event) => event.type === "user.message");
      const reply = events.find((event) => event.type === "assistant.turn_start" && event.parentId !== null && events.indexOf(event) > events.indexOf(turnFour!));
      const filesBefore = read("a.txt");
      const truncated = await resumed.rpc.history.truncate({ eventId: reply?.id ?? "" });
      expect(truncated.eventsRemoved).toBeGreaterThan(2);
      expect(read("a.txt")).toBe(filesBefore);
      await expect(resumed.rpc.history.truncate({ eventId: "no-such-event" })).rejects.toThrow(/No event no-such-event/);
    });

    it("@tandem/sdk with worktreeIsolation: the session works on its own branch in its own worktree; the workspace shows the branch and its diff", async () => {
      makeUserRepository();
      const before = { ...userRepositoryState(), status: git("status", "--porcelain", "--untracked-files=all") };
      world = await startWorld(["plain-reply"], await store.env());
      const session = await tandemClient().createSession({ workingDirectory: workdir, worktreeIsolation: true, onPermissionRequest: tandemApproveAll });
      const { workspace } = await session.rpc.workspaces.getWorkspace();
      expect(workspace?.branch).toBe(`tandem/${session.sessionId}`);
      expect(workspace?.cwd).not.toBe(workdir);
      const worktree = workspace?.cwd ?? "";
      expect(readFileSync(join(worktree, "a.txt"), "utf8")).toBe("alpha\n");

      await session.sendAndWait({ prompt: "Say hello" });
      writeFileSync(join(worktree, "a.txt"), "alpha\nfrom the session\n");
      mkdirSync(join(worktree, "new"));
      writeFileSync(join(worktree, "new", "file.txt"), "new\n");
      const diff = await session.rpc.workspaces.diff({ mode: "branch" });
      expect(diff).toMatchObject({ requestedMode: "branch", mode: "branch", baseBranch: "main", isFallback: false });
      expect(diff.changes.map((change) => [change.path, change.changeType])).toEqual([
        ["a.txt", "modified"],
        ["new/file.txt", "added"],
      ]);
      expect(diff.changes[0]?.diff).toContain("+from the session");
      const { checkpoints } = await session.rpc.workspaces.listCheckpoints();
      expect(checkpoints.map((checkpoint) => checkpoint.title)).toEqual(["start of turn: Say hello", "end of turn: Say hello"]);
      expect((await session.rpc.workspaces.readCheckpoint({ number: 1 })).content).toContain(`refs/tandem/checkpoints/${session.sessionId}/1`);

      // The user's side is as it was; the one new ref is the session's branch.
      const now = { ...userRepositoryState(), status: git("status", "--porcelain", "--untracked-files=all") };
      expect({ ...now, branches: now.branches.replace(/^.*refs\/heads\/tandem\/.*\n/m, "") }).toEqual(before);
      expect(git("for-each-ref", "--format=%(refname:short)", "refs/heads/tandem/").trim()).toBe(`tandem/${session.sessionId}`);
    });

    it("without enableFileChangeTracking no checkpoint is taken: the repository gets no ref, and points rewind the conversation only", async () => {
      makeUserRepository();
      world = await startWorld(["plain-reply"], await store.env());
      const session = await v1Client().createSession({ workingDirectory: workdir, onPermissionRequest: v1ApproveAll });
      await session.sendAndWait({ prompt: "Say hello" });
      const listed = await session.rpc.history.listRewindPoints();
      expect(listed).toMatchObject({ fileChangeTrackingEnabled: false, points: [{ userMessage: "Say hello", canRestoreFiles: false }] });
      const preview = await session.rpc.history.previewRewind({ eventId: listed.points[0]?.eventId ?? "" });
      expect(preview).toMatchObject({ available: false, reason: "file-change-tracking-disabled", message: expect.stringMatching(/not enabled/) });
      expect(git("for-each-ref", "refs/tandem/")).toBe("");
    });
  });

  describe.skipIf(store.skipped)("in a folder that is not a git repository", () => {
    it("official SDK 1.0: tracks the file tools' writes, previews and restores them with the conversation; shell changes stay", async () => {
      writeFileSync(join(workdir, "a.txt"), "alpha\n");
      writeFileSync(join(workdir, "b.txt"), "bravo\n");
      world = await startWorld([], await store.env());
      loadTurns();
      const session = await v1Client().createSession({ workingDirectory: workdir, enableFileChangeTracking: true, onPermissionRequest: v1ApproveAll });
      for (const prompt of ["turn one", "turn two"]) await session.sendAndWait({ prompt });

      const listed = await session.rpc.history.listRewindPoints();
      expect(listed.fileChangeTrackingEnabled).toBe(true);
      // Turn one edited a.txt, turn two created c.txt (its shell command's changes are not tracked).
      expect(listed.points.map((point) => [point.userMessage, point.canRestoreFiles, point.fileCount, point.turnChangedFiles])).toEqual([
        ["turn one", true, 2, true],
        ["turn two", true, 1, true],
      ]);
      expect(listed.points.map((point) => [point.linesAdded, point.linesRemoved])).toEqual([
        [1, 1],
        [1, 0],
      ]);
      const [turnOne, turnTwo] = listed.points.map((point) => point.eventId);
      const preview = await session.rpc.history.previewRewind({ eventId: turnTwo ?? "" });
      expect(preview).toMatchObject({ available: true, fileCount: 1, files: [{ path: join(workdir, "c.txt"), changeType: "created" }] });

      const result = await session.rpc.history.rewind({ eventId: turnTwo ?? "", mode: "conversation-and-files" });
      expect(result).toMatchObject({ outcome: "success", restoredFiles: [join(workdir, "c.txt")] });
      expect(existsSync(join(workdir, "c.txt"))).toBe(false);
      expect(read("a.txt")).toBe("ALPHA\n"); // turn one stays
      expect(existsSync(join(workdir, "b.txt"))).toBe(false); // removed by a shell command: not tracked outside git
      await session.sendAndWait({ prompt: "turn three" });
      const seen = userTextsOfRequestWith("turn three");
      expect(seen.some((text) => text.includes("turn one"))).toBe(true);
      expect(seen.some((text) => text.includes("turn two"))).toBe(false);

      // The script answers "turn three" with turn two's step again: c.txt is created anew.
      expect(read("c.txt")).toBe("charlie\n");

      // Back to before turn one, from a new runtime process: a.txt as the user had it, c.txt gone.
      await session.disconnect();
      const resumed = await v1Client().resumeSession(session.sessionId, { workingDirectory: workdir, onPermissionRequest: v1ApproveAll });
      const again = await resumed.rpc.history.listRewindPoints();
      expect(again.fileChangeTrackingEnabled).toBe(true);
      expect(again.points[0]).toMatchObject({ eventId: turnOne, canRestoreFiles: true, fileCount: 2 });
      const back = await resumed.rpc.history.rewind({ eventId: turnOne ?? "", mode: "conversation-and-files" });
      expect(back.outcome).toBe("success");
      expect([...back.restoredFiles].sort()).toEqual([join(workdir, "a.txt"), join(workdir, "c.txt")]);
      expect(read("a.txt")).toBe("alpha\n");
      expect(existsSync(join(workdir, "c.txt"))).toBe(false);
    });

    it("official SDK 1.0: without tracking asked for, rewinds the conversation only, and the preview says so", async () => {
      writeFileSync(join(workdir, "a.txt"), "alpha\n");
      writeFileSync(join(workdir, "b.txt"), "bravo\n");
      world = await startWorld([], await store.env());
      loadTurns();
      const session = await v1Client().createSession({ workingDirectory: workdir, onPermissionRequest: v1ApproveAll });
      for (const prompt of ["turn one", "turn two"]) await session.sendAndWait({ prompt });

      const listed = await session.rpc.history.listRewindPoints();
      expect(listed.fileChangeTrackingEnabled).toBe(false);
      expect(listed.points.map((point) => point.canRestoreFiles)).toEqual([false, false]);
      const eventId = listed.points[1]?.eventId ?? "";
      const preview = await session.rpc.history.previewRewind({ eventId });
      expect(preview).toMatchObject({ available: false, reason: "file-change-tracking-disabled", fileCount: 0, files: [] });
      expect((preview as { message?: string }).message).toMatch(/File change tracking is not enabled for this session/);
      expect(await session.rpc.history.rewind({ eventId, mode: "conversation-and-files" })).toEqual({ outcome: "file-change-tracking-disabled", restoredFiles: [], skippedFiles: [] });
      expect(await session.rpc.history.rewind({ eventId, mode: "conversation" })).toMatchObject({ outcome: "success", restoredFiles: [] });
      expect(read("c.txt")).toBe("charlie\n"); // files stay as turn two left them
    });
  });
});
