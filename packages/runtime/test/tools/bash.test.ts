import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { listBashTool, readBashTool, stopBashTool, writeBashTool } from "../../src/tools/builtin/bash-control.js";
import { bashTool } from "../../src/tools/builtin/bash.js";
import { ShellManager, backgroundCompletionNotice, type BackgroundCompletion } from "../../src/tools/builtin/shell/shell-manager.js";
import type { Tool } from "../../src/tools/types.js";
import { denyAll, fakeContext, tempDir } from "./helpers.js";

let dir: ReturnType<typeof tempDir>;
let shells: ShellManager;
let completions: BackgroundCompletion[];
let bash: Tool;
let readBash: Tool;
let writeBash: Tool;
let stopBash: Tool;
let listBash: Tool;

beforeEach(() => {
  dir = tempDir();
  completions = [];
  shells = new ShellManager({ onBackgroundComplete: (completion) => completions.push(completion) });
  bash = bashTool(shells, { maxOutputChars: 2000 });
  readBash = readBashTool(shells);
  writeBash = writeBashTool(shells);
  stopBash = stopBashTool(shells);
  listBash = listBashTool(shells);
});

afterEach(async () => {
  await shells.dispose();
  dir.remove();
});

function run(tool: Tool, args: Record<string, unknown>, context = fakeContext(dir.path)) {
  return tool.execute(args, context.context);
}

/** Whether a process runs (a zombie waiting to be reaped counts as dead). */
function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    return readFileSync(`/proc/${pid}/stat`, "utf8").split(" ")[2] !== "Z";
  } catch {
    return true;
  }
}

