import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { GitCheckpoints } from "../../src/checkpoints/git-checkpoints.js";

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
    expect(checkpoint.ref).toMatch(/^refs\/tandem\/checkpoints\/x-[0-9a-f]{32}\/1$/);
    expect(git("for-each-ref", "refs/heads")).toBe("");
  });
});
