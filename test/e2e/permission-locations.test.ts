/**
 * Permission locations and folder trust through the official SDK 1.0.x against the built
 * `tandem`: a folder's location is its git repository (or the folder itself); command approvals
 * kept for a location are written to the Tandem home, survive the runtime and stop the question for
 * that command in a later session that applies the location; trusted folders are the home's
 * `config.json` `trustedFolders`, kept alongside the rest of the file.
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, realpathSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { approveAll, type CopilotClient as V1Client, type PermissionRequest } from "copilot-sdk-v1";
import { describe, expect, it } from "vitest";
import { officialClientFixture, officialV1Client } from "../helpers/official-client.js";
import { ErrorCodes } from "@tandem/protocol/errors";

const { InvalidParams } = ErrorCodes;

const fixture = officialClientFixture(officialV1Client);
const start = (): V1Client => fixture.client() as unknown as V1Client;
const PersistenceFailed = -32007;

describe("session.permissions.locations.*", () => {
  it("resolves a folder to itself, and a folder inside a git repository to the repository", async () => {
    const world = await fixture.startWorld(["plain-reply"]);
    const plain = join(world.home, "plain");
    const repo = join(world.home, "repo");
    mkdirSync(plain);
    mkdirSync(join(repo, "src"), { recursive: true });
    execFileSync("git", ["init", "-q", repo]);
    const session = await start().createSession({ onPermissionRequest: approveAll });
    expect(await session.rpc.permissions.locations.resolve({ workingDirectory: plain })).toEqual({ locationType: "dir", locationKey: realpathSync(plain) });
    expect(await session.rpc.permissions.locations.resolve({ workingDirectory: join(repo, "src") })).toEqual({ locationType: "repo", locationKey: realpathSync(repo) });
  });

  it("a command approval kept for a location is written to the home and, applied in a later runtime, stops the question", async () => {
    const world = await fixture.startWorld(["location-approval"]);
    // The identifier the runtime gives the scripted command (a write names its target).
    const command = "touch location-ran.txt";
    const project = join(world.home, "project");
    mkdirSync(project);
    const first = await start().createSession({ onPermissionRequest: approveAll, workingDirectory: project });
    const { locationKey } = await first.rpc.permissions.locations.resolve({ workingDirectory: project });
    expect(await first.rpc.permissions.locations.addToolApproval({ locationKey, approval: { kind: "commands", commandIdentifiers: [command] } })).toEqual({ success: true });
    expect(JSON.parse(readFileSync(join(world.home, "permission-locations.json"), "utf8"))).toEqual({ [locationKey]: { commands: [command] } });

    // Another runtime process on the same home.
    const asked: PermissionRequest[] = [];
    const later = await start().createSession({ workingDirectory: project, onPermissionRequest: (request) => (asked.push(request), { kind: "reject" }) });
    const applied = await later.rpc.permissions.locations.apply({ workingDirectory: project });
    expect(applied).toEqual({ locationType: "dir", locationKey, changed: true, appliedRuleCount: 1, appliedDirectoryCount: 0, appliedRules: [{ kind: "shell", argument: command }] });
    await later.sendAndWait({ prompt: "touch it" });
    expect(asked.filter((request) => request.kind === "shell")).toEqual([]);
    expect(existsSync(join(project, "location-ran.txt"))).toBe(true);
  });

  it("applying a location with nothing kept changes nothing", async () => {
    const world = await fixture.startWorld(["plain-reply"]);
    const session = await start().createSession({ onPermissionRequest: approveAll });
    const applied = await session.rpc.permissions.locations.apply({ workingDirectory: world.home });
    expect(applied).toMatchObject({ changed: false, appliedRuleCount: 0, appliedRules: [] });
  });
});

describe("session.permissions.folderTrust.*", () => {
  it("adds a trusted folder to config.json, keeping its other settings; folders inside it are trusted", async () => {
    const world = await fixture.startWorld(["plain-reply"]);
    writeFileSync(join(world.home, "config.json"), JSON.stringify({ theme: "dark" }));
    const folder = join(world.home, "trusted");
    mkdirSync(join(folder, "inner"), { recursive: true });
    const session = await start().createSession({ onPermissionRequest: approveAll });
    expect(await session.rpc.permissions.folderTrust.isTrusted({ path: join(folder, "inner") })).toEqual({ trusted: false });
    expect(await session.rpc.permissions.folderTrust.addTrusted({ path: folder })).toEqual({ success: true });
    expect(await session.rpc.permissions.folderTrust.addTrusted({ path: folder })).toEqual({ success: true });
    expect(await session.rpc.permissions.folderTrust.isTrusted({ path: join(folder, "inner") })).toEqual({ trusted: true });
    expect(await session.rpc.permissions.folderTrust.isTrusted({ path: world.home })).toEqual({ trusted: false });
    expect(JSON.parse(readFileSync(join(world.home, "config.json"), "utf8"))).toEqual({ theme: "dark", trustedFolders: [realpathSync(folder)] });
  });

  it("refuses a relative folder, and never overwrites a config.json that is not JSON", async () => {
    const world = await fixture.startWorld(["plain-reply"]);
    const session = await start().createSession({ onPermissionRequest: approveAll });
    await expect(session.rpc.permissions.folderTrust.addTrusted({ path: "relative/folder" })).rejects.toMatchObject({ code: InvalidParams });
    writeFileSync(join(world.home, "config.json"), "{ not json");
    await expect(session.rpc.permissions.folderTrust.addTrusted({ path: world.home })).rejects.toMatchObject({ code: PersistenceFailed, message: expect.stringContaining("is not valid JSON") });
    expect(readFileSync(join(world.home, "config.json"), "utf8")).toBe("{ not json");
  });
});
