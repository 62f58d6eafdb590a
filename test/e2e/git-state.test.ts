/**
 * What a session leaves in the user's git repository, through the real runtime and real
 * repositories in temporary folders: `session.delete` removes its checkpoint refs, its worktree
 * (folder and git's entry) and its `tandem/…` branch, and `keepGitState` leaves them; untracked
 * files that were there before the session (`.env`), or that the user made meanwhile, are in no
 * checkpoint commit; and a session
 * whose id is another session's former hashed ref name sees none of that session's checkpoints, while
 * checkpoints an earlier version wrote under a session's former name are still found.
 */
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CopilotClient, approveAll } from "@tandem/sdk";
import { parseScript } from "@tandem/testkit";
import { afterAll, afterEach, beforeEach, describe, expect, it } from "vitest";
import { scriptsDir, startWorld, type TestWorld } from "../helpers/harness.js";
import { startSuitePostgres, storeVariants } from "../helpers/stores.js";

let world: TestWorld | undefined;
let client: CopilotClient | undefined;
let workdir: string;
/** Deleting runs on the file store and on PostgreSQL (whose session folders are local scratch). */
const stores = storeVariants(await startSuitePostgres());
afterAll(() => stores.stop());

beforeEach(() => {
  workdir = realpathSync(mkdtempSync(join(tmpdir(), "tandem-git-state-")));
  git("init", "-q", "-b", "main");
  writeFileSync(join(workdir, "a.txt"), "alpha\n");
  writeFileSync(join(workdir, "b.txt"), "bravo\n");
  writeFileSync(join(workdir, ".gitignore"), "*.log\n");
  git("add", "-A");
  git("commit", "-q", "-m", "initial");
});

afterEach(async () => {
  await client?.forceStop();
  client = undefined;
  await world?.dispose();
  world = undefined;
  rmSync(workdir, { recursive: true, force: true });
});

const gitEnv = { ...process.env, GIT_CONFIG_NOSYSTEM: "1", GIT_AUTHOR_NAME: "User", GIT_AUTHOR_EMAIL: "user@example.com", GIT_COMMITTER_NAME: "User", GIT_COMMITTER_EMAIL: "user@example.com" };
const git = (...args: string[]) => execFileSync("git", args, { cwd: workdir, env: gitEnv, encoding: "utf8" });
const lines = (text: string) => text.split("\n").filter((line) => line.length > 0);
const tandemRefs = () => lines(git("for-each-ref", "--format=%(refname)", "refs/tandem/"));
const tandemBranches = () => lines(git("branch", "--list", "--format=%(refname:short)", "tandem/*"));
const worktreePaths = () => lines(git("worktree", "list", "--porcelain")).filter((line) => line.startsWith("worktree ")).map((line) => line.slice("worktree ".length));

async function startClient(scripts: string[], env: Record<string, string> = {}): Promise<CopilotClient> {
  world = await startWorld(scripts, env);
  client = new CopilotClient({ env: world.env, logLevel: "error" });
  return client;
}

