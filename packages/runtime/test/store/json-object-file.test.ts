/**
 * The user's config file is shared by the trusted folders and the user settings: changes made at
 * the same time through either keep each other's keys, and a file that is not a JSON object is
 * refused and left as it is.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, expect, it } from "vitest";
import { Logger } from "../../src/log.js";
import { McpUserConfig } from "../../src/mcp/user-config.js";
import { LocationApprovals } from "../../src/permissions/locations.js";
import { TrustedFolders } from "../../src/trust/trusted-folders.js";
import { JsonObjectFile } from "../../src/store/json-object-file.js";
import { UserSettings } from "../../src/user-settings/user-settings.js";

const homes: string[] = [];
afterEach(() => {
  for (const home of homes.splice(0)) rmSync(home, { recursive: true, force: true });
});

function home(): string {
  const dir = mkdtempSync(join(tmpdir(), "tandem-config-"));
  homes.push(dir);
  return dir;
}

it("keeps every key when trusted folders and settings change at the same time", async () => {
  const dir = home();
  const config = new JsonObjectFile(join(dir, "config.json"));
  const logger = new Logger("none", () => undefined);
  const trusted = new TrustedFolders(config, logger);
  const settings = new UserSettings(config, logger);
  writeFileSync(config.path, JSON.stringify({ somethingElse: 1 }));
  await Promise.all([
    trusted.add(join(dir, "a")),
    settings.set({ discoverProjectSkills: false }),
    trusted.add(join(dir, "b")),
    settings.set({ disabledSkills: ["lint"] }),
  ]);
  const written = JSON.parse(readFileSync(config.path, "utf8")) as Record<string, unknown>;
  expect(written).toEqual({ somethingElse: 1, trustedFolders: [join(dir, "a"), join(dir, "b")], discoverProjectSkills: false, disabledSkills: ["lint"] });
  expect(await trusted.covers(join(dir, "b", "repo"))).toBe(true);
});

it("refuses to change a file that is not a JSON object, and leaves it as it is", async () => {
  const dir = home();
  const config = new JsonObjectFile(join(dir, "config.json"));
  writeFileSync(config.path, "[1, 2]");
  await expect(config.update((current) => ({ ...current, x: 1 }))).rejects.toMatchObject({ message: expect.stringContaining("is not a JSON object") });
  expect(readFileSync(config.path, "utf8")).toBe("[1, 2]");
  // A later change is not held up by the failed one.
  writeFileSync(config.path, "{}");
  expect(await config.update((current) => ({ ...current, x: 1 }))).toEqual({ x: 1 });
});

it("the MCP configuration and the location approvals share the rule: a broken file is named and never overwritten", async () => {
  const dir = home();
  writeFileSync(join(dir, "mcp-config.json"), "{ broken");
  const mcp = new McpUserConfig(dir);
  await expect(mcp.add("files", { command: "node", args: [], tools: ["*"] })).rejects.toMatchObject({ message: expect.stringContaining("mcp-config.json is not valid JSON") });
  expect(readFileSync(join(dir, "mcp-config.json"), "utf8")).toBe("{ broken");
  const approvals = new LocationApprovals(dir);
  await Promise.all([approvals.addCommands("/repo", ["npm test"]), approvals.addCommands("/repo", ["git status"]), approvals.addCommands("/other", ["ls"])]);
  expect(await approvals.commandsFor("/repo")).toEqual(["npm test", "git status"]);
  expect(await approvals.commandsFor("/other")).toEqual(["ls"]);
});
