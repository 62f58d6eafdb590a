/**
 * Shell permission labels through the built runtime and a real bash, driven by the official SDK
 * 1.0.x: an application that denies every command that is not read-only keeps the disk untouched
 * even when the command's text hides a write or code (here-documents, arithmetic on crafted
 * values, abbreviated options); and an approval "for the session" does not carry over to a named
 * shell whose state a later command changed.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CopilotClient, RuntimeConnection } from "copilot-sdk-v1";
import { afterEach, beforeEach, expect, it } from "vitest";
import { startWorld, tandemBin, type TestWorld } from "../helpers/harness.js";

interface ShellRequest {
  kind: string;
  fullCommandText?: string;
  commands?: Array<{ identifier: string; readOnly: boolean }>;
  warning?: string;
}

let world: TestWorld | undefined;
let client: CopilotClient | undefined;
let workdir: string;

beforeEach(() => {
  workdir = realpathSync(mkdtempSync(join(tmpdir(), "tandem-shell-labels-")));
});

afterEach(async () => {
  await client?.stop();
  client = undefined;
  await world?.dispose();
  world = undefined;
  rmSync(workdir, { recursive: true, force: true });
});

function start(env: Record<string, string>): CopilotClient {
  client = new CopilotClient({ connection: RuntimeConnection.forStdio({ path: tandemBin, env }), logLevel: "error" });
  return client;
}

const allReadOnly = (request: ShellRequest) => request.kind === "shell" && (request.commands ?? []).every((command) => command.readOnly);

it("an application that denies what is not read-only keeps files untouched and hidden code unrun", async () => {
  world = await startWorld(["shell-labels-deny"]);
  writeFileSync(join(workdir, "keep.txt"), "keep me\n");
  // A file a repository could ship: its value is evaluated as arithmetic by `$((v+1))`.
  writeFileSync(join(workdir, "VERSION"), "a[$(touch pwned-version)]\n");
  const requests: ShellRequest[] = [];
  const session = await start(world.env).createSession({
    workingDirectory: workdir,
    onPermissionRequest: (request: unknown) => {
      const shell = request as ShellRequest;
      requests.push(shell);
      return allReadOnly(shell) ? { kind: "approve-once" } : { kind: "reject", feedback: "not read-only" };
    },
  });
  const reply = await session.sendAndWait({ prompt: "Please look around" }, 60_000);
  expect(reply?.data.content).toBe("Looked around.");
  expect(requests).toHaveLength(10);
  const approved = requests.filter(allReadOnly).map((request) => request.fullCommandText);
  expect(approved).toEqual(["cat keep.txt"]);
  // Where arithmetic evaluates a value the script spells out, the hidden command is listed too.
  const arithmetic = requests.find((request) => request.fullCommandText?.includes("pwned-arith"));
  expect(arithmetic?.commands?.map((command) => command.identifier)).toContain("touch pwned-arith");
  expect(arithmetic?.warning).toContain("any command");
  const version = requests.find((request) => request.fullCommandText?.includes("VERSION"));
  expect(version?.commands).toContainEqual({ identifier: "arbitrary code via evaluation of: $((v+1))", readOnly: false });
  expect(readFileSync(join(workdir, "keep.txt"), "utf8")).toBe("keep me\n");
  expect(readdirSync(workdir).sort()).toEqual(["VERSION", "keep.txt"]);
  await session.disconnect();
});

it("an approval for the session is asked again in a named shell whose state a later command changed", async () => {
  world = await startWorld(["shell-labels-named-shell"]);
  const requests: ShellRequest[] = [];
  const session = await start(world.env).createSession({
    workingDirectory: workdir,
    onPermissionRequest: (request: unknown) => {
      const shell = request as ShellRequest;
      requests.push(shell);
      if (requests.length === 1) return { kind: "approve-for-session", approval: { kind: "commands", commandIdentifiers: ["ls"] } };
      if (shell.fullCommandText?.startsWith("ls()") || shell.fullCommandText === "touch made.txt") return { kind: "approve-once" };
      return { kind: "reject", feedback: "ls is a function now" };
    },
  });
  const reply = await session.sendAndWait({ prompt: "Please list twice" }, 60_000);
  expect(reply?.data.content).toBe("Listed.");
  // Asked: the first `ls`, `touch`, the definition, and `ls` after it; not the `ls` after `touch` (an external
  // program cannot change the shell) nor the one in a fresh shell.
  expect(requests.map((request) => request.fullCommandText)).toEqual(["ls", "touch made.txt", "ls() { touch ls-ran; }", "ls"]);
  expect(requests[0]?.commands).toEqual([{ identifier: "ls", readOnly: true }]);
  expect(requests[3]?.commands).toEqual([{ identifier: "ls", readOnly: false }]);
  expect(requests[3]?.warning).toContain("shell's state");
  expect(existsSync(join(workdir, "made.txt"))).toBe(true);
  expect(existsSync(join(workdir, "ls-ran"))).toBe(false);
  await session.disconnect();
});
