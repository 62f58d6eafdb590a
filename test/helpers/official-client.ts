import { CopilotClient } from "@github/copilot-sdk";
import { CopilotClient as TandemClient } from "@tandem/sdk";
import { CopilotClient as V1Client, RuntimeConnection, type CopilotSession as V1Session } from "copilot-sdk-v1";
import { afterEach } from "vitest";
import { startWorld, tandemBin, type TestWorld } from "./harness.js";

/** Makes a client driving `tandem` with the given environment. */
export type ClientMaker = (env: Record<string, string>) => CopilotClient;

/** The official SDK 0.2.0, pointed at `tandem` through `cliPath`. */
export const officialClient: ClientMaker = (env) => new CopilotClient({ cliPath: tandemBin, env, logLevel: "error" });

/**
 * The official SDK 1.0.x's session under the names the suite's tests use (0.2.0's): `getMessages`
 * is 1.0's `getEvents`, and `destroy` is `disconnect` (which sends `session.detach`).
 */
function asCurrentSession(session: V1Session): V1Session {
  return Object.assign(session, { getMessages: () => session.getEvents(), destroy: () => session.disconnect() });
}

/** The official SDK 1.0.x, whose sessions answer to the 0.2.0 names the tests use (see {@link asCurrentSession}). */
class AdaptedV1Client extends V1Client {
  override async createSession(...args: Parameters<V1Client["createSession"]>): Promise<V1Session> {
    return asCurrentSession(await super.createSession(...args));
  }

  override async resumeSession(...args: Parameters<V1Client["resumeSession"]>): Promise<V1Session> {
    return asCurrentSession(await super.resumeSession(...args));
  }
}

/** The official SDK 1.0.x, pointed at `tandem` the 1.0 way: `RuntimeConnection.forStdio({ path })`. */
export const officialV1Client: ClientMaker = (env) =>
  new AdaptedV1Client({ connection: RuntimeConnection.forStdio({ path: tandemBin }), env, logLevel: "error" }) as unknown as CopilotClient;

/** Every client under test: the official SDK 0.2.0 and 1.0.x, and ours (typed as 0.2.0: same API). */
export const clientVariants: Array<{ sdk: string; make: ClientMaker }> = [
  { sdk: "official SDK 0.2.0", make: officialClient },
  { sdk: "official SDK 1.0.x", make: officialV1Client },
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
