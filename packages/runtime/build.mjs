// Bundles the runtime for a fast start: `bundle/cli.js` holds only what answering the first ping
// needs; the rest of the runtime is a chunk loaded right after. Provider packages stay external and
// load on the first model call.
import { build } from "esbuild";
import { rmSync } from "node:fs";

const outdir = new URL("./bundle/", import.meta.url).pathname;
rmSync(outdir, { recursive: true, force: true });
await build({
  entryPoints: [new URL("./src/cli.ts", import.meta.url).pathname],
  outdir,
  bundle: true,
  splitting: true,
  format: "esm",
  platform: "node",
  target: "node20",
  sourcemap: "linked",
  // Whitespace and syntax only: identifiers keep their names, so stack traces stay readable
  // (and map back through the source maps); ~2 MB less memory once the runtime is loaded.
  minifyWhitespace: true,
  minifySyntax: true,
  external: ["@ai-sdk/*", "yaml"],
  logLevel: "warning",
  // vscode-jsonrpc is CommonJS and calls require() for Node built-ins.
  banner: { js: "import { createRequire as __tandemCreateRequire } from 'node:module'; const require = __tandemCreateRequire(import.meta.url);" },
});
