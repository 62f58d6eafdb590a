import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { ModelServer } from "@tandem/testkit";

/** The `tandem` runtime entry the tests spawn (what `node_modules/.bin/tandem` points at). */
export const tandemBin = fileURLToPath(new URL("../../packages/runtime/bin/tandem.js", import.meta.url));

/** The folder of YAML model scripts, one per test. */
export const scriptsDir = fileURLToPath(new URL("../scripts/", import.meta.url));

/** A scripted model server plus a private state folder for one test. */
export interface TestWorld {
  model: ModelServer;
  modelUrl: string;
  home: string;
  /** Environment for the runtime: Copilot API mode pointed at the fake model, state in `home`. */
  env: Record<string, string>;
  dispose(): Promise<void>;
}

/**
 * Starts a fake model server with the named scripts (`test/scripts/<name>.yaml`) and makes a
 * fresh state folder.
 *
 * @example
 * const world = await startWorld(["plain-reply"]);
 * const client = new CopilotClient({ cliPath: tandemBin, env: world.env });
 */
export async function startWorld(scriptNames: string[], extraEnv: Record<string, string> = {}): Promise<TestWorld> {
  const model = new ModelServer();
  for (const name of scriptNames) model.loadScriptFile(join(scriptsDir, `${name}.yaml`));
  return worldAround(model, extraEnv);
}

/** Starts `model` (scripts already added) and makes a scratch home and the runtime environment around it. */
export async function worldAround(model: ModelServer, extraEnv: Record<string, string> = {}): Promise<TestWorld> {
  const { url } = await model.start();
  const home = mkdtempSync(join(tmpdir(), "tandem-test-"));
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? "",
    HOME: home,
    COPILOT_HOME: home,
    COPILOT_API_URL: url,
    GH_TOKEN: "test-token",
    TANDEM_RETRY_BASE_MS: "10",
    ...extraEnv,
  };
  return {
    model,
    modelUrl: url,
    home,
    env,
    async dispose() {
      await model.stop();
      rmSync(home, { recursive: true, force: true });
    },
  };
}

/** Waits until `predicate` holds, polling; fails with `what` after `timeoutMs`. */
export async function waitFor(predicate: () => boolean, what: string, timeoutMs = 10_000): Promise<void> {
  const started = Date.now();
  while (!predicate()) {
    if (Date.now() - started > timeoutMs) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** The events of one type, with `data` narrowed (works for both SDKs' event unions). */
export function eventsOf<E extends { type: string }, T extends E["type"]>(events: readonly E[], type: T): Array<Extract<E, { type: T }>> {
  return events.filter((event): event is Extract<E, { type: T }> => event.type === type);
}
