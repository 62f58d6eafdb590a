import { CopilotClient } from "@github/copilot-sdk";
import { afterEach } from "vitest";
import { startWorld, tandemBin, type TestWorld } from "./harness.js";

/**
 * A per-test scripted world and official-SDK clients driving `tandem`, cleaned up after each test.
 * Call at the top level of a test file.
 *
 * @example
 * const fixture = officialClientFixture();
 * it("…", async () => {
 *   const world = await fixture.startWorld(["plain-reply"]);
 *   const session = await fixture.client().createSession({ onPermissionRequest: approveAll });
 * });
 */
export function officialClientFixture(): {
  startWorld(scripts: string[], extraEnv?: Record<string, string>): Promise<TestWorld>;
  client(extraEnv?: Record<string, string>): CopilotClient;
} {
  let world: TestWorld | undefined;
  const clients: CopilotClient[] = [];
  afterEach(async () => {
    for (const client of clients.splice(0)) await client.stop();
    await world?.dispose();
    world = undefined;
  });
  return {
    async startWorld(scripts, extraEnv) {
      world = await startWorld(scripts, extraEnv);
      return world;
    },
    client(extraEnv = {}) {
      if (!world) throw new Error("start the world first");
      const client = new CopilotClient({ cliPath: tandemBin, env: { ...world.env, ...extraEnv }, logLevel: "error" });
      clients.push(client);
      return client;
    },
  };
}
