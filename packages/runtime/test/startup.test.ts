/**
 * What the runtime's entry (`bundle/cli.js`, all that answering `ping` needs) loads. An idle
 * runtime should cost little more than Node itself, so the entry must not pull in the rest of the
 * runtime, zod, or Node modules it does not use (crypto, http).
 */
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const bundleDir = fileURLToPath(new URL("../bundle/", import.meta.url));

describe("the runtime's entry bundle", () => {
  it("loads none of the Node modules it does not use (crypto, http, zlib; os and net: vscode-jsonrpc's own transports are not bundled)", () => {
    const script = `
      const before = new Set(process.moduleLoadList);
      await import(${JSON.stringify(`${bundleDir}cli.js`)});
      const builtins = process.moduleLoadList.filter((name) => !before.has(name) && name.startsWith("NativeModule "));
      process.stdout.write(JSON.stringify(builtins.map((name) => name.slice("NativeModule ".length))));
    `;
    const run = spawnSync(process.execPath, ["--input-type=module", "-e", script], { encoding: "utf8" });
    expect(run.stderr).toBe("");
    const builtins = JSON.parse(run.stdout) as string[];
    expect(builtins).toContain("v8");
    // net loads with the first socket (stdin in --stdio mode, the listener in TCP mode), not with the entry.
    expect(builtins.filter((name) => ["crypto", "http", "https", "zlib", "os", "net"].includes(name))).toEqual([]);
  });

  it("reaches the runtime (and zod) only through a dynamic import", () => {
    // cli.js and what it imports statically: nothing of the bundle, the start path is merged into it (build.mjs).
    const loaded = new Set<string>();
    const pending = ["cli.js"];
    while (pending.length > 0) {
      const name = pending.pop()!;
      if (loaded.has(name)) continue;
      loaded.add(name);
      const source = readFileSync(join(bundleDir, name), "utf8");
      for (const match of source.matchAll(/(?:from|import)\s*"\.\/([^"]+\.js)"/g)) pending.push(match[1]!);
    }
    const sources = [...loaded].map((name) => readFileSync(join(bundleDir, name), "utf8"));
    expect(sources.some((source) => /import\("\.\/runtime-[A-Z0-9]+\.js"\)/.test(source))).toBe(true);
    expect([...loaded]).toEqual(["cli.js"]);
    for (const name of loaded) expect(name.startsWith("runtime-")).toBe(false);
    for (const source of sources) expect(source).not.toContain("$ZodType");
  });

  it("leaves merged chunks as re-exports of the entry that holds them: one module instance each (build.mjs)", () => {
    const shims = readdirSync(bundleDir)
      .filter((name) => name.endsWith(".js"))
      .map((name) => ({ name, owner: /^export \{[^}]*\} from "\.\/([^"]+\.js)";\n$/.exec(readFileSync(join(bundleDir, name), "utf8"))?.[1] }))
      .filter((shim): shim is { name: string; owner: string } => shim.owner !== undefined);
    expect(shims.some((shim) => shim.owner === "cli.js")).toBe(true);
    expect(shims.some((shim) => /^runtime-[A-Z0-9]+\.js$/.test(shim.owner))).toBe(true);
    const script = `
      const mismatched = [];
      for (const { name, owner } of ${JSON.stringify(shims)}) {
        const [shim, entry] = await Promise.all([import(${JSON.stringify(bundleDir)} + name), import(${JSON.stringify(bundleDir)} + owner)]);
        for (const [key, value] of Object.entries(shim)) if (entry[key] !== value) mismatched.push(name + ":" + key);
      }
      const cli = await import(${JSON.stringify(`${bundleDir}cli.js`)});
      const index = await import(${JSON.stringify(`${bundleDir}index.js`)});
      if (index.main !== cli.main || index.TandemError !== cli.TandemError) mismatched.push("index.js");
      process.stdout.write(JSON.stringify(mismatched));
    `;
    const run = spawnSync(process.execPath, ["--input-type=module", "-e", script], { encoding: "utf8" });
    expect(run.stderr).toBe("");
    expect(JSON.parse(run.stdout)).toEqual([]);
  });

  it("loads OpenTelemetry only through a dynamic import (telemetry off costs nothing)", () => {
    const chunks = readdirSync(bundleDir).filter((name) => name.endsWith(".js"));
    const sources = chunks.map((name) => readFileSync(join(bundleDir, name), "utf8"));
    const exporterChunks = sources.filter((source) => /from\s*"@opentelemetry\//.test(source));
    expect(exporterChunks).toHaveLength(1);
    expect(sources.some((source) => /import\("\.\/exporter-[A-Z0-9]+\.js"\)/.test(source))).toBe(true);
  });

  it.each([
    { library: "diff (jsdiff)", marker: /function structuredPatch\(/ },
    { library: "turndown", marker: /function TurndownService\(/ },
    { library: "ignore", marker: /path should be a/ },
    { library: "picomatch", marker: /picomatch\.makeRe\s*=/ },
    // The first session.create does not parse the shell analysis; the first bash permission request loads it.
    { library: "the shell command analysis", marker: /function analyzeCommandLine\(/ },
    // Sessions on chat completions (the default) never load the AI SDK path of Anthropic, Azure and OpenAI responses providers.
    { library: "the AI SDK model client", marker: /AiSdkModelClient=class\b/ },
    // The chat-completions client (request building, stream parsing) loads with a session's first model call, not its create.
    { library: "the chat-completions model client", marker: /ChatCompletionsClient=class\b/ },
  ])("bundles $library in its own chunk, reached only through a dynamic import (replaced pieces load lazily)", ({ marker }) => {
    // Worker threads' entries (built apart, loaded by their thread only) carry their own copies.
    const chunks = readdirSync(bundleDir).filter((name) => name.endsWith(".js") && !name.endsWith("-worker.js"));
    const sources = new Map(chunks.map((name) => [name, readFileSync(join(bundleDir, name), "utf8")]));
    const homes = chunks.filter((name) => marker.test(sources.get(name)!));
    expect(homes).toHaveLength(1);
    const home = homes[0]!;
    const escaped = home.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
    for (const [name, source] of sources) {
      expect(source, `${name} imports ${home} statically`).not.toMatch(new RegExp(`(?:from|import)\\s*"\\./${escaped}"`));
    }
    expect([...sources.values()].some((source) => source.includes(`import("./${home}")`))).toBe(true);
  });

  it.each([
    // Git checkpoints: with a session's first tracked turn; session.delete's git cleanup with the first deletion.
    { part: "the git checkpoint store", marker: "GitCheckpoints=class" },
    { part: "session.delete's git cleanup", marker: "function removeGitStateOfSession(" },
    // Rewind points, rewinds and truncation with the first history request; the file tools' backups with the first write kept.
    { part: "the session's rewinds", marker: "SessionRewinds=class" },
    { part: "the file tools' backups outside git", marker: "FileBackups=class" },
    { part: "the history rebuilder", marker: "HistoryRebuilder=class" },
    // The resume point's replay with the first resume or root compaction.
    { part: "the resume point's replay", marker: "function replaySession(" },
    // A shell's process with the first shell a session plans.
    { part: "the shell process", marker: "ShellProcess=class" },
    // The file tools' diffs and web_fetch's fetch and conversion with their first call.
    { part: "the file tools' diffs", marker: "function unifiedDiff(" },
    { part: "web_fetch's redirects", marker: "function fetchFollowingApprovedRedirects(" },
    { part: "web_fetch's HTML conversion", marker: "function htmlToMarkdown(" },
    // A sub-agent's run with the session's first sub-agent.
    { part: "the sub-agent run", marker: "function runSubAgent(" },
    // An extension's process with the first session that starts extensions.
    { part: "the extension process", marker: "ExtensionProcess=class" },
    // The events file's readers with the first read (a new session only appends).
    { part: "the events file's line reader", marker: "function forEachLine(" },
    { part: "the events file's pages", marker: "function readLogPage(" },
    // The search tools' Node fallbacks and the glob matcher with their first call.
    { part: "grep's Node search thread", marker: "function nodeGrepOnThread(" },
    { part: "glob's matcher", marker: "function globFilter(" },
    { part: "the Node file walk", marker: "async function*walkFiles(" },
    // A compaction's transcript with the first model call past half the background threshold (or the first summary).
    { part: "the compaction transcript", marker: "function renderTranscript(" },
    // Mapping a provider's failures to typed errors, with the model clients (a session's first model call).
    { part: "the provider failure mapping", marker: "function providerErrorFromStatus(" },
    // MCP: with the first server connection, beside the MCP SDK.
    { part: "the MCP transports", marker: "function createTransport(" },
    { part: "the MCP token-asking fetch", marker: "McpHostAuth=class" },
    { part: "the MCP server tools' wrapper", marker: "function createMcpTool(" },
  ])("leaves $part off the first session.create: in a module it does not load, reached through a dynamic import", ({ marker }) => {
    const runtimeChunk = readdirSync(bundleDir).find((name) => /^runtime-[A-Z0-9]+\.js$/.test(name))!;
    const createPath = new Set([...staticClosure("cli.js"), ...staticClosure(runtimeChunk)]);
    const chunks = readdirSync(bundleDir).filter((name) => name.endsWith(".js") && !name.endsWith("-worker.js"));
    const sources = new Map(chunks.map((name) => [name, readFileSync(join(bundleDir, name), "utf8")]));
    const homes = chunks.filter((name) => sources.get(name)!.includes(marker));
    expect(homes).toHaveLength(1);
    const home = homes[0]!;
    expect(createPath.has(home), `${home} is loaded by the first session.create`).toBe(false);
    // Some module loads it on demand: a dynamic import of it, or of a module that imports it statically.
    const loadedOnDemand = [...sources.values()].some((source) =>
      [...source.matchAll(/import\("\.\/([^"]+\.js)"\)/g)].some((match) => staticClosure(match[1]!).has(home)),
    );
    expect(loadedOnDemand).toBe(true);
  });

  it("bundles vscode-jsonrpc's common API without its Node entry's transports (IPC, pipes, sockets) (build.mjs)", () => {
    const sources = readdirSync(bundleDir)
      .filter((name) => name.endsWith(".js") && !name.endsWith("-worker.js"))
      .map((name) => readFileSync(join(bundleDir, name), "utf8"));
    expect(sources.some((source) => source.includes("function createMessageConnection("))).toBe(true);
    for (const source of sources) {
      expect(source).not.toContain("function generateRandomPipeName(");
      expect(source).not.toContain("IPCMessageReader=class");
    }
  });

  it("loads node:os neither at start nor with the first session.create: its few users require it on first call (src/node-os.ts)", () => {
    const runtimeChunk = readdirSync(bundleDir).find((name) => /^runtime-[A-Z0-9]+\.js$/.test(name))!;
    const createPath = new Set([...staticClosure("cli.js"), ...staticClosure(runtimeChunk)]);
    for (const name of createPath) expect(readFileSync(join(bundleDir, name), "utf8"), name).not.toMatch(/from\s*"(?:node:)?os"/);
  });

  it.each([
    // `tandem --help` loads the help text; a start that answers ping does not parse it.
    { part: "the --help text", marker: "Usage: tandem [--stdio | --port <n>] [options]" },
    // A runtime on a PostgreSQL store reads the cluster's settings (node id, advertised address, peer links) when it joins.
    { part: "the cluster join at start", marker: "function joinClusterAtStart(" },
  ])("leaves $part off the start path: cli.js does not hold it, a dynamic import loads it", ({ marker }) => {
    const startPath = staticClosure("cli.js");
    const chunks = readdirSync(bundleDir).filter((name) => name.endsWith(".js") && !name.endsWith("-worker.js"));
    const sources = new Map(chunks.map((name) => [name, readFileSync(join(bundleDir, name), "utf8")]));
    const homes = chunks.filter((name) => sources.get(name)!.includes(marker));
    expect(homes).toHaveLength(1);
    const home = homes[0]!;
    expect(startPath.has(home), `${home} is loaded at start`).toBe(false);
    const loadedOnDemand = [...startPath].some((name) => [...sources.get(name)!.matchAll(/import\("\.\/([^"]+\.js)"\)/g)].some((match) => staticClosure(match[1]!).has(home)));
    expect(loadedOnDemand, `nothing on the start path imports ${home} on demand`).toBe(true);
  });

  it("keeps the require banner only in merged chunks whose code names require: the start and the first create run createRequire a few times, not once per chunk (build.mjs)", () => {
    const runtimeChunk = readdirSync(bundleDir).find((name) => /^runtime-[A-Z0-9]+\.js$/.test(name))!;
    for (const name of ["cli.js", runtimeChunk]) {
      const source = readFileSync(join(bundleDir, name), "utf8");
      const banners = source.match(/createRequire as __tandemCreateRequire\d*\}from"node:module"/g) ?? [];
      expect(banners.length, name).toBeGreaterThan(0);
      expect(banners.length, name).toBeLessThanOrEqual(3);
    }
  });

  it("loads the bash parser (web-tree-sitter) only through a dynamic import, from its installed package", () => {
    const chunks = readdirSync(bundleDir).filter((name) => name.endsWith(".js"));
    const sources = chunks.map((name) => readFileSync(join(bundleDir, name), "utf8"));
    expect(sources.some((source) => source.includes('import("web-tree-sitter")'))).toBe(true);
    for (const source of sources) {
      expect(source).not.toMatch(/(?:from|import)\s*"web-tree-sitter"/);
      expect(source).not.toContain("_ts_init"); // web-tree-sitter's own code is not bundled in
    }
  });

  it.each(["", "extension-sdk/"])("bundles zod's English messages only in bundle/%s (the other locales are ~300 KB a process would parse and keep)", (folder) => {
    const chunks = readdirSync(join(bundleDir, folder)).filter((name) => name.endsWith(".js"));
    const sources = chunks.map((name) => readFileSync(join(bundleDir, folder, name), "utf8"));
    const localePattern = /function ([A-Za-z]+)_default\(\)\{return\{localeError:error\d*\(\)\}\}/g;
    const locales = new Set(sources.flatMap((source) => [...source.matchAll(localePattern)].map((match) => match[1])));
    expect([...locales]).toEqual(["en"]);
  });

  it.each([
    { entry: "sql-worker.js", loads: 'import("sql.js")' },
    { entry: "search-worker.js", loads: "nodeGrep" },
  ])("builds the worker thread $entry as an entry of its own, sharing no chunk with the runtime", ({ entry, loads }) => {
    const worker = readFileSync(join(bundleDir, entry), "utf8");
    expect([...worker.matchAll(/(?:from|import)\s*\(?"(\.\/[^"]+)"/g)].map((match) => match[1])).toEqual([]);
    expect(worker).toContain(loads);
    expect(worker).not.toContain("$ZodType");
    // The runtime starts it by name, next to its own chunks (from the chunk of the tool that uses it).
    const starters = readdirSync(bundleDir).filter((name) => name.endsWith(".js") && !name.endsWith("-worker.js") && readFileSync(join(bundleDir, name), "utf8").includes(`workerScriptUrl("${entry}"`));
    expect(starters).toHaveLength(1);
  });
  it("leaves the handlers of lazily loaded method areas out of the runtime chunk, and the protocol in a module of its own (build.mjs)", () => {
    const runtimeChunk = readdirSync(bundleDir).find((name) => /^runtime-[A-Z0-9]+\.js$/.test(name));
    expect(runtimeChunk).toBeDefined();
    const source = readFileSync(join(bundleDir, runtimeChunk!), "utf8");
    // The first session.create loads the runtime chunk: code only other areas use is compiled when one of them is called.
    for (const handlers of ["registerCanvasMethods", "registerPluginMethods", "registerSessionStateMethods", "registerTaskMethods"]) expect(source).not.toContain(`function ${handlers}(`);
    // Tokens and schemas are imported from the protocol's module, so the runtime chunk does not export them to the areas' modules.
    const exported = [...source.matchAll(/export\s*\{([^}]*)\}/g)].flatMap((match) => match[1]!.split(","));
    expect(exported).not.toContain("SessionCanvasList");
    expect(exported).not.toContain("SessionCreate");
    const areaModule = readdirSync(bundleDir).find((name) => name.endsWith(".js") && readFileSync(join(bundleDir, name), "utf8").includes("function registerCanvasMethods"));
    expect(areaModule).toBeDefined();
    expect(readFileSync(join(bundleDir, areaModule!), "utf8")).not.toMatch(new RegExp(`import\\s*\\{[^}]*\\bSessionCanvasList\\b[^}]*\\}\\s*from\\s*"\\./${runtimeChunk!.replace(".", "\\.")}"`));
  });

  it("loads the method areas' tokens with their areas: the first session.create parses the protocol's core only, in one module (build.mjs)", () => {
    const runtimeChunk = readdirSync(bundleDir).find((name) => /^runtime-[A-Z0-9]+\.js$/.test(name))!;
    const loaded = staticClosure(runtimeChunk);
    const sources = new Map([...loaded].map((name) => [name, readFileSync(join(bundleDir, name), "utf8")]));
    const defining = (method: string) => [...sources].filter(([, source]) => source.includes(`defineRequest("${method}"`)).map(([name]) => name);
    // The methods of a session's create and turns are defined in one protocol module beside the runtime chunk.
    const [protocolModule, ...others] = defining("session.create");
    expect(others).toEqual([]);
    expect(protocolModule).not.toBe(runtimeChunk);
    expect(defining("session.send")).toEqual([protocolModule]);
    // No area's tokens: each comes with its area's module, on the first call of one of its methods.
    for (const method of ["session.canvas.list", "session.factory.run", "session.metadata.snapshot", "session.mcp.listTools", "plugins.install", "session.tasks.list", "sessions.list", "session.permissions.modifyRules", "session.name.get"]) {
      expect(defining(method), method).toEqual([]);
      const home = readdirSync(bundleDir).filter((name) => name.endsWith(".js") && readFileSync(join(bundleDir, name), "utf8").includes(`defineRequest("${method}"`));
      expect(home, method).toHaveLength(1);
      expect(loaded.has(home[0]!), method).toBe(false);
    }
    // The protocol's shared shapes and helpers are merged into that module: no module it imports holds protocol code
    // (but the error codes, on the start path in cli.js).
    const protocolSources = (name: string): string[] => {
      const map = join(bundleDir, `${name}.map`);
      const sources = existsSync(map) ? (JSON.parse(readFileSync(map, "utf8")) as { sources: string[] }).sources : [];
      return sources.filter((path) => path.includes("protocol/") && !path.endsWith("protocol/src/errors.ts"));
    };
    expect(protocolSources(protocolModule!).some((path) => path.endsWith("methods.ts") || path.endsWith("methods.js"))).toBe(true);
    for (const imported of staticClosure(protocolModule!)) if (imported !== protocolModule) expect(protocolSources(imported), imported).toEqual([]);
  });
});

/** The bundle's files a module imports statically (`import … from "./x.js"`). */
function importsOf(source: string): string[] {
  return [...source.matchAll(/(?:from|import)\s*"\.\/([^"]+\.js)"/g)].map((match) => match[1]!);
}

/** A bundle file and every bundle file it reaches through static imports: what loading it loads. */
function staticClosure(entry: string): Set<string> {
  const loaded = new Set<string>();
  const pending = [entry];
  while (pending.length > 0) {
    const name = pending.pop()!;
    if (loaded.has(name)) continue;
    loaded.add(name);
    pending.push(...importsOf(readFileSync(join(bundleDir, name), "utf8")));
  }
  return loaded;
}
