/**
 * The reference runtimes the pairs compare Tandem with, each found (or installed) only when a
 * selected pair needs it:
 *
 * - `cli-1.0.10`: `@github/copilot@1.0.10`, the runtime of the SDK 0.2.0 era, a JavaScript package
 *   installed on demand into `.bench-cache/` and run under an on-demand Node 22;
 * - `cli-1.0.102`: the installed `@github/copilot` (its native platform executable), as the bench
 *   finds it (`BENCH_REFERENCE_CLI` overrides it);
 * - `sdk-bundled`: the runtime the 1.0.x SDK ships in `@github/copilot-sdk-<platform>` and spawns
 *   when no path is given (`prebuilds/<platform>/copilot-runtime` beside its `runtime.node`).
 *
 * A reference that cannot run is returned with `available: false` and the reason.
 * @module
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { findPinnedReference, findReference, relative } from "../../bench/lib/reference.mjs";
import { repoRoot } from "../../bench/lib/paths.mjs";
import { withTimeout } from "../../bench/lib/clock.mjs";

/**
 * @typedef {object} Reference
 * @property {string} id `cli-1.0.10`, `cli-1.0.102` or `sdk-bundled`
 * @property {string} label how the report names it
 * @property {boolean} available
 * @property {string} [reason] why it cannot run here
 * @property {string} [cliPath] what the SDK spawns
 * @property {string} [version]
 * @property {string} [how] how it is started
 * @property {Record<string, string>} [env] extra environment for it
 */

/** The ids of the references, in report order. */
export const referenceIds = /** @type {const} */ (["cli-1.0.10", "cli-1.0.102", "sdk-bundled"]);

/**
 * Finds one reference and checks that it starts.
 * @param {string} id one of `referenceIds`
 * @param {(line: string) => void} log
 * @returns {Promise<Reference>}
 * @example
 * const reference = await findConformanceReference("sdk-bundled", console.error);
 * if (!reference.available) console.error(reference.reason);
 */
export async function findConformanceReference(id, log) {
  if (id === "cli-1.0.10") return { id, label: "@github/copilot 1.0.10", ...findPinnedReference("1.0.10", log) };
  if (id === "cli-1.0.102") {
    const found = findReference(log);
    return { id, label: `@github/copilot ${found.version ?? "(installed)"}`, ...found };
  }
  if (id === "sdk-bundled") return { id, label: "the runtime bundled with SDK 1.0.x", ...(await findBundledRuntime(log)) };
  return { id, label: id, available: false, reason: `unknown reference "${id}"` };
}

/**
 * The runtime bundled with the 1.0.x SDK. It takes no `--version`, so the check starts it through
 * the SDK and pings it; the version is the one the SDK declares (`COPILOT_CLI_VERSION`).
 * @param {(line: string) => void} log
 * @returns {Promise<Omit<Reference, "id" | "label">>}
 */
async function findBundledRuntime(log) {
  const platform = `${process.platform}-${process.arch}`;
  const packageDir = join(repoRoot, "node_modules", "@github", `copilot-sdk-${platform}`);
  const cliPath = join(packageDir, "prebuilds", platform, "copilot-runtime");
  if (!existsSync(cliPath) || !existsSync(join(packageDir, "prebuilds", platform, "runtime.node"))) {
    return { available: false, reason: `${relative(packageDir)} has no prebuilds/${platform}/copilot-runtime with its runtime.node (the 1.0.x SDK's platform package is not installed)` };
  }
  const packageVersion = readJson(join(packageDir, "package.json"))?.version ?? "?";
  const version = /COPILOT_CLI_VERSION = "([^"]+)"/.exec(readText(join(repoRoot, "node_modules/copilot-sdk-v1/dist/cliVersion.js")))?.[1] ?? "?";
  const how = `${relative(cliPath)} (package ${packageVersion}, started directly as the SDK does)`;
  log(`checking the reference runtime (${how}) ...`);
  const home = mkdtempSync(join(tmpdir(), "conformance-bundled-probe-"));
  const sdk = await import("copilot-sdk-v1");
  const client = new sdk.CopilotClient({
    connection: sdk.RuntimeConnection.forStdio({ path: cliPath, env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: home, COPILOT_HOME: home } }),
    workingDirectory: home,
    logLevel: "error",
  });
  try {
    await withTimeout(client.start(), 120_000, "start");
    await withTimeout(client.ping("conformance"), 30_000, "ping");
    return { available: true, cliPath, version, how, env: {} };
  } catch (error) {
    return { available: false, reason: `the bundled runtime does not start here: ${error instanceof Error ? error.message.split("\n")[0] : String(error)}` };
  } finally {
    await withTimeout(client.stop(), 10_000, "stop").catch(() => client.forceStop());
    rmSync(home, { recursive: true, force: true });
  }
}

/** @param {string} path */
function readText(path) {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return "";
  }
}

/** @param {string} path @returns {any} */
function readJson(path) {
  const text = readText(path);
  return text ? JSON.parse(text) : undefined;
}
