import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { loadCustomInstructions } from "../../src/loop/custom-instructions.js";

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function project(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), "tandem-instr-"));
  dirs.push(dir);
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(join(dir, path, ".."), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  return dir;
}

describe("loadCustomInstructions", () => {
  it("reads the working directory's files in order: copilot-instructions.md, AGENTS.md, CLAUDE.md, then .github/instructions", async () => {
    const dir = project({
      "CLAUDE.md": "claude rules",
      "AGENTS.md": "agent rules",
      ".github/copilot-instructions.md": "copilot rules",
      ".github/instructions/b.instructions.md": "b rules",
      ".github/instructions/a.instructions.md": "---\napplyTo: '**'\n---\na rules",
      ".github/instructions/scoped.instructions.md": "---\napplyTo: 'src/**/*.ts'\n---\nscoped rules",
      "README.md": "not instructions",
    });
    const text = await loadCustomInstructions({ workingDirectory: dir });
    const order = ["copilot rules", "agent rules", "claude rules", "a rules", "b rules"].map((part) => text.indexOf(part));
    expect(order.every((position) => position >= 0)).toBe(true);
    expect([...order].sort((a, b) => a - b)).toEqual(order);
    expect(text).toContain(`Instructions from ${join(".github", "copilot-instructions.md")}:`);
    expect(text).not.toContain("scoped rules");
    expect(text).not.toContain("not instructions");
  });

  it("reads an instruction file that is a symbolic link, and nothing from a folder without any", async () => {
    const shared = project({ "team.md": "linked rules" });
    const dir = project({});
    symlinkSync(join(shared, "team.md"), join(dir, "AGENTS.md"));
    expect(await loadCustomInstructions({ workingDirectory: dir })).toContain("linked rules");
    expect(await loadCustomInstructions({ workingDirectory: project({ "src/index.ts": "" }) })).toBe("");
  });

  it("skips the working directory's files with skipCustomInstructions, still reading instructionDirectories", async () => {
    const rules = project({ "x.instructions.md": "directory rules" });
    const dir = project({ "AGENTS.md": "agent rules" });
    const text = await loadCustomInstructions({ workingDirectory: dir, skipCustomInstructions: true, instructionDirectories: [rules] });
    expect(text).toContain("directory rules");
    expect(text).not.toContain("agent rules");
  });
});
