import { CopilotClient } from "@github/copilot-sdk";
import { CopilotClient as TandemClient } from "@tandem/sdk";
import { afterEach } from "vitest";
import { startWorld, tandemBin, type TestWorld } from "./harness.js";

/** Makes a client driving `tandem` with the given environment. */
export type ClientMaker = (env: Record<string, string>) => CopilotClient;

/** The official SDK 0.2.0, pointed at `tandem` through `cliPath`. */
export const officialClient: ClientMaker = (env) => new CopilotClient({ cliPath: tandemBin, env, logLevel: "error" });

/** Both clients under test: the official SDK and ours (typed as the official one: same API). */
export const clientVariants: Array<{ sdk: string; make: ClientMaker }> = [
  { sdk: "official SDK 0.2.0", make: officialClient },
  { sdk: "@tandem/sdk", make: (env) => new TandemClient({ env, logLevel: "error" }) as unknown as CopilotClient },
];

/**
 * A per-test scripted world and clients driving `tandem`, cleaned up after each test.
 * Call at the top level of a test file.
 *
 * @example
 * const fixture = officialClientFixture();
 * it("…", async () => {
 *   const world = await fixture.startWorld(["plain-reply"]);
 *   const session = await fixture.client().createSession({ onPermissionRequest: approveAll });
 * });
 */
export function officialClientFixture(make: ClientMaker = officialClient): {
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
      const client = make({ ...world.env, ...extraEnv });
      clients.push(client);
      return client;
    },
  };
}