describe.each(stores.variants)("$store store", (store) => {
  it.skipIf(store.skipped)("session.delete removes the session's checkpoint refs, worktree and branch; keepGitState leaves them in the repository", async () => {
    const tandem = await startClient(["plain-reply"], await store.env());
    const isolated = await tandem.createSession({ workingDirectory: workdir, worktreeIsolation: true, onPermissionRequest: approveAll });
    const tracked = await tandem.createSession({ workingDirectory: workdir, enableFileChangeTracking: true, onPermissionRequest: approveAll });
    const kept = await tandem.createSession({ workingDirectory: workdir, worktreeIsolation: true, onPermissionRequest: approveAll });
    // listCheckpoints answers once the turn's checkpoints are written.
    for (const session of [isolated, tracked, kept]) {
      await session.sendAndWait({ prompt: "Say hello" });
      expect((await session.rpc.workspaces.listCheckpoints()).checkpoints).toHaveLength(2);
    }
    const isolatedPath = (await isolated.rpc.workspaces.getWorkspace()).workspace?.git_root ?? "";
    const keptPath = (await kept.rpc.workspaces.getWorkspace()).workspace?.git_root ?? "";
    const refsOf = (sessionId: string) => tandemRefs().filter((ref) => ref.startsWith(`refs/tandem/checkpoints/${sessionId}/`));
    expect(refsOf(isolated.sessionId)).toHaveLength(2);
    expect(refsOf(tracked.sessionId)).toHaveLength(2);
    expect(refsOf(kept.sessionId)).toHaveLength(2);
    expect(tandemBranches().sort()).toEqual([`tandem/${isolated.sessionId}`, `tandem/${kept.sessionId}`].sort());
    expect(worktreePaths()).toEqual(expect.arrayContaining([isolatedPath, keptPath]));

    await tandem.deleteSession(isolated.sessionId);
    expect(refsOf(isolated.sessionId)).toEqual([]);
    expect(tandemBranches()).toEqual([`tandem/${kept.sessionId}`]);
    expect(worktreePaths()).not.toContain(isolatedPath);
    expect(existsSync(isolatedPath)).toBe(false);

    await tandem.deleteSession(tracked.sessionId);
    expect(refsOf(tracked.sessionId)).toEqual([]);

    await tandem.deleteSession(kept.sessionId, { keepGitState: true });
    expect(refsOf(kept.sessionId)).toHaveLength(2);
    expect(tandemBranches()).toEqual([`tandem/${kept.sessionId}`]);
    expect(worktreePaths()).toContain(keptPath);
    // The user's own branch and work tree are as they were.
    expect(lines(git("branch", "--format=%(refname:short)")).sort()).toEqual(["main", `tandem/${kept.sessionId}`]);
    expect(git("status", "--porcelain")).toBe("");
  });
});

it("an untracked .env that was there before the session, and a file the user makes meanwhile, are in no checkpoint commit; files the session's tools and shell commands make are, and a rewind still restores them", async () => {
  writeFileSync(join(workdir, ".env"), "API_TOKEN=do-not-publish\n");
  const tandem = await startClient([]);
  const path = join(scriptsDir, "rewind-turns.yaml");
  world!.model.addScript(parseScript(readFileSync(path, "utf8").replaceAll("__WORKDIR__", workdir), path));
  const session = await tandem.createSession({ workingDirectory: workdir, enableFileChangeTracking: true, onPermissionRequest: approveAll });
  await session.sendAndWait({ prompt: "turn one" });
  // The user's own new file, made while the session waits: not the session's, never captured.
  writeFileSync(join(workdir, "user-notes.txt"), "mine\n");
  await session.sendAndWait({ prompt: "turn two" });
  writeFileSync(join(workdir, ".env"), "API_TOKEN=changed-during-the-session\n");
  await session.sendAndWait({ prompt: "turn three" });
  await session.rpc.workspaces.listCheckpoints();

  const refs = tandemRefs();
  expect(refs.length).toBeGreaterThan(3);
  for (const ref of refs) expect(lines(git("ls-tree", "-r", "--name-only", ref))).not.toContain(".env");
  expect(git("log", "--all", "--stat", "--format=%H")).not.toContain(".env");
  expect(git("log", "--all", "--stat", "--format=%H")).not.toContain("user-notes.txt");
  const latest = lines(git("ls-tree", "-r", "--name-only", refs.at(-1)!));
  expect(latest).toEqual(expect.arrayContaining(["a.txt", "c.txt", "sub/d.txt"]));
  expect(latest).not.toContain("debug.log");

  const { points } = await session.rpc.history.listRewindPoints();
  const result = await session.rpc.history.rewind({ eventId: points[0]?.eventId ?? "", mode: "conversation-and-files" });
  expect(result.outcome).toBe("success");
  expect(readFileSync(join(workdir, "a.txt"), "utf8")).toBe("alpha\n");
  expect(existsSync(join(workdir, "c.txt"))).toBe(false);
  expect(readFileSync(join(workdir, ".env"), "utf8")).toBe("API_TOKEN=changed-during-the-session\n");
  expect(readFileSync(join(workdir, "user-notes.txt"), "utf8")).toBe("mine\n");
});

