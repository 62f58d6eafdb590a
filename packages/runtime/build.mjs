// Bundles the runtime for a fast start (the package ships `bundle/`, plus the `.d.ts` files of `dist/`): `bundle/cli.js` holds only what answering the first ping
// needs; the rest of the runtime is a chunk loaded on the first request that needs it. Provider
// packages stay external and load on the first model call.
import { build } from "esbuild";
import { rmSync } from "node:fs";
import { dirname, join } from "node:path";

/**
 * vscode-jsonrpc's Node entry requires `crypto` when it loads, only to name random pipes (which
 * the runtime never creates); loading Node's crypto costs ~0.9 MB, a third of what an idle runtime
 * adds to Node itself. This hands that one import a module that loads `crypto` on first use.
 */
const lazyCryptoForJsonRpc = {
  name: "lazy-crypto-for-vscode-jsonrpc",
  setup(context) {
    context.onResolve({ filter: /^crypto$/ }, (args) =>
      /[\\/]vscode-jsonrpc[\\/]lib[\\/]node[\\/]main\.js$/.test(args.importer) ? { path: "lazy-crypto", namespace: "tandem-shims" } : undefined,
    );
    context.onLoad({ filter: /^lazy-crypto$/, namespace: "tandem-shims" }, () => ({
      contents: 'module.exports = { randomBytes: (...args) => require("node:crypto").randomBytes(...args) };',
      loader: "js",
    }));
  },
};

/**
 * zod's `z` namespace re-exports `locales`, the error messages of ~50 languages (~300 KB of the
 * bundle, parsed when the runtime loads and kept as source). Tandem uses only English, which zod
 * registers itself (`classic/schemas.js` imports `locales/en.js` directly); this hands the
 * `locales` re-export a module with English only.
 */
const englishOnlyZodLocales = {
  name: "english-only-zod-locales",
  setup(context) {
    context.onResolve({ filter: /^\.\.\/locales\/index\.js$/ }, (args) =>
      /[\\/]zod[\\/]v4[\\/](classic|core)$/.test(args.resolveDir) ? { path: join(args.resolveDir, "../locales/index.js"), namespace: "tandem-zod-locales" } : undefined,
    );
    context.onLoad({ filter: /.*/, namespace: "tandem-zod-locales" }, (args) => ({
      contents: `export { default as en } from ${JSON.stringify(join(dirname(args.path), "en.js"))};`,
      loader: "js",
      resolveDir: dirname(args.path),
    }));
  },
};

const outdir = new URL("./bundle/", import.meta.url).pathname;
rmSync(outdir, { recursive: true, force: true });
await build({
  // `index.js` is the package's main export (embedding the runtime in-process); it shares chunks with `cli.js`.
  entryPoints: [new URL("./src/cli.ts", import.meta.url).pathname, new URL("./src/index.ts", import.meta.url).pathname],
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
  // web-tree-sitter and the bash grammar load their .wasm files from their installed packages.
  // OpenTelemetry loads (from its installed packages) only when telemetry is on.
  external: ["@ai-sdk/*", "@opentelemetry/*", "yaml", "web-tree-sitter", "@vscode/tree-sitter-wasm", "sql.js"],
  logLevel: "warning",
  plugins: [lazyCryptoForJsonRpc, englishOnlyZodLocales],
  // vscode-jsonrpc is CommonJS and calls require() for Node built-ins.
  banner: { js: "import { createRequire as __tandemCreateRequire } from 'node:module'; const require = __tandemCreateRequire(import.meta.url);" },
});

// What extension processes load (see src/extensions/): the resolve hooks that make
// `@tandem/sdk[/extension]` (and `@github/copilot-sdk[/extension]`, when not installed) importable,
// and our SDK bundled whole, so an extension needs nothing installed.
await build({
  entryPoints: {
    register: new URL("./src/extensions/loader/register.ts", import.meta.url).pathname,
    hooks: new URL("./src/extensions/loader/hooks.ts", import.meta.url).pathname,
    index: new URL("../sdk/src/index.ts", import.meta.url).pathname,
    extension: new URL("../sdk/src/extension.ts", import.meta.url).pathname,
  },
  outdir: new URL("./extension-sdk/", new URL(outdir, "file:")).pathname,
  bundle: true,
  splitting: true,
  format: "esm",
  platform: "node",
  target: "node20",
  minifyWhitespace: true,
  minifySyntax: true,
  logLevel: "warning",
  plugins: [englishOnlyZodLocales],
  banner: { js: "import { createRequire as __tandemCreateRequire } from 'node:module'; const require = __tandemCreateRequire(import.meta.url);" },
});
