import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { PermissionRequest } from "@tandem/protocol";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { PermissionPolicy } from "../../src/permissions/policy.js";

let dir: string;
beforeEach(() => {
  dir = realpathSync(mkdtempSync(join(tmpdir(), "tandem-policy-")));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const read = (path: string): PermissionRequest => ({ kind: "read", intention: `Read file: ${path}`, path });
const shell = (...identifiers: string[]): PermissionRequest => ({
  kind: "shell",
  fullCommandText: identifiers.join(" && "),
  intention: "Run",
  commands: identifiers.map((identifier) => ({ identifier, readOnly: false })),
  possiblePaths: [],
});

describe("PermissionPolicy rules", () => {
  it("a deny rule wins over an approve rule; a folder argument covers what is inside it and nothing beside it", () => {
    const policy = new PermissionPolicy(() => dir);
    policy.configure({ rules: { approved: [{ kind: "read", argument: dir }], denied: [{ kind: "read", argument: join(dir, "secret") }] } });
    expect(policy.decide(read(join(dir, "a.txt")))?.kind).toBe("approved");
    expect(policy.decide(read(join(dir, "secret", "key")))).toEqual({ kind: "denied-by-rules", rules: [{ kind: "read", argument: join(dir, "secret") }] });
    expect(policy.decide(read(`${dir}-other/a.txt`))).toBeUndefined();
  });

  it("a shell request is approved only when every command is; one denied command denies it", () => {
    const policy = new PermissionPolicy(() => dir);
    policy.rules.modify("approved", { add: [{ kind: "commands", argument: "git status" }] });
    expect(policy.decide(shell("git status"))?.kind).toBe("approved");
    expect(policy.decide(shell("git status", "rm -rf x"))).toBeUndefined();
    policy.configure({ rules: { approved: [{ kind: "shell", argument: null }], denied: [{ kind: "shell", argument: "rm -rf x" }] } });
    expect(policy.decide(shell("git status", "rm -rf x"))?.kind).toBe("denied-by-rules");
  });

  it("refuses an unknown rule kind or a relative path and changes nothing", () => {
    const policy = new PermissionPolicy(() => dir);
    policy.rules.modify("approved", { add: [{ kind: "read", argument: null }] });
    expect(() => policy.rules.modify("approved", { removeAll: true, add: [{ kind: "everything", argument: null }] })).toThrow(/Unknown permission rule kind "everything"/);
    expect(() => policy.configure({ rules: { approved: [], denied: [] }, paths: { workspacePath: "relative/dir" } })).toThrow(/is not absolute/);
    expect(policy.rules.list("approved")).toEqual([{ kind: "read", argument: null }]);
    expect(policy.paths.primary).toBe(dir);
  });
});

describe("PermissionPaths", () => {
  it("answers through symbolic links: a link into an allowed folder is inside it, a link out of it is not", () => {
    const allowed = join(dir, "allowed");
    const outside = join(dir, "outside");
    mkdirSync(allowed);
    mkdirSync(outside);
    symlinkSync(outside, join(allowed, "escape"));
    symlinkSync(allowed, join(dir, "alias"));
    const policy = new PermissionPolicy(() => allowed);
    policy.configure({ paths: { includeTempDirectory: false } });
    expect(policy.paths.isWithinAllowed(join(dir, "alias", "file.txt"))).toBe(true);
    expect(policy.paths.isWithinAllowed(join(allowed, "escape", "file.txt"))).toBe(false);
    expect(policy.paths.isWithinWorkspace(join(allowed, "new", "not-yet.txt"))).toBe(true);
  });
});
