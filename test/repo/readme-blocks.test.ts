/**
 * The README's code runs. Every fenced block of the root README (the packages' READMEs have none)
 * is classified: JavaScript and TypeScript are compiled and run against the built packages with
 * the testkit's scripted model server standing in for the provider; shell lines are run when they
 * are safe to run here, and each one that is not is listed below with the reason; JSON must parse
 * (and a permission request must be one). A block nobody classified fails the test, so a new
 * block is either run or explicitly excused.
 */
import { execFile } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { PermissionRequest } from "@tandem/protocol";
import { CopilotClient } from "@tandem/sdk";
import { ModelServer } from "@tandem/testkit";
import { transform } from "esbuild";
import { afterEach, describe, expect, it } from "vitest";
import { startRecordingProxy } from "../../packages/runtime/test/providers/recording-proxy.js";
import { scriptsDir } from "../helpers/harness.js";

const repoRoot = fileURLToPath(new URL("../..", import.meta.url));
const readmePath = join(repoRoot, "README.md");

/** One fenced block: its info string, its text and the line its fence opens on. */
interface Block {
  lang: string;
  text: string;
  line: number;
}

/** The fenced blocks of a Markdown file. */
function fencedBlocks(markdown: string): Block[] {
  const blocks: Block[] = [];
  let open: { lang: string; line: number; lines: string[] } | undefined;
  markdown.split("\n").forEach((line, index) => {
    const fence = /^```(\S*)\s*$/.exec(line);
    if (!open) {
      if (fence) open = { lang: fence[1] ?? "", line: index + 1, lines: [] };
      return;
    }
    if (line.startsWith("```")) {
      blocks.push({ lang: open.lang, text: open.lines.join("\n"), line: open.line });
      open = undefined;
      return;
    }
    open.lines.push(line);
  });
  if (open) throw new Error(`README.md: the block opened on line ${open.line} is never closed`);
  return blocks;
}

/** Where a run's files go: inside the repository, so `@tandem/*`, `zod` and the SDKs resolve from its `node_modules`. */
const scratchRoot = join(repoRoot, "node_modules", ".cache", "readme-blocks");
const cleanups: Array<() => Promise<void> | void> = [];

afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function scratchDir(): string {
  mkdirSync(scratchRoot, { recursive: true });
  const dir = mkdtempSync(join(scratchRoot, "run-"));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** A fresh testkit model server with the named scripts (`test/scripts/<name>.yaml`), and a scratch home. */
async function modelWorld(scripts: readonly string[]): Promise<{ server: ModelServer; url: string; env: Record<string, string> }> {
  const server = new ModelServer();
  for (const name of scripts) server.loadScriptFile(join(scriptsDir, `${name}.yaml`));
  const { url } = await server.start();
  cleanups.push(() => server.stop());
  const home = mkdtempSync(join(tmpdir(), "tandem-readme-"));
  cleanups.push(() => rmSync(home, { recursive: true, force: true }));
  return { server, url, env: { PATH: process.env.PATH ?? "", HOME: home, COPILOT_HOME: home, COPILOT_API_URL: url, GH_TOKEN: "test-token" } };
}

interface RunResult {
  code: number;
  stdout: string;
  stderr: string;
}

function run(command: string, args: readonly string[], options: { cwd: string; env: Record<string, string>; timeoutMs?: number }): Promise<RunResult> {
  return new Promise((resolve) => {
    execFile(command, args, { cwd: options.cwd, env: options.env, timeout: options.timeoutMs ?? 90_000, maxBuffer: 16 * 1024 * 1024 }, (error, stdout, stderr) => {
      const code = error ? (typeof error.code === "number" ? error.code : 1) : 0;
      resolve({ code, stdout, stderr: error && typeof error.code !== "number" ? `${stderr}\n${error.message}` : stderr });
    });
  });
}

/** Compiles a block (TypeScript or JavaScript, ESM with top-level await) and runs it with Node in `dir`. */
async function runModule(source: string, lang: string, dir: string, env: Record<string, string>, name = "block.mjs"): Promise<RunResult> {
  const { code } = await transform(source, { loader: lang === "ts" ? "ts" : "js", format: "esm", target: "node20" });
  writeFileSync(join(dir, name), code);
  return run(process.execPath, [name], { cwd: dir, env });
}

function expectSuccess(result: RunResult, what: string): void {
  expect(result.code, `${what} failed:\n${result.stdout}\n${result.stderr}`).toBe(0);
}

/** What the scripted model answers first (`test/scripts/plain-reply.yaml`). */
const plainReply = "Hello from the scripted model.";

/** The block `// app.mjs` of "Install": the application the provider examples run. */
function appBlock(blocks: readonly Block[]): Block {
  const app = blocks.find((block) => block.text.startsWith("// app.mjs"));
  if (!app) throw new Error("README.md has no `// app.mjs` block");
  return app;
}

/**
 * A 1.0.x block's imports: this repository installs the official SDK 1.0.x under the alias
 * `copilot-sdk-v1` (0.2.0 under its own name). Other blocks are left as they are.
 */
function officialSdkAlias(text: string): string {
  if (!text.includes("RuntimeConnection")) return text;
  return text.replaceAll('from "@github/copilot-sdk"', 'from "copilot-sdk-v1"');
}

/** A snippet that uses `client` (the provider examples): made a whole program around an `@tandem/sdk` client. */
function aroundClient(snippet: string): string {
  return [
    'import { CopilotClient, approveAll } from "@tandem/sdk";',
    "const client = new CopilotClient();",
    snippet,
    'console.log((await session.sendAndWait({ prompt: "Say hello" }))?.data.content);',
    "await client.stop();",
  ].join("\n");
}

/**
 * How each shell command is treated: run here (`run`), or not, with the reason. Commands are the
 * block's lines (comments removed) split at `&&`.
 */
interface ShellRule {
  matches: (command: string) => boolean;
  run?: (command: string, blocks: readonly Block[]) => Promise<void>;
  /** Why it cannot run in a test. */
  excluded?: string;
}

/** `VAR=value … node app.mjs` against the testkit: the values that point at a real provider are replaced. */
async function runAppWithEnvironment(command: string, blocks: readonly Block[], replacements: Record<string, (url: string) => string>): Promise<void> {
  const assignments = command.replace(/\s*node app\.mjs$/, "");
  const { url, env, server } = await modelWorld(["plain-reply"]);
  // Only what the command sets reaches the provider choice: the world's Copilot variables go.
  delete env.COPILOT_API_URL;
  delete env.GH_TOKEN;
  for (const match of assignments.matchAll(/(\w+)=("[^"]*"|\S+)/g)) {
    const name = match[1] ?? "";
    const replace = replacements[name];
    env[name] = replace ? replace(url) : (match[2] ?? "");
  }
  const dir = scratchDir();
  const result = await runModule(appBlock(blocks).text, "js", dir, env, "app.mjs");
  expectSuccess(result, command);
  expect(result.stdout).toContain(plainReply);
  expect(server.requests.length).toBeGreaterThan(0);
}

const shellRules: ShellRule[] = [
  { matches: (command) => command === "npm ci", excluded: "reinstalls the node_modules of the checkout these tests run from; the suite runs after it" },
  { matches: (command) => command === "npm test", excluded: "the whole suite, this test among it" },
  {
    matches: (command) => command === "npm run demo",
    run: async () => {
      const { env } = await modelWorld([]);
      // The demo starts its own scripted model when no provider is configured.
      delete env.COPILOT_API_URL;
      delete env.GH_TOKEN;
      const result = await run("npm", ["run", "demo"], { cwd: repoRoot, env });
      expectSuccess(result, "npm run demo");
      expect(result.stdout).toContain("using the testkit's scripted model");
    },
  },
  {
    matches: (command) => command === "npm run pack",
    run: async () => {
      // Into a scratch folder rather than the checkout's `packs/` (`--out`, as the script offers).
      const out = scratchDir();
      const result = await run("npm", ["run", "pack", "--", "--out", out], { cwd: repoRoot, env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? tmpdir() }, timeoutMs: 180_000 });
      expectSuccess(result, "npm run pack");
      expect(readdirSync(out).filter((file) => file.endsWith(".tgz")).sort()).toEqual(
        ["tandem-console", "tandem-protocol", "tandem-runtime", "tandem-sdk", "tandem-testkit"].map((name) => expect.stringMatching(new RegExp(`^${name}-.*\\.tgz$`))),
      );
      expect(result.stdout).toContain("npm install");
    },
  },
  {
    matches: (command) => command.startsWith("npm install /path/to/tandem/packs/"),
    excluded: "installing the tarballs in another project is what test/e2e/install.test.ts does (a fresh project outside the repository, then an app run there)",
  },
  {
    matches: (command) => command.startsWith("COPILOT_API_URL=https://api.githubcopilot.com ") && command.endsWith(" node app.mjs"),
    // The Copilot API is replaced by the testkit, `gh auth token` by a test token.
    run: (command, blocks) => runAppWithEnvironment(command, blocks, { COPILOT_API_URL: (url) => url, GH_TOKEN: () => "test-token" }),
  },
  {
    matches: (command) => command.startsWith("OPENAI_BASE_URL=http://localhost:11434/v1 ") && command.endsWith(" node app.mjs"),
    // Ollama is replaced by the testkit (an OpenAI-compatible server).
    run: (command, blocks) => runAppWithEnvironment(command, blocks, { OPENAI_BASE_URL: (url) => `${url}/v1` }),
  },
  { matches: (command) => command.startsWith("OPENAI_API_KEY=sk-... "), excluded: "OpenAI itself, with a real key, over the network (the same variables run against the testkit in the Ollama line)" },
  { matches: (command) => command.startsWith("tandem store import "), excluded: "needs a PostgreSQL server (test/e2e/postgres-store.test.ts runs the import against a throwaway one)" },
  {
    matches: (command) => command.startsWith("export TANDEM_STORE_URL=") || command.startsWith("export COPILOT_CONNECTION_TOKEN=") || command.startsWith("tandem --host 0.0.0.0 --port 4321 --node-id "),
    excluded: "three machines sharing a PostgreSQL database (the cluster's tests run nodes on one machine against a throwaway server)",
  },
];

/** The shell commands of a block: lines without comments, split at `&&`. */
function shellCommands(block: Block): string[] {
  return block.text
    .split("\n")
    .map((line) => line.replace(/\s+#.*$/, "").trim())
    .filter((line) => line !== "" && !line.startsWith("#"))
    .flatMap((line) => line.split("&&").map((command) => command.trim()));
}

/** How a block that is not shell is treated, found by a text only it contains. */
interface BlockRule {
  signature: string;
  run?: (block: Block, blocks: readonly Block[]) => Promise<void>;
  excluded?: string;
}

/** A program block run against the testkit; `check` looks at what it printed and what the model was asked. */
function programRule(signature: string, scripts: readonly string[], check: (stdout: string, server: ModelServer) => void, rewrite: (text: string, url: string) => string = (text) => text): BlockRule {
  return {
    signature,
    run: async (block) => {
      const { server, url, env } = await modelWorld(scripts);
      const result = await runModule(rewrite(block.text, url), block.lang, scratchDir(), env);
      expectSuccess(result, `the block on line ${block.line}`);
      check(result.stdout, server);
    },
  };
}

const blockRules: BlockRule[] = [
  programRule("// app.mjs", ["plain-reply"], (stdout) => expect(stdout).toContain(plainReply)),
  programRule('defineTool("get_weather"', ["readme-weather"], (stdout, server) => {
    expect(stdout).toContain("It is 24 °C in Lisbon.");
    expect(server.requests.map((request) => request.expectationError).filter(Boolean)).toEqual([]);
  }),
  programRule(
    "RuntimeConnection.forStdio",
    ["plain-reply"],
    (stdout) => expect(stdout.split("\n").filter((line) => line === plainReply)).toHaveLength(2),
    officialSdkAlias,
  ),
  programRule("new CopilotClient({ cliPath: tandem })", ["plain-reply"], (stdout) => expect(stdout).toContain(plainReply)),
  // The provider examples: each snippet's `createSession` against the testkit, which speaks that wire format.
  programRule(
    'wireApi: "responses"',
    ["plain-reply"],
    (stdout, server) => {
      expect(stdout).toContain(plainReply);
      expect(server.requests.map((request) => request.path)).toContain("/v1/responses");
    },
    (text, url) => aroundClient(text.replace("https://api.openai.com/v1", `${url}/v1`).replace("process.env.OPENAI_API_KEY", '"test-key"')),
  ),
  programRule(
    'type: "anthropic"',
    ["plain-reply"],
    (stdout, server) => {
      expect(stdout).toContain(plainReply);
      expect(server.requests.map((request) => request.path)).toContain("/v1/messages");
    },
    (text, url) => aroundClient(text.replace("https://api.anthropic.com", url).replace("process.env.ANTHROPIC_API_KEY", '"test-key"')),
  ),
  {
    signature: 'type: "azure"',
    // The testkit serves `/chat/completions`; a proxy in front of it maps Azure's deployment paths there.
    run: async (block) => {
      const { url, env } = await modelWorld(["plain-reply"]);
      const { proxy, close } = await startRecordingProxy(url);
      cleanups.push(close);
      const program = aroundClient(block.text.replace("https://my-resource.openai.azure.com", proxy.url).replace("process.env.AZURE_OPENAI_API_KEY", '"test-key"'));
      const result = await runModule(program, block.lang, scratchDir(), env);
      expectSuccess(result, `the block on line ${block.line}`);
      expect(result.stdout).toContain(plainReply);
      expect(proxy.requests.map((request) => request.url)).toContain("/openai/deployments/my-gpt-4o-deployment/chat/completions?api-version=2024-10-21");
    },
  },
  {
    signature: 'import { joinSession } from "@tandem/sdk/extension"',
    // Installed as the user's extension (those start without a consent question); the model calls its tool.
    run: async (block) => {
      const { server, env } = await modelWorld(["readme-extension"]);
      const extensionDir = join(env.COPILOT_HOME ?? "", "extensions", "deploy");
      mkdirSync(extensionDir, { recursive: true });
      writeFileSync(join(extensionDir, "extension.mjs"), block.text);
      const project = scratchDir();
      const client = new CopilotClient({ env, cwd: project });
      cleanups.push(() => client.stop().then(() => undefined));
      const session = await client.createSession({ onPermissionRequest: () => ({ kind: "approved" }), workingDirectory: project });
      const reply = await session.sendAndWait({ prompt: "Deploy the app" }, 60_000);
      expect(reply?.data.content).toBe("The app is deployed.");
      expect(server.requests.map((request) => request.expectationError).filter(Boolean)).toEqual([]);
    },
  },
  {
    signature: '"kind": "extension-management"',
    run: async (block) => {
      expect(PermissionRequest.safeParse(JSON.parse(block.text)).success).toBe(true);
    },
  },
  {
    signature: '"trustedFolders"',
    run: async (block) => {
      expect(JSON.parse(block.text)).toEqual({ trustedFolders: [expect.any(String)] });
    },
  },
  programRule(
    "sandbox: {\n    enabled: true,",
    ["plain-reply"],
    (stdout) => {
      expect(stdout).toContain(plainReply);
      expect(JSON.parse(stdout.split("\n").find((line) => line.startsWith("{")) ?? "{}")).toMatchObject({ enabled: true, enforced: true, mechanism: "bubblewrap" });
    },
    (text) =>
      aroundClient(`${text}\nconsole.log(JSON.stringify(await session.rpc.sandbox.getEnforcementStatus()));`),
  ),
  {
    signature: " composition   index.ts",
    run: async (block) => {
      // The layer drawing names every folder of the runtime's source, and only those.
      const drawn = [...block.text.matchAll(/(?<![\w/])([a-z-]+)\//g)].map((match) => match[1]).sort();
      const source = join(repoRoot, "packages", "runtime", "src");
      const folders = readdirSync(source, { withFileTypes: true }).filter((entry) => entry.isDirectory()).map((entry) => entry.name).sort();
      expect(drawn).toEqual(folders);
    },
  },
  {
    signature: 'cliUrls: ["10.0.0.11:4321"',
    excluded: "three machines' nodes (test/e2e/sdk-failover.test.ts runs the SDK with two node URLs against real nodes on one machine and kills one)",
  },
  { signature: "# haproxy.cfg", excluded: "an HAProxy configuration excerpt, for a load balancer that is not installed here" },
];

const blocks = fencedBlocks(readFileSync(readmePath, "utf8"));

describe("README.md code blocks", () => {
  it("every block is run or explicitly excused, by exactly one rule", () => {
    const unclassified: string[] = [];
    for (const block of blocks) {
      if (block.lang === "sh") {
        for (const command of shellCommands(block)) {
          const rules = shellRules.filter((rule) => rule.matches(command));
          if (rules.length !== 1) unclassified.push(`line ${block.line}: \`${command}\` matches ${rules.length} shell rules`);
        }
        continue;
      }
      const rules = blockRules.filter((rule) => block.text.includes(rule.signature));
      if (rules.length !== 1) unclassified.push(`line ${block.line} (${block.lang || "no language"}): matches ${rules.length} block rules`);
    }
    expect(unclassified).toEqual([]);
    // Every rule still has its block: a rule for text the README no longer has is stale.
    for (const rule of blockRules) expect(blocks.some((block) => block.text.includes(rule.signature)), rule.signature).toBe(true);
  });

  it("the TypeScript blocks typecheck (strict) against the built packages' types", async () => {
    const dir = scratchDir();
    const files = blocks
      .filter((block) => block.lang === "ts")
      .map((block) => {
        const file = `block-${block.line}.ts`;
        writeFileSync(join(dir, file), `${officialSdkAlias(block.text)}\nexport {};\n`);
        return file;
      });
    expect(files.length).toBeGreaterThan(0);
    const compilerOptions = { strict: true, module: "nodenext", moduleResolution: "nodenext", target: "es2022", noEmit: true, skipLibCheck: true, types: ["node"] };
    writeFileSync(join(dir, "tsconfig.json"), JSON.stringify({ compilerOptions, files }));
    const result = await run(process.execPath, [join(repoRoot, "node_modules/typescript/bin/tsc"), "-p", dir], { cwd: dir, env: { PATH: process.env.PATH ?? "" } });
    expect(result.stdout + result.stderr).toBe("");
  }, 120_000);

  for (const block of blocks) {
    if (block.lang === "sh") {
      for (const command of shellCommands(block)) {
        const rule = shellRules.find((candidate) => candidate.matches(command));
        const runRule = rule?.run;
        if (!runRule) continue;
        it(`line ${block.line}: \`${command}\``, () => runRule(command, blocks), 240_000);
      }
      continue;
    }
    const rule = blockRules.find((candidate) => block.text.includes(candidate.signature));
    const runRule = rule?.run;
    if (!runRule) continue;
    it(`line ${block.line} (${block.lang || "no language"}): ${rule.signature}`, () => runRule(block, blocks), 120_000);
  }
});
