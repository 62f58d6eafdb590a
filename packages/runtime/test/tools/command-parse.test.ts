import { mkdirSync, symlinkSync } from "node:fs";
import { dirname, join } from "node:path";
import { afterAll, afterEach, beforeEach, describe, expect, it } from "vitest";
import { ShellCommandParser } from "../../src/tools/builtin/shell/bash-parser.js";
import { shellPermissionRequest } from "../../src/tools/builtin/shell/command-parse.js";
import { tempDir } from "./helpers.js";

const parser = new ShellCommandParser();
afterAll(() => parser.dispose());

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
      parser,
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
    const request = await shellPermissionRequest("cat ../escape.txt link/key.pem > /dev/null", "Read", dir.path, parser);
    if (request.kind !== "shell") throw new Error("expected a shell request");
    expect(request.possiblePaths).toEqual([join(dirname(dir.path), "escape.txt"), join(outside.path, "secrets", "key.pem")]);
    expect(request.hasWriteFileRedirection).toBe(false);
    expect(request.commands).toEqual([{ identifier: "cat ../escape.txt link/key.pem > /dev/null", readOnly: true }]);
  });

  it("flags > and >> into files", async () => {
    const request = await shellPermissionRequest("echo hi >> log.txt", "Log", dir.path, parser);
    expect(request).toMatchObject({ hasWriteFileRedirection: true, possiblePaths: [join(dir.path, "log.txt")], commands: [{ readOnly: false }] });
  });

  it("lists the command inside a substitution as a command of its own", async () => {
    const request = await shellPermissionRequest("echo $(rm -f X)", "Echo", dir.path, parser);
    expect(request).toMatchObject({
      commands: [
        { identifier: "echo $(rm -f X)", readOnly: false },
        { identifier: "rm -f X", readOnly: false },
      ],
      hasWriteFileRedirection: false,
    });
  });

  it("fails closed when the parser cannot be loaded: the whole line, not read-only, and one warning", async () => {
    const warnings: string[] = [];
    const broken = new ShellCommandParser({
      loadGrammar: async () => {
        throw new Error("ENOENT: tree-sitter-bash.wasm");
      },
      warn: (message) => warnings.push(message),
    });
    const first = await shellPermissionRequest("ls  ", "List", dir.path, broken);
    const second = await shellPermissionRequest("cat a > b", "Copy", dir.path, broken);
    expect(first).toMatchObject({ commands: [{ identifier: "ls", readOnly: false }], possiblePaths: [], hasWriteFileRedirection: false });
    expect(second).toMatchObject({ commands: [{ identifier: "cat a > b", readOnly: false }], hasWriteFileRedirection: true });
    expect(warnings).toEqual([expect.stringContaining("bash parser could not be loaded")]);
  });
});
