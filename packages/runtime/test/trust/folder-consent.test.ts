import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { PermissionRequest, PermissionResult } from "@tandem/protocol";
import { afterEach, describe, expect, it } from "vitest";
import { Logger } from "../../src/log.js";
import { FolderConsent, type ConsentSession } from "../../src/trust/folder-consent.js";
import { JsonObjectFile } from "../../src/store/json-object-file.js";
import { TrustedFolders } from "../../src/trust/trusted-folders.js";

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A scratch home (with `config.json` when given) and a folder tree to trust or not. */
function setup(config?: (root: string) => unknown): { home: string; root: string; warnings: string[]; trusted: TrustedFolders } {
  const root = mkdtempSync(join(tmpdir(), "tandem-trust-"));
  dirs.push(root);
  const home = join(root, "home");
  mkdirSync(home);
  mkdirSync(join(root, "work", "repo", "sub"), { recursive: true });
  mkdirSync(join(root, "workshop"));
  const content = config?.(root);
  if (content !== undefined) writeFileSync(join(home, "config.json"), typeof content === "string" ? content : JSON.stringify(content));
  const warnings: string[] = [];
  return { home, root, warnings, trusted: new TrustedFolders(new JsonObjectFile(join(home, "config.json")), new Logger("warning", (line) => warnings.push(line))) };
}

const request: PermissionRequest = { kind: "extension-management", operation: "start", extensionName: "deploy" };

/** A session whose application answers `result` and records what it was asked. */
function session(result: PermissionResult, approveAll = false): ConsentSession & { asked: PermissionRequest[] } {
  const asked: PermissionRequest[] = [];
  return {
    asked,
    approvesWithoutAsking: () => approveAll,
    ask: async (question) => {
      asked.push(question);
      return result;
    },
  };
}

describe("TrustedFolders", () => {
  it("trusts a listed folder and every folder inside it, not a sibling sharing its name's prefix", async () => {
    const { root, trusted } = setup((root) => ({ trustedFolders: [join(root, "work")] }));
    expect(await trusted.covers(join(root, "work"))).toBe(true);
    expect(await trusted.covers(join(root, "work", "repo", "sub"))).toBe(true);
    expect(await trusted.covers(join(root, "workshop"))).toBe(false);
    expect(await trusted.covers(root)).toBe(false);
  });

  it("reads the reference CLI's trusted_folders too, and ignores relative entries", async () => {
    const { root, trusted } = setup((root) => ({ trusted_folders: [join(root, "work", "repo")], trustedFolders: ["work"] }));
    expect(await trusted.read()).toEqual([join(root, "work", "repo")]);
    expect(await trusted.covers(join(root, "work", "repo"))).toBe(true);
    expect(await trusted.covers(join(root, "work"))).toBe(false);
  });

  it("follows symbolic links: a link inside a trusted folder to a folder outside it is not trusted", async () => {
    const { root, trusted } = setup((root) => ({ trustedFolders: [join(root, "work")] }));
    symlinkSync(join(root, "workshop"), join(root, "work", "escape"));
    expect(await trusted.covers(join(root, "work", "escape"))).toBe(false);
  });

  it("trusts nothing without a config file, and says so when the file is not JSON", async () => {
    const missing = setup();
    expect(await missing.trusted.covers(missing.root)).toBe(false);
    expect(missing.warnings).toEqual([]);
    const broken = setup(() => "{ trustedFolders: [");
    expect(await broken.trusted.covers(broken.root)).toBe(false);
    expect(broken.warnings.join("\n")).toMatch(/config\.json is not valid JSON .*; no folder is trusted/);
  });
});

describe("FolderConsent", () => {
  it("asks the application when nothing else allows it, and holds back on anything but an approval", async () => {
    const { root, trusted } = setup();
    const consent = new FolderConsent({ trustAll: false, trustedFolders: trusted });
    const approving = session({ kind: "approved" });
    expect(await consent.decide(root, request, approving, new AbortController().signal)).toEqual({ allowed: true, grant: "approved" });
    expect(approving.asked).toEqual([request]);
    const denying = session({ kind: "denied-no-approval-rule-and-could-not-request-from-user" });
    expect(await consent.decide(root, request, denying, new AbortController().signal)).toEqual({ allowed: false, result: { kind: "denied-no-approval-rule-and-could-not-request-from-user" } });
  });

  it("does not ask with --allow-all, in a trusted folder, or when the session approves everything", async () => {
    const { root, trusted } = setup((root) => ({ trustedFolders: [join(root, "work")] }));
    const never = session({ kind: "denied-interactively-by-user" });
    const signal = new AbortController().signal;
    expect(await new FolderConsent({ trustAll: true, trustedFolders: trusted }).decide(root, request, never, signal)).toEqual({ allowed: true, grant: "allow-all" });
    const consent = new FolderConsent({ trustAll: false, trustedFolders: trusted });
    expect(await consent.decide(join(root, "work", "repo"), request, never, signal)).toEqual({ allowed: true, grant: "trusted-folder" });
    expect(await consent.decide(root, request, session({ kind: "denied-interactively-by-user" }, true), signal)).toEqual({ allowed: true, grant: "approve-all" });
    expect(never.asked).toEqual([]);
    expect(consent.howToAllow(root)).toMatch(/approve the question \(a form, or else a permission request\).*"trustedFolders" in .*config\.json.*--allow-all/);
  });
});
