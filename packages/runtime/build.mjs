// Bundles the runtime for a fast start (the package ships `bundle/`, plus the `.d.ts` files of `dist/`): `bundle/cli.js` holds only what answering the first ping
// needs; the rest of the runtime is a chunk loaded on the first request that needs it. Provider
// packages stay external and load on the first model call.
import { build } from "esbuild";
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { basename, dirname, join, relative } from "node:path";

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
const { metafile } = await build({
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
  metafile: true,
});
await mergeStartPath(metafile);

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

/**
 * Puts everything `cli.js` loads before answering the first ping into `cli.js` itself.
 *
 * esbuild's code splitting makes one chunk per set of entry points (static and dynamic) that reach a
 * module, so the start path ends up spread over whichever chunks it shares with the lazily loaded
 * parts (connection code, vscode-jsonrpc, errors, esbuild's helpers): five modules where one would
 * do. Each extra module costs Node's ESM loader a read, a compile and a link: measured on the
 * 2-core bench machine, importing the five took ~15.3 ms against ~12.5 ms for the same code in one
 * file (cold start ~4 ms more). So the start chunks are bundled into `cli.js`, and each start chunk
 * file becomes a one-line re-export from `cli.js`: the lazily loaded chunks still import it by its
 * old name and get the same module instances (one copy of every class, one vscode-jsonrpc).
 * @param {import("esbuild").Metafile} meta
 */
async function mergeStartPath(meta) {
  const outputs = meta.outputs;
  const cliKey = Object.keys(outputs).find((key) => key.endsWith("bundle/cli.js"));
  if (!cliKey) throw new Error("build: bundle/cli.js is missing from the metafile");
  const startChunks = [];
  const queue = [cliKey];
  const seen = new Set();
  while (queue.length > 0) {
    const key = queue.shift();
    if (seen.has(key)) continue;
    seen.add(key);
    if (key !== cliKey) startChunks.push(key);
    for (const imported of outputs[key].imports) if (imported.kind === "import-statement" && !imported.external && outputs[imported.path]) queue.push(imported.path);
  }
  if (startChunks.length === 0) return;
  const root = process.cwd();
  const exported = new Map();
  const lines = [];
  for (const chunk of [...startChunks, cliKey]) {
    const names = outputs[chunk].exports.filter((name) => !exported.has(name));
    for (const name of names) exported.set(name, chunk);
    if (names.length > 0) lines.push(`export { ${names.join(", ")} } from ${JSON.stringify(join(root, chunk))};`);
  }
  const cliFile = join(root, cliKey);
  const merged = await build({
    stdin: { contents: lines.join("\n"), resolveDir: outdir, sourcefile: "start-path.js", loader: "js" },
    outfile: cliFile,
    allowOverwrite: true,
    bundle: true,
    format: "esm",
    platform: "node",
    target: "node20",
    sourcemap: "linked",
    minifyWhitespace: true,
    minifySyntax: true,
    write: false,
    logLevel: "warning",
    // Only the start chunks are merged; whatever they load on demand stays a separate file.
    plugins: [{ name: "keep-lazy-chunks", setup: (context) => context.onResolve({ filter: /^\.\.?\// }, (args) => (args.kind === "dynamic-import" ? { path: args.path, external: true } : undefined)) }],
  });
  for (const file of merged.outputFiles) writeFileSync(file.path, file.contents);
  for (const chunk of startChunks) {
    const names = outputs[chunk].exports;
    const file = join(root, chunk);
    writeFileSync(file, names.length > 0 ? `export { ${names.join(", ")} } from "./cli.js";\n` : `import "./cli.js";\n`);
    rmSync(`${file}.map`, { force: true });
  }
  const size = readFileSync(cliFile).length;
  if (process.env.TANDEM_BUILD_VERBOSE) console.log(`build: start path merged into ${relative(root, cliFile)} (${size} bytes) from ${startChunks.map((chunk) => basename(chunk)).join(", ")}`);
}
