import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { GitCheckpoints } from "../../src/checkpoints/git-checkpoints.js";
import { refNamespace } from "../../src/checkpoints/ref-names.js";

let repo: string;
let sessionDir: string;

beforeEach(() => {
  repo = realpathSync(mkdtempSync(join(tmpdir(), "tandem-checkpoints-")));
  sessionDir = mkdtempSync(join(tmpdir(), "tandem-checkpoints-session-"));
});
afterEach(() => {
  rmSync(repo, { recursive: true, force: true });
  rmSync(sessionDir, { recursive: true, force: true });
});

const env = { ...process.env, GIT_CONFIG_NOSYSTEM: "1", GIT_AUTHOR_NAME: "u", GIT_AUTHOR_EMAIL: "u@u", GIT_COMMITTER_NAME: "u", GIT_COMMITTER_EMAIL: "u@u" };
const git = (...args: string[]) => execFileSync("git", args, { cwd: repo, env, encoding: "utf8" });
const write = (path: string, text: string) => {
  mkdirSync(join(repo, path, ".."), { recursive: true });
  writeFileSync(join(repo, path), text);
};
const open = (sessionId = "s1") => GitCheckpoints.open(repo, sessionId, join(sessionDir, "checkpoint.index"));

describe("GitCheckpoints", () => {
  it("is undefined outside a git work tree", async () => {
    expect(await open()).toBeUndefined();
  });

  it("snapshots into refs/tandem/checkpoints/<session>/<n> without touching the user's index, HEAD or stash; restore brings files back and removes new ones, never ignored ones", async () => {
    git("init", "-q");
    write(".gitignore", "*.log\n");
    write("a.txt", "a\n");
    git("add", "-A");
    git("commit", "-q", "-m", "one");
    write("staged.txt", "s\n");
    git("add", "staged.txt");
    const index = git("ls-files", "--stage");
    const head = git("rev-parse", "HEAD");

    const checkpoints = await open();
    const start = await checkpoints!.snapshot("event-1", "start");
    expect(start).toMatchObject({ number: 1, ref: "refs/tandem/checkpoints/s1/1", phase: "start", eventId: "event-1" });
    write("a.txt", "a\nb\n");
    write("deep/new/file.txt", "new\n");
    write("app.log", "log\n");
    rmSync(join(repo, "staged.txt"));
    await checkpoints!.snapshot("event-1", "end");

    expect((await checkpoints!.changesSince(start.commit)).map((change) => [change.path.slice(repo.length + 1), change.changeType])).toEqual([
      ["a.txt", "modified"],
      ["deep/new/file.txt", "created"],
      ["staged.txt", "deleted"],
    ]);
    const restored = await checkpoints!.restore(start.commit);
    expect(restored).toHaveLength(3);
    expect(readFileSync(join(repo, "a.txt"), "utf8")).toBe("a\n");
    expect(readFileSync(join(repo, "staged.txt"), "utf8")).toBe("s\n");
    expect(existsSync(join(repo, "deep"))).toBe(false);
    expect(readFileSync(join(repo, "app.log"), "utf8")).toBe("log\n");
    expect(git("ls-files", "--stage")).toBe(index);
    expect(git("rev-parse", "HEAD")).toBe(head);
    expect(git("stash", "list")).toBe("");

    // A new process finds the checkpoints again from the refs.
    const reopened = await open();
    expect(reopened!.all.map((checkpoint) => [checkpoint.number, checkpoint.phase, checkpoint.eventId])).toEqual([
      [1, "start", "event-1"],
      [2, "end", "event-1"],
    ]);
  });

  it("keeps a session id that is not ref-safe inside one ref folder", async () => {
    git("init", "-q");
    write("a.txt", "a\n");
    const checkpoints = await open("../../heads/main");
    const checkpoint = await checkpoints!.snapshot("e", "start");
    expect(checkpoint.ref).toBe("refs/tandem/checkpoints/_d_d_x2f__d_d_x2f_heads_x2f_main/1");
    expect(git("for-each-ref", "refs/heads")).toBe("");
  });

  it("finds a session's checkpoints written under its former ref name, moves them to its namespace, and leaves another session's alone", async () => {
    git("init", "-q");
    write("a.txt", "a\n");
    const formerName = `x-${createHash("sha256").update("my.session").digest("hex").slice(0, 32)}`;
    const tree = git("write-tree").trim();
    const commitOf = (subject: string) => git("commit-tree", tree, "-m", subject).trim();
    git("update-ref", `refs/tandem/checkpoints/${formerName}/1`, commitOf("tandem-checkpoint start turn-of-my-session"));
    git("update-ref", `refs/tandem/checkpoints/${formerName}/2`, commitOf("tandem-checkpoint end turn-of-my-session"));

    // A session whose id is that former name sees none of them, and never reuses their numbers.
    const impostor = await GitCheckpoints.open(repo, formerName, join(sessionDir, "other.index"), { turnIds: async () => new Set(["turn-of-the-impostor"]) });
    expect(impostor!.all).toEqual([]);
    expect((await impostor!.snapshot("turn-of-the-impostor", "start")).number).toBe(3);

    const own = await GitCheckpoints.open(repo, "my.session", join(sessionDir, "checkpoint.index"), { turnIds: async () => new Set(["turn-of-my-session"]) });
    expect(own!.all.map((checkpoint) => [checkpoint.ref, checkpoint.phase])).toEqual([
      ["refs/tandem/checkpoints/my_dsession/1", "start"],
      ["refs/tandem/checkpoints/my_dsession/2", "end"],
    ]);
    expect(git("for-each-ref", "--format=%(refname)", "refs/tandem/").trim().split("\n")).toEqual([
      "refs/tandem/checkpoints/my_dsession/1",
      "refs/tandem/checkpoints/my_dsession/2",
      `refs/tandem/checkpoints/${formerName}/3`,
    ]);
    expect((await own!.snapshot("turn-of-my-session", "after-rewind")).ref).toBe("refs/tandem/checkpoints/my_dsession/3");
  });

  it("never captures untracked files that were there before the first checkpoint; captures the ones that appear later", async () => {
    git("init", "-q");
    write(".gitignore", "*.log\n");
    write("a.txt", "a\n");
    git("add", "-A");
    git("commit", "-q", "-m", "one");
    write(".env", "TOKEN=secret\n");
    const checkpoints = await open();
    const first = await checkpoints!.snapshot("e1", "start");
    write(".env", "TOKEN=changed\n");
    write("made-by-the-session.txt", "new\n");
    write("made.log", "ignored\n");
    const second = await checkpoints!.snapshot("e1", "end");
    expect(git("ls-tree", "-r", "--name-only", first.commit).trim().split("\n")).toEqual([".gitignore", "a.txt"]);
    expect(git("ls-tree", "-r", "--name-only", second.commit).trim().split("\n")).toEqual([".gitignore", "a.txt", "made-by-the-session.txt"]);
    // A new process draws the same line.
    const reopened = await open();
    const third = await reopened!.snapshot("e2", "start");
    expect(git("ls-tree", "-r", "--name-only", third.commit)).not.toContain(".env");
  });
});

describe("refNamespace", () => {
  it("keeps UUIDs as they are and gives every id its own name", () => {
    expect(refNamespace("4f0c2a1e-9a1e-4c1b-8e1f-0a1b2c3d4e5f")).toBe("4f0c2a1e-9a1e-4c1b-8e1f-0a1b2c3d4e5f");
    const ids = ["a.b", "a_b", "a_db", "a_ub", "a-b", "_a", "x-0123", "a..b", "a._b"];
    const names = ids.map(refNamespace);
    expect(new Set(names).size).toBe(ids.length);
    expect(refNamespace("a".padEnd(128, "."))).toMatch(/^_h[0-9a-f]{64}$/);
  });
});