it("a session named like another session's former hashed ref name sees none of its checkpoints and overwrites none", async () => {
  const tandem = await startClient(["plain-reply"]);
  const victimId = "release.notes";
  const crafted = `x-${createHash("sha256").update(victimId).digest("hex").slice(0, 32)}`;
  const victim = await tandem.createSession({ sessionId: victimId, workingDirectory: workdir, enableFileChangeTracking: true, onPermissionRequest: approveAll });
  await victim.sendAndWait({ prompt: "Say hello" });
  expect((await victim.rpc.workspaces.listCheckpoints()).checkpoints).toHaveLength(2);
  const victimRefs = lines(git("for-each-ref", "--format=%(refname) %(objectname)", "refs/tandem/"));
  expect(victimRefs).toHaveLength(2);

  const impostor = await tandem.createSession({ sessionId: crafted, workingDirectory: workdir, enableFileChangeTracking: true, onPermissionRequest: approveAll });
  await impostor.sendAndWait({ prompt: "Say hello" });
  const seen = await impostor.rpc.workspaces.listCheckpoints();
  expect(seen.checkpoints.map((checkpoint) => checkpoint.filename)).toEqual([`refs/tandem/checkpoints/${crafted}/1`, `refs/tandem/checkpoints/${crafted}/2`]);
  expect(lines(git("for-each-ref", "--format=%(refname) %(objectname)", "refs/tandem/"))).toEqual(expect.arrayContaining(victimRefs));
  const victimSees = await victim.rpc.workspaces.listCheckpoints();
  expect(victimSees.checkpoints).toHaveLength(2);
  expect(victimSees.checkpoints.every((checkpoint) => !checkpoint.filename.includes(crafted))).toBe(true);

  // Deleting the impostor takes its own refs only.
  await tandem.deleteSession(crafted);
  expect(lines(git("for-each-ref", "--format=%(refname) %(objectname)", "refs/tandem/"))).toEqual(victimRefs);
});

it("checkpoints an earlier version wrote under a session's hashed ref name are found on resume, moved to its own namespace, and deleted with it", async () => {
  const sessionId = "notes.v1";
  const formerName = `x-${createHash("sha256").update(sessionId).digest("hex").slice(0, 32)}`;
  const first = await startClient(["plain-reply"]);
  const session = await first.createSession({ sessionId, workingDirectory: workdir, enableFileChangeTracking: true, onPermissionRequest: approveAll });
  await session.sendAndWait({ prompt: "Say hello" });
  expect((await session.rpc.workspaces.listCheckpoints()).checkpoints).toHaveLength(2);
  await first.stop();
  // Put the refs where the earlier naming had them, and drop the file the earlier version did not write.
  const written = lines(git("for-each-ref", "--format=%(refname) %(objectname)", "refs/tandem/"));
  for (const line of written) {
    const [ref = "", commit = ""] = line.split(" ");
    git("update-ref", ref.replace("/notes_dv1/", `/${formerName}/`), commit);
    git("update-ref", "-d", ref);
  }
  rmSync(join(world!.home, "session-state", sessionId, "checkpoint.index.preexisting"));

  client = new CopilotClient({ env: world!.env, logLevel: "error" });
  const resumed = await client.resumeSession(sessionId, { workingDirectory: workdir, onPermissionRequest: approveAll });
  const listed = await resumed.rpc.workspaces.listCheckpoints();
  expect(listed.checkpoints.map((checkpoint) => [checkpoint.filename, checkpoint.title])).toEqual([
    ["refs/tandem/checkpoints/notes_dv1/1", "start of turn: Say hello"],
    ["refs/tandem/checkpoints/notes_dv1/2", "end of turn: Say hello"],
  ]);
  expect(tandemRefs()).toEqual(["refs/tandem/checkpoints/notes_dv1/1", "refs/tandem/checkpoints/notes_dv1/2"]);
  await client.deleteSession(sessionId);
  expect(tandemRefs()).toEqual([]);
});
