/**
 * The bash tool in a named shell whose state a command changed: through a real bash, requests
 * there are asked with no command read-only and with earlier session approvals set aside, and a
 * changed shell stays changed; fresh shells are not affected.
 */
import { afterEach, beforeEach, expect, it } from "vitest";
import { bashTool } from "../../src/tools/builtin/bash.js";
import { ShellManager } from "../../src/tools/builtin/shell/shell-manager.js";
import { NamedShellStates } from "../../src/tools/builtin/shell/shell-states.js";
import type { PermissionAskOptions, Tool, ToolPermissionRequest } from "../../src/tools/types.js";
import { fakeContext, tempDir } from "./helpers.js";

let dir: ReturnType<typeof tempDir>;
let shells: ShellManager;
let bash: Tool;
const asked: Array<{ request: ToolPermissionRequest; options: PermissionAskOptions | undefined }> = [];

beforeEach(() => {
  dir = tempDir();
  shells = new ShellManager();
  asked.length = 0;
  // A clock that moves one step per reading, so every mark is later than the one before.
  let now = 0;
  bash = bashTool(shells, {}, undefined, new NamedShellStates(() => ++now));
});

afterEach(async () => {
  await shells.dispose();
  dir.remove();
});

async function run(command: string, shellId?: string): Promise<string> {
  const { context } = fakeContext(dir.path);
  const ask = context.requestPermission.bind(context);
  context.requestPermission = (request, options) => {
    asked.push({ request, options });
    return ask(request, options);
  };
  const outcome = await bash.execute({ command, description: "run", ...(shellId ? { shellId } : {}) }, context);
  return outcome.textForModel;
}

const lastAsk = () => {
  const last = asked.at(-1);
  if (last?.request.kind !== "shell") throw new Error("expected a shell request");
  return { commands: last.request.commands, warning: last.request.warning, after: last.options?.sessionApprovalsAfter };
};

it("an external program leaves a named shell unchanged; a function definition changes it, and it stays changed", async () => {
  await run("touch made.txt", "work");
  await run("ls", "work");
  expect(lastAsk()).toEqual({ commands: [{ identifier: "ls", readOnly: true }], warning: undefined, after: undefined });

  expect(await run("ls() { echo redefined; }", "work")).toContain("exit code 0");
  expect(await run("ls", "work")).toContain("redefined");
  const first = lastAsk();
  expect(first.commands).toEqual([{ identifier: "ls", readOnly: false }]);
  expect(first.warning).toContain("shell's state");
  expect(first.after).toEqual(expect.any(Number));

  await run("ls", "work");
  expect(lastAsk().after).toBeGreaterThan(first.after ?? Infinity);

  // A fresh shell, and another named one, are untouched.
  expect(await run("ls")).toContain("made.txt");
  expect(lastAsk()).toEqual({ commands: [{ identifier: "ls", readOnly: true }], warning: undefined, after: undefined });
  await run("ls", "other");
  expect(lastAsk().after).toBeUndefined();
});

it.each(["cd ..", "export PATH=/nowhere:$PATH", "trap 'echo trapped' DEBUG", "shopt -s extdebug", "alias ls=pwd", "set -o functrace"])(
  "%j changes a named shell",
  async (command) => {
    await run(command, "work");
    await run("ls", "work");
    expect(lastAsk().commands).toEqual([{ identifier: "ls", readOnly: false }]);
    expect(lastAsk().after).toEqual(expect.any(Number));
  },
);
