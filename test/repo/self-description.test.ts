/**
 * The repository speaks of itself: README, comments and tests describe behaviour and cite public
 * documents, never tracker issue numbers, work rounds or private specification files that a reader
 * of this repository does not have.
 */
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { expect, it } from "vitest";

const repoRoot = fileURLToPath(new URL("../..", import.meta.url));

/** Words that point at documents outside the repository. */
const processWords = [/\bissue #?\d+/i, /\bissue \d+'s\b/i, /\bround \d+\b/i, /\bseed(?: file)? 0\d\d\b/i, /\bseed 0\d\d's\b/i, /§\s?\d/];

/** Generated reports quote what they compare; the lock file is not prose. */
const skipped = new Set(["package-lock.json", "conformance/REPORT.md", "conformance/report.json"]);

it("no tracked text file points at tracker issues, rounds or specification file numbers", () => {
  const files = execFileSync("git", ["ls-files", "-z"], { cwd: repoRoot, encoding: "utf8" })
    .split("\0")
    .filter((path) => path !== "" && !skipped.has(path) && /\.(ts|tsx|mjs|cjs|js|md|yaml|yml|json|css|html|sh)$/.test(path));
  const found: string[] = [];
  for (const path of files) {
    let text: string;
    try {
      text = readFileSync(join(repoRoot, path), "utf8");
    } catch {
      continue; // Deleted in the working tree but still in the index.
    }
    text.split("\n").forEach((line, index) => {
      if (processWords.some((pattern) => pattern.test(line))) found.push(`${path}:${index + 1}: ${line.trim().slice(0, 120)}`);
    });
  }
  expect(found).toEqual([]);
});
