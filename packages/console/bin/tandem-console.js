#!/usr/bin/env node
// Entry point of `tandem-console`. Kept as plain JS so the bin link exists before the build.
import("../dist/cli.js").then((cli) => cli.main(process.argv.slice(2))).catch((error) => {
  process.stderr.write(`tandem-console: failed to start: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
