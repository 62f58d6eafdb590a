/**
 * `plugins.*` and `session.plugins.list` through the official SDK 1.0.x against the built runtime:
 * marketplaces and plugins are real folders; installs are copied into the runtime's home; GitHub
 * sources answer not-available; hostile catalogues are refused with typed errors.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CopilotClient, RuntimeConnection, approveAll } from "copilot-sdk-v1";
import { afterEach, describe, expect, it } from "vitest";
import { startWorld, tandemBin, type TestWorld } from "../helpers/harness.js";
import { ErrorCodes } from "@tandem/protocol/errors";

const { NotAvailable, InvalidParams } = ErrorCodes;

let world: TestWorld | undefined;
let client: CopilotClient | undefined;
let scratch: string | undefined;

afterEach(async () => {
  await client?.stop();
  await world?.dispose();
  if (scratch) rmSync(scratch, { recursive: true, force: true });
  client = undefined;
  world = undefined;
  scratch = undefined;
});

async function setUp(): Promise<{ client: CopilotClient; scratch: string; home: string }> {
  world = await startWorld(["plain-reply"]);
  scratch = mkdtempSync(join(tmpdir(), "tandem-plugins-"));
  client = new CopilotClient({ connection: RuntimeConnection.forStdio({ path: tandemBin }), env: world.env, logLevel: "error" });
  await client.start();
  return { client, scratch, home: world.home };
}

function writeSkill(folder: string, name: string): void {
  mkdirSync(folder, { recursive: true });
  writeFileSync(join(folder, "SKILL.md"), `---\nname: ${name}\ndescription: A skill from a plugin.\n---\n\nDo the thing.\n`);
}

/** A marketplace folder offering `demo` (version `version`, one root skill and one under skills/). */
function marketplace(root: string, version: string, extraPlugins: object[] = []): string {
  const folder = join(root, "market");
  mkdirSync(join(folder, "demo"), { recursive: true });
  writeFileSync(
    join(folder, "marketplace.json"),
    JSON.stringify({ name: "team-market", plugins: [{ name: "demo", source: "./demo", description: "The demo plugin.", version }, ...extraPlugins] }),
  );
  writeSkill(join(folder, "demo"), "demo-skill");
  writeSkill(join(folder, "demo", "skills", "second"), "second");
  return folder;
}

async function rpcError(call: Promise<unknown>): Promise<{ code: number; message: string }> {
  try {
    await call;
  } catch (error) {
    return { code: (error as { code: number }).code, message: (error as Error).message };
  }
  throw new Error("the call succeeded");
}

