/**
 * The official SDK that drives the benchmark (`BENCH_SDK`): today's 1.0.x (`copilot-sdk-v1`,
 * `BENCH_SDK=1.0`) or the older 0.2.0 (`@github/copilot-sdk`, the default, `BENCH_SDK=0.2`).
 * Both runtimes of a run get the same client; the reference is the newest one either way.
 * @module
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import * as sdk020 from "@github/copilot-sdk";
import * as sdk1 from "copilot-sdk-v1";
import { repoRoot } from "./paths.mjs";

/**
 * @typedef {object} BenchSdk
 * @property {"0.2" | "1.0"} id
 * @property {string} label e.g. "SDK 1.0.14"
 * @property {string} version the installed version
 * @property {(cliPath: string, env: Record<string, string>, workdir: string) => any} makeClient a client that spawns `cliPath` over stdio and starts on `start()`
 * @property {(request: unknown) => unknown} approveAll the SDK's own approve-everything handler
 * @property {typeof sdk020.defineTool} defineTool
 */

/**
 * The SDK `BENCH_SDK` names (default 0.2.0).
 * @param {string | undefined} [setting]
 * @returns {BenchSdk}
 * @example
 * const sdk = benchSdk(process.env.BENCH_SDK);
 * const client = sdk.makeClient(cliPath, env, workdir);
 */
export function benchSdk(setting = process.env.BENCH_SDK) {
  const choice = (setting ?? "0.2").trim();
  if (choice === "1.0" || choice === "1") {
    const version = packageVersion("copilot-sdk-v1");
    return {
      id: "1.0",
      label: `SDK ${version}`,
      version,
      // 1.0.x has no `cliPath`: a RuntimeConnection spawns the runtime (it runs `.js` entries with Node).
      makeClient: (cliPath, env, workdir) => new sdk1.CopilotClient({ connection: sdk1.RuntimeConnection.forStdio({ path: cliPath, env }), workingDirectory: workdir, logLevel: "error" }),
      approveAll: sdk1.approveAll,
      defineTool: /** @type {typeof sdk020.defineTool} */ (/** @type {unknown} */ (sdk1.defineTool)),
    };
  }
  if (choice !== "0.2") throw new Error(`BENCH_SDK must be 0.2 or 1.0, not ${JSON.stringify(choice)}`);
  const version = packageVersion("@github/copilot-sdk");
  return {
    id: "0.2",
    label: `SDK ${version}`,
    version,
    makeClient: (cliPath, env, workdir) => new sdk020.CopilotClient({ cliPath, env, logLevel: "error", cwd: workdir, autoStart: false }),
    approveAll: sdk020.approveAll,
    defineTool: sdk020.defineTool,
  };
}

/** @param {string} name */
function packageVersion(name) {
  return JSON.parse(readFileSync(join(repoRoot, "node_modules", name, "package.json"), "utf8")).version;
}
