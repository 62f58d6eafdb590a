#!/usr/bin/env node
/**
 * `npm run pack`: writes the installable set of Tandem packages — @tandem/protocol, runtime, sdk,
 * testkit and console — as tarballs into one folder (default `packs/`), and prints the one command
 * that installs them in another project. The packages are not in a registry; these tarballs are
 * how an application installs them, and they must be installed together (each names the others
 * by version).
 *
 *   npm run pack [-- --out DIR] [-- --json]
 *
 * Run `npm ci` (which builds) first; the runtime's bundle and the packages' `dist/` go in the tarballs.
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync } from "node:fs";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";

/** Every package an application may install, in dependency order. */
export const packageNames = ["@tandem/protocol", "@tandem/runtime", "@tandem/sdk", "@tandem/testkit", "@tandem/console"];

const repoRoot = fileURLToPath(new URL("..", import.meta.url));
const { values } = parseArgs({ options: { out: { type: "string" }, json: { type: "boolean" } } });
const out = resolve(values.out ?? join(repoRoot, "packs"));

if (!existsSync(join(repoRoot, "packages", "runtime", "bundle", "cli.js"))) {
  process.stderr.write("pack: the runtime is not built; run `npm ci` (or `npm run build`) first\n");
  process.exit(1);
}
mkdirSync(out, { recursive: true });
// npm's own environment from an outer `npm run` would point pack at the wrong workspace.
const env = Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.startsWith("npm_")));
const reports = JSON.parse(
  execFileSync("npm", ["pack", "--json", "--pack-destination", out, ...packageNames.flatMap((name) => ["-w", name])], { cwd: repoRoot, env, encoding: "utf8", maxBuffer: 64 * 1024 * 1024 }),
);
if (values.json) {
  process.stdout.write(`${JSON.stringify(reports.map((report) => ({ ...report, path: join(out, report.filename) })))}\n`);
} else {
  process.stdout.write(`Wrote ${reports.length} packages to ${out}:\n`);
  for (const report of reports) process.stdout.write(`  ${report.filename}  (${Math.round(report.size / 1024)} KB)\n`);
  process.stdout.write(`\nInstall them together in your project (Node >= 20):\n  npm install ${reports.map((report) => join(out, report.filename)).join(" ")}\n`);
  process.stdout.write("Then: import { CopilotClient } from \"@tandem/sdk\"; the console runs with `npx tandem-console`.\n");
}
