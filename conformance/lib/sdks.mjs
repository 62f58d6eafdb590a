/**
 * The official SDKs the scenarios are driven with: 0.2.0 (`@github/copilot-sdk`, the protocol
 * the reference facts were observed with) and the current 1.0.x (`copilot-sdk-v1`). Each adapter
 * starts a client on a runtime entry and knows its SDK's spelling of a permission decision.
 * @module
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import * as sdk020 from "@github/copilot-sdk";
import * as sdk1 from "copilot-sdk-v1";
import { repoRoot } from "../../bench/lib/paths.mjs";
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
  ];
}

/** @param {string} name */
function packageVersion(name) {
  return JSON.parse(readFileSync(join(repoRoot, "node_modules", name, "package.json"), "utf8")).version;
}
