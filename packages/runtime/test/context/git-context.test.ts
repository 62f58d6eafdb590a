import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { readGitContext, repositoryOf } from "../../src/context/git-context.js";

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe("repositoryOf", () => {
  it.each([
    ["git@github.com:acme/widgets.git", "acme/widgets"],
    ["https://github.com/acme/widgets", "acme/widgets"],
    ["https://github.com/acme/widgets.git/", "acme/widgets"],
    ["ssh://git@ghe.example.com:2222/acme/widgets.git", "acme/widgets"],
    ["https://dev.azure.com/org/project/_git/repo", "_git/repo"],
    ["/srv/git/widgets.git", "git/widgets"],
    ["widgets", undefined],
  ])("%s → %s", (url, expected) => {
    expect(repositoryOf(url)).toBe(expected);
  });
});

describe("readGitContext", () => {
  it("outside a repository: the cwd only", async () => {
    const dir = realpathSync(mkdtempSync(join(tmpdir(), "tandem-noctx-")));
    dirs.push(dir);
    expect(await readGitContext(dir)).toEqual({ cwd: dir });
  });

  it("in a linked worktree: its own root and branch, the main repository's remote", async () => {
    const repo = realpathSync(mkdtempSync(join(tmpdir(), "tandem-wtctx-")));
    dirs.push(repo);
    const git = (...args: string[]) => execFileSync("git", ["-C", repo, ...args], { stdio: "ignore" });
    execFileSync("git", ["init", "-q", "-b", "main", repo]);
    git("-c", "user.email=t@example.com", "-c", "user.name=t", "commit", "-q", "--allow-empty", "-m", "init");
    git("remote", "add", "upstream", "https://github.com/acme/up.git");
    git("remote", "add", "origin", "https://github.com/acme/widgets.git");
    const worktree = join(repo, "wt");
    git("worktree", "add", "-q", "-b", "topic", worktree);
    expect(await readGitContext(worktree)).toEqual({ cwd: worktree, gitRoot: worktree, branch: "topic", repository: "acme/widgets" });
    git("checkout", "-q", "--detach");
    expect(await readGitContext(repo)).toEqual({ cwd: repo, gitRoot: repo, repository: "acme/widgets" });
  });

  it("in a folder deep inside a repository: the nearest root above it, its branch", async () => {
    const repo = realpathSync(mkdtempSync(join(tmpdir(), "tandem-deepctx-")));
    dirs.push(repo);
    execFileSync("git", ["init", "-q", "-b", "trunk", repo]);
    const deep = join(repo, "a", "b", "c");
    mkdirSync(deep, { recursive: true });
    expect(await readGitContext(deep)).toEqual({ cwd: deep, gitRoot: repo, branch: "trunk" });
  });
});
