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
/** Where the copy of a baseline build goes (`BENCH_BASELINE_DIR`). */
const baselineRuntimeDir = join(cacheDir, "baseline", "packages", "runtime");

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
  return snapshotFrom(source, snapshotRuntimeDir, Boolean(process.env.BENCH_TANDEM_DIR));
}

/**
 * The build in `BENCH_BASELINE_DIR` (another checkout's `packages/runtime`), copied like
 * {@link snapshotTandem}: the bench then runs it in the reference's place, interleaved with the
 * current build, for an A/B of a change on the same machine state. Undefined when not set.
 * @returns {{ cliPath: string, version: string, revision: string } | undefined}
 */
export function snapshotBaseline() {
  const source = process.env.BENCH_BASELINE_DIR;
  return source ? snapshotFrom(resolve(source), baselineRuntimeDir, true) : undefined;
}

/**
 * @param {string} source a `packages/runtime` folder with a built bundle
 * @param {string} target where to copy it
 * @param {boolean} nameSource whether the revision names the source folder
 */
function snapshotFrom(source, target, nameSource) {
  if (!existsSync(join(source, "bundle/cli.js"))) throw new Error(`the runtime bundle is missing in ${source}: run \`npm run build\` first`);
  rmSync(target, { recursive: true, force: true });
  for (const part of ["bin", "bundle", "package.json"]) cpSync(join(source, part), join(target, part), { recursive: true });
  const version = JSON.parse(readFileSync(join(source, "package.json"), "utf8")).version;
  let cliPath = join(target, "bin/tandem.js");
  const flags = process.env.BENCH_TANDEM_NODE_OPTIONS?.trim();
  if (flags) {
    const wrapper = join(target, "bin/tandem-with-flags.sh");
    writeFileSync(wrapper, `#!/bin/sh\nexec '${process.execPath}' ${flags} '${cliPath}' "$@"\n`);
    chmodSync(wrapper, 0o755);
    cliPath = wrapper;
  }
  const from = nameSource ? ` from ${source}` : "";
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
