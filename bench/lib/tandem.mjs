/**
 * A private copy of the built Tandem runtime for one benchmark session, so that a rebuild in the
 * working tree (other work going on) cannot change or remove the runtime half-way through.
 * The copy lives in `.bench-cache/tandem/packages/runtime/` and resolves its external packages
 * from the repository's `node_modules`.
 * @module
 */
import { execFileSync } from "node:child_process";
import { chmodSync, cpSync, existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { cacheDir, repoRoot } from "./paths.mjs";

/** Where the copy goes. */
export const snapshotRuntimeDir = join(cacheDir, "tandem", "packages", "runtime");

/**
 * Copies `packages/runtime/{bin,bundle,package.json}` and returns the entry to spawn, the
 * version and the git revision it was built from.
 *
 * For A/B measurements of a change: `BENCH_TANDEM_DIR=<another checkout>/packages/runtime` takes
 * the runtime from there (its external packages still resolve from this repository), and
 * `BENCH_TANDEM_NODE_OPTIONS="--max-semi-space-size=4"` runs it with extra Node flags (through a
 * small shell wrapper, as the SDK runs `.js` entries with its own Node and no flags).
 * @returns {{ cliPath: string, version: string, revision: string }}
 */
export function snapshotTandem() {
  const source = process.env.BENCH_TANDEM_DIR ? resolve(process.env.BENCH_TANDEM_DIR) : join(repoRoot, "packages/runtime");
  if (!existsSync(join(source, "bundle/cli.js"))) throw new Error("the runtime bundle is missing: run `npm run build` first");
  rmSync(snapshotRuntimeDir, { recursive: true, force: true });
  for (const part of ["bin", "bundle", "package.json"]) cpSync(join(source, part), join(snapshotRuntimeDir, part), { recursive: true });
  const version = JSON.parse(readFileSync(join(source, "package.json"), "utf8")).version;
  let cliPath = join(snapshotRuntimeDir, "bin/tandem.js");
  const flags = process.env.BENCH_TANDEM_NODE_OPTIONS?.trim();
  if (flags) {
    const wrapper = join(snapshotRuntimeDir, "bin/tandem-with-flags.sh");
    writeFileSync(wrapper, `#!/bin/sh\nexec '${process.execPath}' ${flags} '${cliPath}' "$@"\n`);
    chmodSync(wrapper, 0o755);
    cliPath = wrapper;
  }
  const from = process.env.BENCH_TANDEM_DIR ? ` from ${source}` : "";
  return { cliPath, version, revision: `${revision(source)}${from}${flags ? ` with ${flags}` : ""}` };
}

/**
 * The commit the runtime was built from, `+dirty` when its folder has uncommitted changes.
 * @param {string} source
 */
function revision(source) {
  try {
    const commit = execFileSync("git", ["rev-parse", "--short", "HEAD"], { cwd: source, encoding: "utf8" }).trim();
    const dirty = execFileSync("git", ["status", "--porcelain", "--", "."], { cwd: source, encoding: "utf8" }).trim() !== "";
    return dirty ? `${commit}+dirty` : commit;
  } catch {
    return "unknown";
  }
}
