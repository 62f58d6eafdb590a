import { execFileSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { displayDiff, unifiedDiff, viewedFileDiff } from "../../src/tools/builtin/diff.js";
import { tempDir } from "./helpers.js";

describe("unifiedDiff", () => {
  it("writes git-style hunks with 3 lines of context and git's range conventions", async () => {
    const before = "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n";
    const after = "1\n2\n3\n4\nfive\n6\n7\n8\n9\n10\n";
    expect(await unifiedDiff(before, after, "f.txt")).toBe(
      "diff --git a/f.txt b/f.txt\n--- a/f.txt\n+++ b/f.txt\n@@ -2,7 +2,7 @@\n 2\n 3\n 4\n-5\n+five\n 6\n 7\n 8\n",
    );
    expect(await unifiedDiff("a\n", "b\n", "f")).toContain("@@ -1 +1 @@\n-a\n+b\n");
    expect(await unifiedDiff("", "x", "/abs/f", { created: true })).toBe(
      "diff --git a/abs/f b/abs/f\nnew file mode 100644\n--- /dev/null\n+++ b/abs/f\n@@ -0,0 +1 @@\n+x\n\\ No newline at end of file\n",
    );
    expect(await unifiedDiff("same\n", "same\n", "f")).toBe("");
  });

  it("marks a changed final newline", async () => {
    expect(await unifiedDiff("a\nb", "a\nb\n", "f")).toContain("@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n+b\n");
  });
});

describe("displayDiff and viewedFileDiff (the reference runtimes' form for events)", () => {
  it("draws an edit line by line as split at each newline, with a leading newline and both range numbers", async () => {
    expect(await displayDiff("alpha\nbeta\n", "alpha\ngamma\n", "/work/notes.txt")).toBe(
      "\ndiff --git a/work/notes.txt b/work/notes.txt\nindex 0000000..0000000 100644\n--- a/work/notes.txt\n+++ b/work/notes.txt\n@@ -1,3 +1,3 @@\n alpha\n-beta\n+gamma\n \n",
    );
  });

  it("draws a created file against a/dev/null, counting the final empty line only when asked (1.0.10's form)", async () => {
    const header = "\ndiff --git a/work/notes.txt b/work/notes.txt\ncreate file mode 100644\nindex 0000000..0000000\n--- a/dev/null\n+++ b/work/notes.txt\n";
    expect(await displayDiff("", "alpha\nbeta\n", "/work/notes.txt", { created: true })).toBe(`${header}@@ -1,0 +1,2 @@\n+alpha\n+beta\n`);
    expect(await displayDiff("", "alpha\nbeta\n", "/work/notes.txt", { created: true, createdCountsFinalEmptyLine: true })).toBe(`${header}@@ -1,0 +1,3 @@\n+alpha\n+beta\n+\n`);
  });

  it("shows a viewed file whole, every line as context", () => {
    expect(viewedFileDiff("alpha\nbeta\n", "/work/notes.txt")).toBe(
      "\ndiff --git a/work/notes.txt b/work/notes.txt\nindex 0000000..0000000 100644\n--- a/work/notes.txt\n+++ b/work/notes.txt\n@@ -1,3 +1,3 @@\n alpha\n beta\n \n",
    );
  });
});

const hasGit = (() => {
  try {
    execFileSync("git", ["--version"]);
    return true;
  } catch {
    return false;
  }
})();

describe.skipIf(!hasGit)("unifiedDiff applies with git", () => {
  let dir: ReturnType<typeof tempDir>;
  beforeAll(() => {
    dir = tempDir();
    execFileSync("git", ["init", "-q"], { cwd: dir.path });
  });
  afterAll(() => dir.remove());

  // A deterministic pseudo-random generator, so failures reproduce.
  function random(seed: number): () => number {
    let state = seed;
    return () => {
      state = (state * 1103515245 + 12345) & 0x7fffffff;
      return state / 0x7fffffff;
    };
  }

  it("round-trips 40 random edits through git apply", async () => {
    const next = random(42);
    for (let round = 0; round < 40; round++) {
      const lines = Array.from({ length: 5 + Math.floor(next() * 60) }, () => `line ${Math.floor(next() * 12)}`);
      const edited = [...lines];
      for (let change = 0; change < 1 + Math.floor(next() * 6); change++) {
        const at = Math.floor(next() * (edited.length + 1));
        const roll = next();
        if (roll < 0.33) edited.splice(at, 1);
        else if (roll < 0.66) edited.splice(at, 0, `new ${round}-${change}`);
        else edited[Math.min(at, edited.length - 1)] = `changed ${change}`;
      }
      const oldText = lines.join("\n") + (next() < 0.8 ? "\n" : "");
      const newText = edited.join("\n") + (next() < 0.8 ? "\n" : "");
      const file = join(dir.path, "file.txt");
      writeFileSync(file, oldText);
      const patch = await unifiedDiff(oldText, newText, "file.txt");
      if (oldText === newText) continue;
      writeFileSync(join(dir.path, "change.patch"), patch);
      execFileSync("git", ["apply", "change.patch"], { cwd: dir.path });
      expect(readFileSync(file, "utf8")).toBe(newText);
    }
  });
});

describe("unifiedDiff past 1000 differences", () => {
  it("shows the changed middle as one replacement, keeping the common lines around it as context", async () => {
    const head = Array.from({ length: 10 }, (_, index) => `head ${index}`);
    const tail = Array.from({ length: 10 }, (_, index) => `tail ${index}`);
    const before = [...head, ...Array.from({ length: 600 }, (_, index) => `old ${index}`), ...tail].join("\n") + "\n";
    const after = [...head, ...Array.from({ length: 600 }, (_, index) => `new ${index}`), ...tail].join("\n") + "\n";
    const patch = await unifiedDiff(before, after, "f");
    const lines = patch.split("\n");
    expect(lines.slice(0, 7)).toEqual(["diff --git a/f b/f", "--- a/f", "+++ b/f", "@@ -8,606 +8,606 @@", " head 7", " head 8", " head 9"]);
    expect(lines.filter((line) => line.startsWith("-old"))).toHaveLength(600);
    expect(lines.filter((line) => line.startsWith("+new"))).toHaveLength(600);
    expect(lines.slice(-4)).toEqual([" tail 0", " tail 1", " tail 2", ""]);
  });
});
