import { CopilotClient, approveAll } from "@github/copilot-sdk";
import { CopilotClient as TandemClient, approveAll as tandemApproveAll } from "@tandem/sdk";
import { CopilotClient as V1Client, RuntimeConnection, approveAll as v1ApproveAll, type CopilotSession as V1Session } from "copilot-sdk-v1";
import { afterEach } from "vitest";
import { startWorld, tandemBin, type TestWorld } from "./harness.js";

/** How a test wants the runtime reached: over stdio (the default) or TCP, and the runtime's working directory. */
export interface ClientOptions {
  transport?: "stdio" | "tcp";
  cwd?: string;
}

/** Makes a client driving `tandem` with the given environment. */
export type ClientMaker = (env: Record<string, string>, options?: ClientOptions) => CopilotClient;

/** The official SDK 0.2.0, pointed at `tandem` through `cliPath`. */
export const officialClient: ClientMaker = (env, options = {}) =>
  new CopilotClient({ cliPath: tandemBin, env, logLevel: "error", useStdio: options.transport !== "tcp", ...(options.cwd ? { cwd: options.cwd } : {}) });

/** Ours: it starts the runtime it depends on by default. */
export const tandemClient: ClientMaker = (env, options = {}) =>
  new TandemClient({ env, logLevel: "error", useStdio: options.transport !== "tcp", ...(options.cwd ? { cwd: options.cwd } : {}) }) as unknown as CopilotClient;

/** Throws when a 1.0 client got an answer in a shape 1.0 does not declare. */
function expectShape(ok: boolean, method: string, answer: unknown): void {
  if (!ok) throw new Error(`${method} answered the official SDK 1.0 in a shape it does not declare: ${JSON.stringify(answer)}`);
}

/**
 * The official SDK 1.0.x's session under the names the suite's tests use (0.2.0's), a thin adapter
 * so one test runs through every client: `getMessages` is 1.0's `getEvents`, `destroy` is
 * `disconnect` (which sends `session.detach`), `rpc.workspace` is `rpc.workspaces`, and
 * `rpc.compaction` is `rpc.history`. `rpc.mode.get`/`set` answer 1.0's shapes (a bare mode; an
 * outcome without the mode): they are checked, then read as 0.2.0's `{ mode }`.
 */
function asCurrentSession(session: V1Session): V1Session {
  const rpc = session.rpc;
  const mode = { get: rpc.mode.get, set: rpc.mode.set };
  Object.assign(rpc, {
    workspace: rpc.workspaces,
    compaction: rpc.history,
    mode: {
      async get() {
        const answer: unknown = await mode.get();
        expectShape(typeof answer === "string", "session.mode.get", answer);
        return { mode: answer };
      },
      async set(params: Parameters<typeof mode.set>[0]) {
        const answer: unknown = await mode.set(params);
        expectShape(typeof (answer as { modelChanged?: unknown }).modelChanged === "boolean" && !("mode" in (answer as object)), "session.mode.set", answer);
        return { mode: params.mode };
      },
    },
  });
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

/** The official SDK 1.0.x, pointed at `tandem` the 1.0 way: `RuntimeConnection.forStdio({ path })` (or `forTcp`). */
export const officialV1Client: ClientMaker = (env, options = {}) =>
  new AdaptedV1Client({
    connection: options.transport === "tcp" ? RuntimeConnection.forTcp({ path: tandemBin }) : RuntimeConnection.forStdio({ path: tandemBin }),
    env,
    logLevel: "error",
    ...(options.cwd ? { workingDirectory: options.cwd } : {}),
  }) as unknown as CopilotClient;

/** One client under test, with its own SDK's `approveAll` (1.0's answers `approve-once`). */
export interface ClientVariant {
  sdk: string;
  make: ClientMaker;
  approveAll: typeof approveAll;
}

/** Every client under test: the official SDK 0.2.0 and 1.0.x, and ours (typed as 0.2.0: same API). */
export const clientVariants: ClientVariant[] = [
  { sdk: "official SDK 0.2.0", make: officialClient, approveAll },
  { sdk: "official SDK 1.0.x", make: officialV1Client, approveAll: v1ApproveAll as unknown as typeof approveAll },
  { sdk: "@tandem/sdk", make: tandemClient, approveAll: tandemApproveAll as unknown as typeof approveAll },
];

/**
 * The official SDKs only (0.2.0 and 1.0.x), for tests that send Tandem's own methods over the
 * official client's JSON-RPC connection (`rawConnection`).
 */
export const officialVariants = clientVariants.filter((variant) => variant.sdk.startsWith("official"));

/** An official client's (or session's) JSON-RPC connection, for methods it has no call for. */
export function rawConnection(client: object): { sendRequest(method: string, params: unknown): Promise<unknown> } {
  return (client as { connection: { sendRequest(method: string, params: unknown): Promise<unknown> } }).connection;
}

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
