#!/usr/bin/env node
// Entry point of `tandem-testkit`. Kept as plain JS so the bin link exists before the build.
await import("../dist/cli.js");
