// Bundles the runtime for a fast start (the package ships `bundle/`, plus the `.d.ts` files of `dist/`): `bundle/cli.js` holds only what answering the first ping
// needs; the rest of the runtime is a chunk loaded on the first request that needs it. Provider
// packages stay external and load on the first model call. The protocol and zod stay modules of
// their own beside the runtime chunk (see `protocolChunk`: the runtime chunk exports 105 names
// instead of 420, and compiling what the first `session.create` runs costs ~10 M instructions
// less); the handler areas other than a session's create and turns load on first use
// (`src/server/dispatch.ts`), each with its own tokens and schemas (see `protocolCoreForRuntime`).
import { build } from "esbuild";
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { basename, dirname, join, relative } from "node:path";

/**
 * The plugins below that recognise a dependency's own files by their paths record here that they
 * applied: the build fails when one did not (after an upgrade moved the file it expects), instead
 * of silently shipping the larger bundle (see {@link requireApplied}).
 * @type {Set<string>}
 */
const applied = new Set();

/**
 * Fails the build when a plugin that rewrites a dependency's file found nothing to rewrite.
 * @param {string[]} names
 */
function requireApplied(names) {
  const missing = names.filter((name) => !applied.has(name));
  if (missing.length > 0) {
    throw new Error(`build: ${missing.join(", ")} found nothing to rewrite: a dependency's files moved (after an upgrade?); update the plugin (packages/runtime/build.mjs)`);
  }
}

/**
 * vscode-jsonrpc's Node entry (`lib/node/main.js`, what `vscode-jsonrpc` and `vscode-jsonrpc/node`
 * resolve to) installs the Node runtime layer (`lib/node/ril.js`: timers, message buffers) and
 * re-exports the common API, and adds transports the runtime never creates (IPC, pipes, sockets;
 * ~7 KB on the start path, and `crypto`, `os` and `path` loaded when it runs, `crypto` only to
 * name random pipes: ~0.9 MB, a third of what an idle runtime adds to Node itself). The runtime
 * hands vscode-jsonrpc its own reader and writer, for which the entry's `createMessageConnection`
 * calls the common one unchanged. This hands the runtime's imports of the package a module that
 * installs the Node layer and exports the common API.
 */
