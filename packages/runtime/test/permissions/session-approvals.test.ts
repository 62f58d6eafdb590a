import type { PermissionRequest } from "@tandem/protocol";
import { expect, it } from "vitest";
import { Logger } from "../../src/log.js";
import { SessionApprovals, urlOriginOf } from "../../src/permissions/session-approvals.js";

function approvals(): { approvals: SessionApprovals; warnings: string[] } {
  const warnings: string[] = [];
  return { approvals: new SessionApprovals(new Logger("warning", (line) => warnings.push(line))), warnings };
}

const shell = (...identifiers: string[]): PermissionRequest => ({
  kind: "shell",
  fullCommandText: identifiers.join(" && "),
  intention: "run",
  commands: identifiers.map((identifier) => ({ identifier, readOnly: false })),
  possiblePaths: [],
});
const read: PermissionRequest = { kind: "read", intention: "Read file: /a", path: "/a" };
const write: PermissionRequest = { kind: "write", intention: "Create file", fileName: "/a", diff: "" };
const mcp = (serverName: string, tool: string): PermissionRequest => ({ kind: "mcp", serverName, toolName: `${serverName}-${tool}`, toolTitle: tool, readOnly: false });
const url = (href: string): PermissionRequest => ({ kind: "url", intention: "Fetch web content", url: href });
const customTool = (toolName: string): PermissionRequest => ({ kind: "custom-tool", toolName, toolDescription: "" });

it("a commands approval covers a later shell request only when every command it runs was approved", () => {
  const { approvals: session } = approvals();
  session.rememberAnswer({ kind: "approve-for-session", approval: { kind: "commands", commandIdentifiers: ["ls", "git status"] } }, "s");
  expect(session.covers(shell("ls"))).toBe("session-approval");
  expect(session.covers(shell("ls", "git status"))).toBe("session-approval");
  expect(session.covers(shell("ls", "rm -rf x"))).toBeUndefined();
  expect(session.covers(read)).toBeUndefined();
});

it("read and write approvals cover their kind only", () => {
  const { approvals: session } = approvals();
  session.rememberAnswer({ kind: "approve-for-session", approval: { kind: "read" } }, "s");
  expect(session.covers(read)).toBe("session-approval");
  expect(session.covers(write)).toBeUndefined();
  session.rememberAnswer({ kind: "approved-for-session", approval: { kind: "write" } }, "s");
  expect(session.covers(write)).toBe("session-approval");
});

it("an mcp approval covers one tool of a server, or all of them when toolName is null", () => {
  const { approvals: session } = approvals();
  session.rememberAnswer({ kind: "approve-for-session", approval: { kind: "mcp", serverName: "files", toolName: "list" } }, "s");
  expect(session.covers(mcp("files", "list"))).toBe("session-approval");
  expect(session.covers(mcp("files", "delete"))).toBeUndefined();
  expect(session.covers(mcp("other", "list"))).toBeUndefined();
  session.rememberAnswer({ kind: "approve-for-session", approval: { kind: "mcp", serverName: "files", toolName: null } }, "s");
  expect(session.covers(mcp("files", "delete"))).toBe("session-approval");
});

it("custom-tool approvals go by tool name and url approvals by origin: scheme, host and port", () => {
  const { approvals: session, warnings } = approvals();
  session.rememberAnswer({ kind: "approve-for-session", approval: { kind: "custom-tool", toolName: "deploy" } }, "s");
  session.rememberAnswer({ kind: "approve-for-session", domain: "Example.com" }, "s", "https://example.com/start");
  expect(session.covers(customTool("deploy"))).toBe("session-approval");
  expect(session.covers(customTool("destroy"))).toBeUndefined();
  expect(session.covers(url("https://example.com/a?b"))).toBe("session-approval");
  expect(session.covers(url("http://example.com/a"))).toBeUndefined();
  expect(session.covers(url("https://example.com:8443/a"))).toBeUndefined();
  expect(session.covers(url("https://evil.example.org/"))).toBeUndefined();
  expect(session.covers(url("not a url"))).toBeUndefined();

  session.rememberAnswer({ kind: "approve-for-session", domain: "127.0.0.1" }, "s", "http://127.0.0.1:4100/x");
  expect(session.covers(url("http://127.0.0.1:4100/y"))).toBe("session-approval");
  expect(session.covers(url("http://127.0.0.1:4200/y"))).toBeUndefined();
  expect(session.covers(url("http://localhost:4100/y"))).toBeUndefined();

  // A bare host name with no request to take the scheme and port from names no origin.
  session.rememberAnswer({ kind: "approve-for-session", domain: "other.example" }, "s");
  expect(session.covers(url("https://other.example/"))).toBeUndefined();
  expect(warnings.join("\n")).toContain('URL domain "other.example" that names no origin');
});