async function waitUntil(predicate: () => boolean, timeoutMs = 5000): Promise<void> {
  const started = Date.now();
  while (!predicate()) {
    if (Date.now() - started > timeoutMs) throw new Error("condition not met in time");
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe("bash", () => {
  it("returns interleaved output and the exit code marker", async () => {
    const outcome = await run(bash, { command: "echo hello; echo world >&2", description: "Greet" });
    expect(outcome).toMatchObject({ resultType: "success", textForModel: "hello\nworld\n<exited with exit code 0>" });
    expect(outcome.telemetry).toEqual({
      properties: { customTimeout: "false", executionMode: "sync", detached: "false" },
      metrics: { commandTimeout: 120_000 },
    });
  });

  it("adds a newline before the marker when output has none, and reports non-zero exits", async () => {
    expect((await run(bash, { command: "printf abc; false", description: "x" })).textForModel).toBe("abc\n<exited with exit code 1>");
    expect((await run(bash, { command: "true", description: "x" })).textForModel).toBe("\n<exited with exit code 0>");
    expect((await run(bash, { command: "exit 3", description: "x" })).textForModel).toBe("exit\n<exited with exit code 3>");
  });

  it("gives one-off commands an empty stdin instead of hanging", async () => {
    expect((await run(bash, { command: "cat; echo after", description: "x", initial_wait: 5 })).textForModel).toBe("after\n<exited with exit code 0>");
  });

  it("starts a named shell afresh after it exited", async () => {
    await run(bash, { command: "cd / && exit 4", description: "x", shellId: "gone" });
    expect((await run(bash, { command: "pwd", description: "x", shellId: "gone" })).textForModel).toBe(`${dir.path}\n<exited with exit code 0>`);
  });

  it("kills what a named shell left running when the shell exits", async () => {
    const pidFile = join(dir.path, "left.pid");
    const outcome = await run(bash, { command: `sleep 30 & echo $! > ${pidFile}; exit 0`, description: "x", shellId: "leaver" });
    expect(outcome.textForModel).toBe("exit\n<exited with exit code 0>");
    const childPid = Number(readFileSync(pidFile, "utf8"));
    await waitUntil(() => !processAlive(childPid));
  });

  it("reports syntax errors as output with exit code 2", async () => {
    const outcome = await run(bash, { command: "echo 'unterminated", description: "x" });
    expect(outcome.textForModel).toMatch(/unexpected EOF[\s\S]*<exited with exit code 2>$/);
  });

  it("runs each call without shellId in a fresh shell in the working directory", async () => {
    await run(bash, { command: "cd / && export FOO=1", description: "x" });
    const outcome = await run(bash, { command: 'pwd; echo "foo=${FOO:-unset}"', description: "x" });
    expect(outcome.textForModel).toBe(`${dir.path}\nfoo=unset\n<exited with exit code 0>`);
  });

  it("keeps cwd and exported variables in a named shell", async () => {
    await run(bash, { command: "mkdir sub && cd sub && export FOO=bar", description: "x", shellId: "work" });
    const outcome = await run(bash, { command: 'pwd; echo "$FOO"', description: "x", shellId: "work" });
    expect(outcome.textForModel).toBe(`${join(dir.path, "sub")}\nbar\n<exited with exit code 0>`);
    expect((await run(listBash, {})).textForModel).toMatch(
      /^Active shell sessions:\n {2}shellId: work, pid: \d+, mode: sync, status: completed, elapsed: \d+s, commands: 2, unread output: no\n {4}last command: pwd; echo "\$FOO"$/,
    );
  });

  it("asks a shell permission with the parsed command and does nothing when denied", async () => {
    const context = fakeContext(dir.path, { decide: denyAll });
    const outcome = await run(bash, { command: "touch made.txt && echo hi > out.txt", description: "Make files" }, context);
    expect(outcome).toMatchObject({ resultType: "rejected", textForModel: "The user rejected this tool call." });
    expect(context.permissions).toEqual([
      {
        kind: "shell",
        fullCommandText: "touch made.txt && echo hi > out.txt",
        intention: "Make files",
        commands: [
          { identifier: "touch made.txt", readOnly: false },
          { identifier: "echo hi > out.txt", readOnly: false },
        ],
        possiblePaths: [join(dir.path, "made.txt"), join(dir.path, "out.txt")],
        possibleUrls: [],
        hasWriteFileRedirection: true,
        canOfferSessionApproval: false,
      },
    ]);
    expect(existsSync(join(dir.path, "made.txt"))).toBe(false);
    expect(existsSync(join(dir.path, "out.txt"))).toBe(false);
  });

  it("validates arguments before asking permission", async () => {
    const context = fakeContext(dir.path);
    const outcome = await run(bash, { command: "ls" }, context);
    expect(outcome).toMatchObject({ resultType: "failure", textForModel: 'Invalid input: "description": Required' });
    expect(context.permissions).toEqual([]);
  });

  it("streams output as partial results while the command runs", async () => {
    const context = fakeContext(dir.path, { toolCallId: "call-stream" });
    const outcome = await run(bash, { command: "echo one; sleep 0.3; echo two", description: "x" }, context);
    expect(outcome.textForModel).toBe("one\ntwo\n<exited with exit code 0>");
    const partials = context.events.filter((event) => event.type === "tool.execution_partial_result");
    expect(partials.length).toBeGreaterThanOrEqual(2);
    expect(partials.every((event) => event.data.toolCallId === "call-stream")).toBe(true);
    expect(partials.map((event) => event.data.partialOutput).join("")).toBe("one\ntwo\n");
  });

  it("keeps the head and tail of long output for the model and all of it in detailedContent", async () => {
    const outcome = await run(bash, { command: "seq 1 2000", description: "x" });
    const full = `${Array.from({ length: 2000 }, (_, index) => index + 1).join("\n")}\n<exited with exit code 0>`;
    expect(outcome.detailedContent).toBe(full);
    expect(outcome.textForModel.startsWith("1\n2\n3\n")).toBe(true);
    expect(outcome.textForModel.endsWith("1999\n2000\n<exited with exit code 0>")).toBe(true);
    expect(outcome.textForModel).toMatch(/\[Output truncated: \d+ characters \(\d+ lines\) omitted from the middle\./);
    expect(outcome.textForModel.length).toBeLessThan(2600);
  });

  it("stops a sync command at its timeout and kills what it started", async () => {
    const pidFile = join(dir.path, "child.pid");
    const started = Date.now();
    const outcome = await run(bash, { command: `echo before; sleep 30 & echo $! > ${pidFile}; wait`, description: "x", initial_wait: 0.5 });
    expect(Date.now() - started).toBeLessThan(5000);
    expect(outcome.resultType).toBe("failure");
    expect(outcome.textForModel).toMatch(/^before\n<command timed out after 0\.5 seconds and was stopped\./);
    const childPid = Number(readFileSync(pidFile, "utf8"));
    await waitUntil(() => !processAlive(childPid));
  });

  it("kills the process group when the call is aborted", async () => {
    const pidFile = join(dir.path, "child.pid");
    const context = fakeContext(dir.path);
    const pending = run(bash, { command: `sleep 30 & echo $! > ${pidFile}; wait`, description: "x" }, context);
    await waitUntil(() => existsSync(pidFile) && Number(readFileSync(pidFile, "utf8")) > 0);
    context.controller.abort();
    const outcome = await pending;
    expect(outcome.textForModel).toBe("The execution of this tool, or a previous tool was interrupted.");
    await waitUntil(() => !processAlive(Number(readFileSync(pidFile, "utf8"))));
  });
});

describe("background shells", () => {
  it("starts async commands, reads their output, and notifies on completion", async () => {
    const started = await run(bash, { command: "echo first; sleep 0.3; echo second", description: "Two lines", mode: "async" });
    expect(started.textForModel).toBe("<command started in background with shellId: 1>");
    const read = await run(readBash, { shellId: "1", delay: 5 });
    expect(read).toMatchObject({ resultType: "success", textForModel: "first\nsecond\n<command with id: 1 exited with exit code 0>" });
    await waitUntil(() => completions.length === 1);
    expect(completions[0]).toMatchObject({ shellId: "1", description: "Two lines", command: "echo first; sleep 0.3; echo second", exitCode: 0 });
    expect(completions[0]!.notice).toBe(
      '<system_notification>\nShell command "Two lines" (shellId: 1) has completed successfully. Use read_bash with shellId "1" to retrieve the output.\n</system_notification>',
    );
    // Everything was read already.
    expect((await run(readBash, { shellId: "1", delay: 0 })).textForModel).toBe("\n<command with id: 1 exited with exit code 0>");
  });

  it("says a command is still running when read before it ends", async () => {
    await run(bash, { command: "echo partial; sleep 5", description: "x", mode: "async", shellId: "slow" });
    const read = await run(readBash, { shellId: "slow", delay: 0.3 });
    expect(read.textForModel).toMatch(/^partial\n<command with shellId: slow is still running after [\d.]+ seconds\./);
    expect((await run(listBash, {})).textForModel).toMatch(/shellId: slow, pid: \d+, mode: async, status: running, elapsed: \d+s, commands: 1, unread output: no\n {4}current command: echo partial; sleep 5/);
  });

  it("sends input to a command waiting on read", async () => {
    await run(bash, { command: 'read -p "Name? " name; echo "Hello, $name"', description: "Ask", mode: "async", shellId: "prompt" });
    const answered = await run(writeBash, { shellId: "prompt", input: "Ada{enter}", delay: 5 });
    expect(answered.textForModel).toBe("Hello, Ada\n<command with id: prompt exited with exit code 0>");
  });

  it("never runs input the command did not read as a command line of the shell", async () => {
    // `sleep` reads no input: what write_bash sent stays input, for the next command that reads it.
    await run(bash, { command: "sleep 1.5", description: "x", mode: "async", shellId: "typed" });
    await run(writeBash, { shellId: "typed", input: "touch typed-ahead{enter}", delay: 0 });
    await run(readBash, { shellId: "typed", delay: 5 });
    const next = await run(bash, { command: "read -t 1 line; echo \"read: $line\"; ls", description: "x", shellId: "typed" });
    expect(next.textForModel).toBe("read: touch typed-ahead\n<exited with exit code 0>");
    expect(existsSync(join(dir.path, "typed-ahead"))).toBe(false);
  });

  it("refuses input when nothing runs, and unknown shells on read", async () => {
    expect((await run(writeBash, { shellId: "nope", input: "x", delay: 0 })).textForModel).toBe(
      "<unable to send input. no command with id: nope is currently running>",
    );
    expect((await run(readBash, { shellId: "nope", delay: 0 })).textForModel).toBe(
      "Invalid shell ID: nope. Please supply a valid shell ID to read output from.\n\n<no active shell sessions>",
    );
    expect((await run(listBash, {})).textForModel).toBe("<no active shell sessions>");
  });

  it("stop_bash kills the whole process group and forgets the shell", async () => {
    const pidFile = join(dir.path, "bg.pid");
    await run(bash, { command: `sleep 30 & echo $! > ${pidFile}; sleep 30`, description: "x", mode: "async", shellId: "bg" });
    await waitUntil(() => existsSync(pidFile) && readFileSync(pidFile, "utf8").trim() !== "");
    const childPid = Number(readFileSync(pidFile, "utf8"));
    const shellPid = shells.list()[0]!.pid!;
    expect(processAlive(childPid)).toBe(true);
    expect((await run(stopBash, { shellId: "bg" })).textForModel).toBe("<command with id: bg stopped>");
    await waitUntil(() => !processAlive(childPid) && !processAlive(shellPid));
    expect((await run(stopBash, { shellId: "never" })).textForModel).toBe("<command with id: never stopped>");
    expect((await run(listBash, {})).textForModel).toBe("<no active shell sessions>");
    expect(completions).toEqual([]);
  });

  it("refuses a second command in a busy shell", async () => {
    await run(bash, { command: "sleep 5", description: "x", mode: "async", shellId: "busy" });
    const second = await run(bash, { command: "echo hi", description: "x", shellId: "busy" });
    expect(second.resultType).toBe("failure");
    expect(second.textForModel).toMatch(/^Shell busy is still running a command \(sleep 5\)/);
  });

  it("dispose kills running shells", async () => {
    await run(bash, { command: "sleep 30", description: "x", mode: "async" });
    const pid = shells.list()[0]!.pid!;
    await shells.dispose();
    await waitUntil(() => !processAlive(pid));
  });

  it("words notices for failures", () => {
    expect(backgroundCompletionNotice({ shellId: "2", description: "Build", exitCode: 2 })).toContain(
      'Shell command "Build" (shellId: 2) has completed with exit code 2.',
    );
  });
});

describe("detached shells", () => {
  it("keep running after dispose and still report output before it", async () => {
    const marker = join(dir.path, "done.txt");
    await run(bash, { command: `echo started; sleep 0.5; echo finished > ${marker}`, description: "x", mode: "async", detach: true, shellId: "d" });
    const read = await run(readBash, { shellId: "d", delay: 0.2 });
    expect(read.textForModel).toMatch(/^started\n<command with shellId: d is still running/);
    await shells.dispose();
    await waitUntil(() => existsSync(marker));
  });
});