describe("local marketplaces", () => {
  it("adds, browses, installs into the home, toggles, updates, lists per session, and removes", async () => {
    const { client, scratch, home } = await setUp();
    const folder = marketplace(scratch, "1.0.0");

    expect(await client.rpc.plugins.marketplaces.add({ source: folder })).toEqual({ name: "team-market" });
    const { marketplaces } = await client.rpc.plugins.marketplaces.list();
    expect(marketplaces).toEqual([
      { name: "local", source: `Local: ${join(home, "plugins", "marketplace")}`, isDefault: true },
      { name: "team-market", source: `Local: ${folder}` },
    ]);
    expect(await client.rpc.plugins.marketplaces.browse({ name: "team-market" })).toEqual({ plugins: [{ name: "demo", description: "The demo plugin.", version: "1.0.0" }] });

    const installed = await client.rpc.plugins.install({ source: "demo@team-market" });
    expect(installed).toEqual({ plugin: { name: "demo", marketplace: "team-market", version: "1.0.0", enabled: true }, skillsInstalled: 2 });
    const copy = join(home, "plugins", "installed", "team-market", "demo", "SKILL.md");
    expect(readFileSync(copy, "utf8")).toContain("name: demo-skill");

    await client.rpc.plugins.disable({ names: ["demo@team-market", "not-installed"] });
    expect((await client.rpc.plugins.list()).plugins).toEqual([{ name: "demo", marketplace: "team-market", version: "1.0.0", enabled: false }]);
    await client.rpc.plugins.enable({ names: ["demo"] });
    const session = await client.createSession({ onPermissionRequest: approveAll });
    expect((await session.rpc.plugins.list()).plugins).toEqual([{ name: "demo", marketplace: "team-market", version: "1.0.0", enabled: true }]);

    // The marketplace moves on: update copies the new version in, the enabled state stays.
    marketplace(scratch, "1.1.0");
    writeSkill(join(folder, "demo", "skills", "third"), "third");
    expect(await client.rpc.plugins.update({ name: "demo@team-market" })).toEqual({ previousVersion: "1.0.0", newVersion: "1.1.0", skillsInstalled: 3 });
    expect(await client.rpc.plugins.updateAll()).toEqual({ results: [{ name: "demo", marketplace: "team-market", success: true, previousVersion: "1.1.0", newVersion: "1.1.0", skillsInstalled: 3 }] });
    expect(await client.rpc.plugins.marketplaces.refresh({ name: "team-market" })).toEqual({ results: [{ name: "team-market", success: true }] });

    // Removing a marketplace with installed plugins needs force, which uninstalls them.
    expect(await client.rpc.plugins.marketplaces.remove({ name: "team-market" })).toEqual({ removed: false, dependentPlugins: ["demo"] });
    expect(await client.rpc.plugins.marketplaces.remove({ name: "team-market", force: true })).toEqual({ removed: true });
    expect(existsSync(copy)).toBe(false);
    expect((await client.rpc.plugins.list()).plugins).toEqual([]);
    expect((await client.rpc.plugins.marketplaces.list()).marketplaces.map((entry) => entry.name)).toEqual(["local"]);
    await session.disconnect();
  });

  it("installs a plugin folder directly with a deprecation warning and uninstalls it by directSourceId", async () => {
    const { client, scratch } = await setUp();
    const folder = join(scratch, "direct");
    mkdirSync(folder, { recursive: true });
    writeFileSync(join(folder, "plugin.json"), JSON.stringify({ name: "direct-demo", version: "2.0.0" }));
    writeSkill(folder, "direct-skill");

    const installed = await client.rpc.plugins.install({ source: folder });
    expect(installed.plugin).toEqual({ name: "direct-demo", marketplace: "", directSourceId: expect.stringMatching(/^[0-9a-f]{16}$/), version: "2.0.0", enabled: true });
    expect(installed.skillsInstalled).toBe(1);
    expect(installed.deprecationWarning).toContain("deprecated");
    // The same folder gives the same id: a second install replaces the first.
    expect((await client.rpc.plugins.install({ source: folder })).plugin.directSourceId).toBe(installed.plugin.directSourceId);
    expect((await client.rpc.plugins.list()).plugins).toHaveLength(1);

    await client.rpc.plugins.uninstall({ name: "direct-demo", directSourceId: installed.plugin.directSourceId });
    expect((await client.rpc.plugins.list()).plugins).toEqual([]);
  });

  it("refuses GitHub sources, unknown names, and catalogues that point outside their folder", async () => {
    const { client, scratch } = await setUp();
    const github = await rpcError(client.rpc.plugins.marketplaces.add({ source: "octo-org/plugins" }));
    expect(github.code).toBe(NotAvailable);
    expect(github.message).toContain("is not available: Tandem does not fetch from hosted services");
    expect((await rpcError(client.rpc.plugins.install({ source: "https://example.com/plugin.git" }))).code).toBe(NotAvailable);
    expect(await rpcError(client.rpc.plugins.install({ source: "demo@nowhere" }))).toEqual({ code: InvalidParams, message: expect.stringContaining('No marketplace named "nowhere"') });
    expect(await rpcError(client.rpc.plugins.marketplaces.remove({ name: "local" }))).toEqual({ code: InvalidParams, message: expect.stringContaining("cannot be removed") });

    const folder = marketplace(scratch, "1.0.0", [{ name: "escape", source: "../../outside" }]);
    await client.rpc.plugins.marketplaces.add({ source: folder });
    expect(await rpcError(client.rpc.plugins.install({ source: "escape@team-market" }))).toEqual({ code: InvalidParams, message: expect.stringContaining("points outside the marketplace folder") });

    const broken = join(scratch, "broken");
    mkdirSync(broken);
    writeFileSync(join(broken, "marketplace.json"), "{ not json");
    expect(await rpcError(client.rpc.plugins.marketplaces.add({ source: broken }))).toEqual({ code: InvalidParams, message: expect.stringContaining("is not valid JSON") });
    writeFileSync(join(broken, "marketplace.json"), JSON.stringify({ name: "../evil", plugins: [] }));
    expect(await rpcError(client.rpc.plugins.marketplaces.add({ source: broken }))).toEqual({ code: InvalidParams, message: expect.stringContaining('"name" must be') });
  });
});