it("a domain names the approved URL's origin, its own full origin, or a host:port on the approved scheme", () => {
  expect(urlOriginOf("127.0.0.1", "http://127.0.0.1:4100/x")).toBe("http://127.0.0.1:4100");
  expect(urlOriginOf("127.0.0.1:4100", "http://127.0.0.1:4100/x")).toBe("http://127.0.0.1:4100");
  expect(urlOriginOf("127.0.0.1:4200", "http://127.0.0.1:4100/x")).toBe("http://127.0.0.1:4200");
  expect(urlOriginOf("HTTPS://Example.com:443/path", undefined)).toBe("https://example.com");
  expect(urlOriginOf("docs.example", "https://example.com/")).toBe("https://docs.example");
  expect(urlOriginOf("a/b", "https://example.com/")).toBeUndefined();
  expect(urlOriginOf("ftp://example.com", "https://example.com/")).toBeUndefined();
});

it("a scope it cannot hold, or one-off decisions, remember nothing; the unsupported scope is logged", () => {
  const { approvals: session, warnings } = approvals();
  session.rememberAnswer({ kind: "approve-for-session", approval: { kind: "memory" } }, "s1");
  session.rememberAnswer({ kind: "approve-for-session" }, "s1");
  session.rememberAnswer({ kind: "approve-once" }, "s1");
  session.rememberAnswer({ kind: "approve-for-session", approval: { kind: "commands", commandIdentifiers: [] } }, "s1");
  for (const request of [shell("ls"), read, write, mcp("a", "b"), url("https://a.b/"), customTool("x")]) expect(session.covers(request)).toBeUndefined();
  expect(warnings.join("\n")).toMatch(/approval scope "memory".*nothing is remembered/);
  expect(warnings.join("\n")).toMatch(/no approval scope/);
  expect(warnings).toHaveLength(3);
});

it("approve-all covers everything and approve-all-reads covers reads and URL fetches", () => {
  const { approvals: session } = approvals();
  expect(session.setApproveAll(true)).toEqual({ previousMode: "manual", mode: "allow-all" });
  expect(session.covers(write)).toBe("approve-all");
  session.setApproveAll(false);
  session.setApproveAllReads(true);
  expect(session.covers(read)).toBe("approve-all");
  expect(session.covers(url("https://a.b/"))).toBe("approve-all");
  expect(session.covers(write)).toBeUndefined();
});

it("a commands approval covers a request that asks for approvals after a moment only when it was given after it", () => {
  let now = 0;
  const session = new SessionApprovals(new Logger("warning", () => {}), () => now);
  now = 10;
  session.rememberAnswer({ kind: "approve-for-session", approval: { kind: "commands", commandIdentifiers: ["ls", "git status"] } }, "s");
  expect(session.covers(shell("ls"), { approvedAfter: 5 })).toBe("session-approval");
  expect(session.covers(shell("ls"), { approvedAfter: 10 })).toBeUndefined();
  expect(session.covers(shell("ls"), { approvedAfter: 20 })).toBeUndefined();
  expect(session.covers(shell("ls"))).toBe("session-approval");
  now = 30;
  session.rememberAnswer({ kind: "approve-for-session", approval: { kind: "commands", commandIdentifiers: ["ls"] } }, "s");
  expect(session.covers(shell("ls"), { approvedAfter: 20 })).toBe("session-approval");
  expect(session.covers(shell("ls", "git status"), { approvedAfter: 20 })).toBeUndefined();
});
