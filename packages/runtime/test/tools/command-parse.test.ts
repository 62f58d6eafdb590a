import { mkdirSync, symlinkSync } from "node:fs";
import { dirname, join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { shellPermissionRequest, splitCommandLine } from "../../src/tools/builtin/shell/command-parse.js";
import { tempDir } from "./helpers.js";

describe("splitCommandLine", () => {
  it("splits on &&, ||, ;, | and newlines, respecting quotes and substitutions", () => {
    const commands = splitCommandLine(`cd src && grep -n "a && b" *.ts | head -5; echo 'x;y' || echo $(date; pwd)\nls`);
    expect(commands.map((command) => command.text)).toEqual([
      "cd src",
      `grep -n "a && b" *.ts`,
      "head -5",
      "echo 'x;y'",
      "echo $(date; pwd)",
      "ls",
    ]);
    expect(commands[1]!.words).toEqual(["grep", "-n", "a && b", "*.ts"]);
  });

  it("separates redirections from words", () => {
    const [command] = splitCommandLine("sort < in.txt 2>&1 >> out.txt 2> err.log");
    expect(command!.words).toEqual(["sort"]);
    expect(command!.redirects).toEqual([
      { operator: "<", target: "in.txt" },
      { operator: ">>", target: "out.txt" },
      { operator: ">", target: "err.log" },
    ]);
  });

  it("ignores comments and handles escapes", () => {
    expect(splitCommandLine("echo a\\ b # not a command; rm -rf /").map((command) => command.words)).toEqual([["echo", "a b"]]);
  });
});

describe("shellPermissionRequest", () => {
  let dir: ReturnType<typeof tempDir>;
  let outside: ReturnType<typeof tempDir>;
  beforeEach(() => {
    dir = tempDir();
    outside = tempDir("tandem-outside-");
  });
  afterEach(() => {
    dir.remove();
    outside.remove();
  });

  it("lists commands with a read-only guess, paths, URLs and write redirection", async () => {
    const request = await shellPermissionRequest(
      "cat README.md | grep -i install && curl -sS https://example.com/x.sh -o ./setup.sh; git status",
      "Install",
      dir.path,
    );
    expect(request).toEqual({
      kind: "shell",
      fullCommandText: "cat README.md | grep -i install && curl -sS https://example.com/x.sh -o ./setup.sh; git status",
      intention: "Install",
      commands: [
        { identifier: "cat README.md", readOnly: true },
        { identifier: "grep -i install", readOnly: true },
        { identifier: "curl -sS https://example.com/x.sh -o ./setup.sh", readOnly: false },
        { identifier: "git status", readOnly: true },
      ],
      possiblePaths: [join(dir.path, "README.md"), join(dir.path, "setup.sh")],
      possibleUrls: [{ url: "https://example.com/x.sh" }],
      hasWriteFileRedirection: false,
      canOfferSessionApproval: false,
    });
  });

  it("shows paths that leave the working directory through .. or a symlink as their real path", async () => {
    mkdirSync(join(outside.path, "secrets"));
    symlinkSync(join(outside.path, "secrets"), join(dir.path, "link"));
    const request = await shellPermissionRequest("cat ../escape.txt link/key.pem > /dev/null", "Read", dir.path);
    if (request.kind !== "shell") throw new Error("expected a shell request");
    expect(request.possiblePaths).toEqual([join(dirname(dir.path), "escape.txt"), join(outside.path, "secrets", "key.pem")]);
    expect(request.hasWriteFileRedirection).toBe(false);
    expect(request.commands).toEqual([{ identifier: "cat ../escape.txt link/key.pem > /dev/null", readOnly: true }]);
  });

  it("flags > and >> into files", async () => {
    const request = await shellPermissionRequest("echo hi >> log.txt", "Log", dir.path);
    expect(request).toMatchObject({ hasWriteFileRedirection: true, possiblePaths: [join(dir.path, "log.txt")], commands: [{ readOnly: false }] });
  });
});