const jsonRpcWithoutNodeTransports = {
  name: "vscode-jsonrpc-without-node-transports",
  setup(context) {
    context.onResolve({ filter: /^vscode-jsonrpc(\/node(\.js)?)?$/ }, (args) => {
      if (/[\\/]node_modules[\\/]/.test(args.importer)) return undefined;
      applied.add("vscode-jsonrpc-without-node-transports");
      return { path: "vscode-jsonrpc-common", namespace: "tandem-shims" };
    });
    context.onLoad({ filter: /^vscode-jsonrpc-common$/, namespace: "tandem-shims" }, () => ({
      contents: 'require("vscode-jsonrpc/lib/node/ril").default.install();\nmodule.exports = require("vscode-jsonrpc/lib/common/api");',
      loader: "js",
      resolveDir: packageDir,
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
    context.onResolve({ filter: /^\.\.\/locales\/index\.js$/ }, (args) => {
      if (!/[\\/]zod[\\/]v4[\\/](classic|core)$/.test(args.resolveDir)) return undefined;
      applied.add("english-only-zod-locales");
      return { path: join(args.resolveDir, "../locales/index.js"), namespace: "tandem-zod-locales" };
    });
    context.onLoad({ filter: /.*/, namespace: "tandem-zod-locales" }, (args) => ({
      contents: `export { default as en } from ${JSON.stringify(join(dirname(args.path), "en.js"))};`,
      loader: "js",
      resolveDir: dirname(args.path),
    }));
  },
};

/**
 * The protocol's index re-exports every method area's tokens, and esbuild puts a file into the chunk
 * of every entry point that reaches it through such a re-export, used or not: with the index on the
 * runtime chunk's path, the tokens and schemas of all ~30 areas loaded with the first
 * `session.create`. The runtime's own `@tandem/protocol` imports therefore resolve to
 * `@tandem/protocol/core` (the protocol without the areas' files), and the area modules import
 * their tokens from `@tandem/protocol/methods/<area>`, so those load with the area's chunk. A value
 * import of an area's token through `@tandem/protocol` fails this build ("No matching export in
 * core.js"): import it from its `methods/<area>` subpath instead.
 */
const protocolCoreForRuntime = {
  name: "protocol-core-for-runtime",
  setup(context) {
    context.onResolve({ filter: /^@tandem\/protocol$/ }, (args) => context.resolve("@tandem/protocol/core", { kind: args.kind, resolveDir: args.resolveDir, importer: args.importer }));
  },
};

/**
 * What every bundle file starts with: bundled CommonJS code (vscode-jsonrpc, picomatch, ignore)
 * calls `require()` for Node built-ins, which an ES module does not have.
 */
const requireBanner = "import { createRequire as __tandemCreateRequire } from 'node:module'; const require = __tandemCreateRequire(import.meta.url);";

const packageDir = new URL(".", import.meta.url).pathname;
/**
 * What every build here shares: ESM for Node 20, whitespace and syntax minified only (identifiers
 * keep their names, so stack traces stay readable and map back through the source maps; ~2 MB less
 * memory once the runtime is loaded).
 * @type {import("esbuild").BuildOptions}
 */
const nodeEsm = { bundle: true, format: "esm", platform: "node", target: "node20", minifyWhitespace: true, minifySyntax: true, logLevel: "warning" };
const outdir = new URL("./bundle/", import.meta.url).pathname;
rmSync(outdir, { recursive: true, force: true });
const { metafile } = await build({
  // Metafile paths are relative to this folder, wherever the build is started from.
  absWorkingDir: packageDir,
  // `index.js` is the package's main export (embedding the runtime in-process); it shares chunks with `cli.js`.
  entryPoints: [new URL("./src/cli.ts", import.meta.url).pathname, new URL("./src/index.ts", import.meta.url).pathname],
  outdir,
  ...nodeEsm,
  splitting: true,
  sourcemap: "linked",
  // web-tree-sitter and the bash grammar load their .wasm files from their installed packages.
  // OpenTelemetry loads (from its installed packages) only when telemetry is on.
  external: ["@ai-sdk/*", "@opentelemetry/*", "yaml", "web-tree-sitter", "@vscode/tree-sitter-wasm", "sql.js"],
  plugins: [jsonRpcWithoutNodeTransports, englishOnlyZodLocales, protocolCoreForRuntime],
  // vscode-jsonrpc is CommonJS and calls require() for Node built-ins.
  banner: { js: requireBanner },
  metafile: true,
});
requireApplied(["vscode-jsonrpc-without-node-transports", "english-only-zod-locales"]);
// `TANDEM_BUILD_METAFILE=<file>` keeps esbuild's metafile of this build (which module went into which chunk, who imports it).
if (process.env.TANDEM_BUILD_METAFILE) writeFileSync(process.env.TANDEM_BUILD_METAFILE, JSON.stringify(metafile));
// The start path into cli.js; the protocol's chunks into one module beside zod's; then the rest of
// what the first session needs into the runtime chunk.
const startPath = await mergeStaticClosure(metafile, entryChunk(metafile, "src/cli.ts"), new Map());
const zod = zodChunks(metafile);
const protocol = await mergeStaticClosure(metafile, protocolChunk(metafile), startPath, zod);
await mergeStaticClosure(metafile, entryChunk(metafile, "src/runtime.ts"), new Map([...startPath, ...protocol]), zod);

// The worker threads of the sql tool and of grep's Node search (src/tools/builtin/sql/sql-worker.ts,
// src/tools/builtin/search/search-worker.ts): entries of their own, built apart so they share no chunk
// with the runtime (a thread loads only its own file, and sql.js or picomatch, when it starts).
await build({
  absWorkingDir: packageDir,
  entryPoints: {
    "sql-worker": new URL("./src/tools/builtin/sql/sql-worker.ts", import.meta.url).pathname,
    "search-worker": new URL("./src/tools/builtin/search/search-worker.ts", import.meta.url).pathname,
  },
  outdir,
  ...nodeEsm,
  sourcemap: "linked",
  external: ["sql.js"],
  // Bundled CommonJS packages (picomatch, ignore) call require() for Node built-ins.
  banner: { js: requireBanner },
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
  ...nodeEsm,
  splitting: true,
  plugins: [englishOnlyZodLocales],
  banner: { js: requireBanner },
});

/**
 * The output file of an entry point (static or dynamically imported) in the metafile.
 * @param {import("esbuild").Metafile} meta
 * @param {string} source
 */
function entryChunk(meta, source) {
  const key = Object.keys(meta.outputs).find((output) => output.endsWith(".js") && meta.outputs[output].entryPoint === source);
  if (!key) throw new Error(`build: no output for ${source}`);
  return key;
}

/**
 * The chunk that holds the protocol's core (the method tokens of a session's create and turns).
 * It and the protocol chunks it imports (the shared shapes, the helpers) are merged into one module
 * of its own, beside zod's, instead of joining the runtime chunk: the handler areas loaded on first
 * use (`src/server/dispatch.ts`) import shapes from the protocol's module, not from the runtime
 * chunk, which would have to export them. A module's exported and imported names are bindings V8
 * searches one by one whenever it compiles a function of that module that names a global or one of
 * them; with the ~290 protocol names among the runtime chunk's exports, compiling what the first
 * `session.create` runs cost ~12 M instructions more (`ScopeInfo::ModuleIndex` under
 * `node bench/callgrind.mjs`). The areas' own tokens are in the areas' chunks (see
 * {@link protocolCoreForRuntime}).
 * @param {import("esbuild").Metafile} meta
 */
function protocolChunk(meta) {
  const key = Object.keys(meta.outputs).find((output) => Object.keys(meta.outputs[output].inputs).some((input) => input.endsWith("protocol/dist/methods.js")));
  if (!key) throw new Error("build: no chunk holds the protocol's methods");
  return key;
}

/**
 * zod's chunks (no entry point, zod's files and none of the protocol's): they stay modules of their
 * own, imported by the protocol's module, the runtime chunk and the MCP client alike (merged into
 * one of them, the others would import zod through it, and it would run before zod's code).
 * @param {import("esbuild").Metafile} meta
 * @returns {Set<string>}
 */
function zodChunks(meta) {
  const outputs = meta.outputs;
  return new Set(
    Object.keys(outputs).filter((key) => {
      const inputs = Object.keys(outputs[key].inputs);
      return !outputs[key].entryPoint && inputs.some((input) => input.includes("node_modules/zod/")) && !inputs.some((input) => input.includes("protocol/dist/"));
    }),
  );
}

/**
 * Puts the chunks an entry chunk imports statically into the entry chunk itself, and leaves in
 * each of those chunk files a one-line re-export from it: whatever else imports a chunk by its old
 * name gets the same module instances (one copy of every class, one vscode-jsonrpc).
 *
 * Why: esbuild's code splitting makes one chunk per set of entry points (static and dynamic) that
 * reach a module, so what `cli.js` needs to answer the first ping was spread over five modules
 * (shared with the lazily loaded parts), and what the first `session.create` loads over seven. Each
 * module costs Node's ESM loader a read, a compile and a link: on the 2-core bench machine,
 * importing the five start modules took ~15.3 ms against ~12.5 ms for the same code in one file.
 *
 * The price: another lazily loaded part that shares a merged chunk now loads the whole entry with
 * it. For the runtime chunk those are the PostgreSQL store's opener (a cluster node loads the
 * runtime at start anyway), `tandem store import` and the MCP client (loaded by the runtime).
 *
 * Returns the chunk files merged, each with the entry that now holds it (the entry with itself),
 * which later merges leave alone.
 * @param {import("esbuild").Metafile} meta
 * @param {string} entryKey
 * @param {Map<string, string>} mergedBefore chunks an earlier merge took: imports of them go to their entry
 * @param {Set<string>} kept chunks left as modules of their own (zod's: see {@link zodChunks})
 * @returns {Promise<Map<string, string>>}
 */
async function mergeStaticClosure(meta, entryKey, mergedBefore, kept = new Set()) {
  const outputs = meta.outputs;
  const chunks = [];
  const queue = [entryKey];
  const seen = new Set();
  while (queue.length > 0) {
    const key = queue.shift();
    if (seen.has(key) || mergedBefore.has(key) || kept.has(key)) continue;
    seen.add(key);
    if (key !== entryKey) chunks.push(key);
    for (const imported of outputs[key].imports) if (imported.kind === "import-statement" && !imported.external && outputs[imported.path]) queue.push(imported.path);
  }
  const merged = new Map([entryKey, ...chunks].map((chunk) => [chunk, entryKey]));
  if (chunks.length === 0) return merged;
  const root = packageDir;
  const exported = new Set();
  const lines = [];
  // The entry last: its own exports may re-export a chunk's.
  for (const chunk of [...chunks, entryKey]) {
    const names = outputs[chunk].exports.filter((name) => !exported.has(name));
    for (const name of names) exported.add(name);
    if (names.length > 0) lines.push(`export { ${names.join(", ")} } from ${JSON.stringify(join(root, chunk))};`);
  }
  const entryFile = join(root, entryKey);
  const keptFiles = new Map([...[...mergedBefore].map(([chunk, owner]) => [join(root, chunk), `./${basename(owner)}`]), ...[...kept].map((chunk) => [join(root, chunk), `./${basename(chunk)}`])]);
  const result = await build({
    // The re-exports' own name differs from the entry's: a chunk of the same name would import itself.
    stdin: { contents: lines.join("\n"), resolveDir: outdir, sourcefile: `merged-${basename(entryKey)}`, loader: "js" },
    outfile: entryFile,
    allowOverwrite: true,
    ...nodeEsm,
    sourcemap: "linked",
    write: false,
    // Packages the first build left external stay so.
    packages: "external",
    // What the merged chunks load on demand, and chunks an earlier merge owns, stay separate files.
    plugins: [
      {
        name: "keep-other-chunks",
        setup: (context) =>
          context.onResolve({ filter: /^\.\.?\// }, (args) => {
            if (args.kind === "dynamic-import") return { path: args.path, external: true };
            const owner = keptFiles.get(join(args.resolveDir, args.path));
            return owner ? { path: owner, external: true } : undefined;
          }),
      },
      {
        // Every chunk starts with the `require` banner; merged, each would stay one more import of
        // node:module and one more createRequire call when the module loads (28 in the runtime
        // chunk). A chunk whose code never names `require` loses it (its line stays, empty, so the
        // chunk's source map still lines up).
        name: "drop-unused-require-banners",
        setup: (context) =>
          context.onLoad({ filter: /\.js$/ }, (args) => {
            if (!args.path.startsWith(outdir)) return undefined;
            const text = readFileSync(args.path, "utf8");
            if (!text.startsWith(`${requireBanner}\n`)) return undefined;
            const code = text.slice(requireBanner.length);
            if (/\brequire\b/.test(code)) return undefined;
            return { contents: code, loader: "js", resolveDir: dirname(args.path) };
          }),
      },
    ],
  });
  for (const file of result.outputFiles) writeFileSync(file.path, file.contents);
  const entryName = `./${basename(entryKey)}`;
  for (const chunk of chunks) {
    const names = outputs[chunk].exports;
    const file = join(root, chunk);
    writeFileSync(file, names.length > 0 ? `export { ${names.join(", ")} } from ${JSON.stringify(entryName)};\n` : `import ${JSON.stringify(entryName)};\n`);
    rmSync(`${file}.map`, { force: true });
  }
  if (process.env.TANDEM_BUILD_VERBOSE) console.log(`build: ${relative(root, entryFile)} (${readFileSync(entryFile).length} bytes) now holds ${chunks.map((chunk) => basename(chunk)).join(", ")}`);
  return merged;
}
