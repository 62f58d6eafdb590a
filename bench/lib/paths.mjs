/**
 * Paths of the repository, the Tandem runtime and the ignored download cache.
 * @module
 */
import { fileURLToPath } from "node:url";
import { join } from "node:path";

/** The repository root. */
export const repoRoot = fileURLToPath(new URL("../../", import.meta.url));

/** The ignored cache for the reference runtime's Node and unpacked files (`.bench-cache/`). */
export const cacheDir = join(repoRoot, ".bench-cache");

/** The Tandem runtime entry (what the SDK spawns with `process.execPath`). */
export const tandemCli = join(repoRoot, "packages/runtime/bin/tandem.js");

/** Where the JSON report goes. */
export const resultsDir = join(repoRoot, "bench/results");
