/**
 * The official SDKs the scenarios are driven with: 0.2.0 (`@github/copilot-sdk`, the older
 * client generation), the current 1.0.x (`copilot-sdk-v1`) and the official Python SDK (through
 * `python-driver.mjs`). Each adapter starts a client on a runtime entry and knows its SDK's
 * spelling of a permission decision.
 * @module
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import * as sdk020 from "@github/copilot-sdk";
import * as sdk1 from "copilot-sdk-v1";
import { repoRoot } from "../../bench/lib/paths.mjs";
import { PythonClient, preparePython } from "./python-driver.mjs";
import { githubToken } from "./world.mjs";

/**
 * @typedef {object} SdkAdapter
 * @property {string} id short name used in the report
 * @property {string} version installed version
 * @property {(cliPath: string, env: Record<string, string>, workdir: string) => any} makeClient
 * @property {() => object} approve a permission decision that approves once
 * @property {(feedback?: string) => object} reject the user's refusal
 * @property {(log: (line: string) => void) => Promise<{ available: boolean, reason?: string }>} prepare
 *   makes the driver ready (once per run) or says why it cannot run here
 */

const ready = async () => ({ available: true });

/** @returns {SdkAdapter[]} */
export function sdkAdapters() {
  let pythonVersion = "unprepared";
  return [
    {
      id: "sdk-0.2",
      version: packageVersion("@github/copilot-sdk"),
      makeClient: (cliPath, env, workdir) => new sdk020.CopilotClient({ cliPath, env, cwd: workdir, logLevel: "error", githubToken, autoStart: false }),
      prepare: ready,
      approve: () => ({ kind: "approved" }),
      reject: (feedback) => (feedback ? { kind: "denied-interactively-by-user", feedback } : { kind: "denied-interactively-by-user" }),
    },
    {
      id: "sdk-1.0",
      version: packageVersion("copilot-sdk-v1"),
      makeClient: (cliPath, env, workdir) =>
        new sdk1.CopilotClient({ connection: sdk1.RuntimeConnection.forStdio({ path: cliPath, env }), workingDirectory: workdir, logLevel: "error", gitHubToken: githubToken }),
      prepare: ready,
      approve: () => ({ kind: "approve-once" }),
      reject: (feedback) => (feedback ? { kind: "reject", feedback } : { kind: "reject" }),
    },
    {
      id: "python",
      get version() {
        return pythonVersion;
      },
      prepare: async (log) => {
        const prepared = await preparePython(log);
        pythonVersion = prepared.version ?? "unavailable";
        return prepared;
      },
      makeClient: (cliPath, env, workdir) => new PythonClient(cliPath, env, workdir, githubToken),
      approve: () => ({ kind: "approve-once" }),
      reject: (feedback) => (feedback ? { kind: "reject", feedback } : { kind: "reject" }),
    },
  ];
}

/** @param {string} name */
function packageVersion(name) {
  return JSON.parse(readFileSync(join(repoRoot, "node_modules", name, "package.json"), "utf8")).version;
}
