/**
 * One isolated world per run: the testkit's scripted model (Copilot API shape), a fake GitHub API
 * that answers the user lookup the reference makes before it trusts a token, and a private
 * state folder with an empty project directory. Both runtimes get the same environment.
 * @module
 */
import { createServer } from "node:http";
import { mkdirSync, mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ModelServer, loadScript } from "@tandem/testkit";

/** The token both runtimes get through the SDK (`--auth-token-env COPILOT_SDK_AUTH_TOKEN`). */
export const githubToken = "gho_conformance_token";

/**
 * @typedef {object} World
 * @property {ModelServer} model the scripted model; `model.requests` records every request but the model-list reads (`model.modelListRequests`)
 * @property {Array<{ method: string, path: string }>} githubRequests what the fake GitHub API saw
 * @property {string} home state folder (HOME and COPILOT_HOME)
 * @property {string} workdir the session's working directory (`<home>/project`)
 * @property {Record<string, string>} env the runtime's environment
 * @property {() => Promise<void>} dispose
 */

/**
 * Starts a world serving the given testkit YAML scripts.
 * @param {string[]} scriptPaths
 * @param {string} label names the temp folder
 * @param {Record<string, string>} [extraEnv]
 * @returns {Promise<World>}
 */
export async function startWorld(scriptPaths, label, extraEnv = {}) {
  const model = new ModelServer();
  for (const path of scriptPaths) model.addScript(loadScript(path));
  const { url: modelUrl } = await model.start();
  /** @type {Array<{ method: string, path: string }>} */
  const githubRequests = [];
  const github = createServer((request, response) => {
    const path = new URL(request.url ?? "/", "http://github.invalid").pathname;
    githubRequests.push({ method: request.method ?? "GET", path });
    request.resume();
    request.on("end", () => {
      const authorized = request.headers.authorization === `Bearer ${githubToken}` || request.headers.authorization === `token ${githubToken}`;
      if (path === "/copilot_internal/user" && authorized) {
        sendJson(response, 200, {
          login: "conformance",
          copilot_plan: "individual_pro",
          endpoints: { api: modelUrl, telemetry: "http://127.0.0.1:9/telemetry" },
          analytics_tracking_id: "conformance",
        });
        return;
      }
      sendJson(response, 404, { message: "Not Found" });
    });
  });
  await new Promise((resolve) => github.listen(0, "127.0.0.1", () => resolve(undefined)));
  const address = /** @type {import("node:net").AddressInfo} */ (github.address());
  const githubUrl = `http://127.0.0.1:${address.port}`;
  const home = realpathSync(mkdtempSync(join(tmpdir(), `conformance-${label}-`)));
  const workdir = join(home, "project");
  mkdirSync(workdir, { recursive: true });
  const env = {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    HOME: home,
    COPILOT_HOME: home,
    COPILOT_API_URL: modelUrl,
    COPILOT_DEBUG_GITHUB_API_URL: githubUrl,
    ...extraEnv,
  };
  return {
    model,
    githubRequests,
    home,
    workdir,
    env,
    async dispose() {
      await model.stop();
      await new Promise((resolve) => {
        github.close(() => resolve(undefined));
        github.closeAllConnections();
      });
      if (!process.env.CONFORMANCE_KEEP) rmSync(home, { recursive: true, force: true, maxRetries: 3 });
    },
  };
}

/**
 * @param {import("node:http").ServerResponse} response
 * @param {number} status
 * @param {unknown} body
 */
function sendJson(response, status, body) {
  response.writeHead(status, { "content-type": "application/json" });
  response.end(JSON.stringify(body));
}
