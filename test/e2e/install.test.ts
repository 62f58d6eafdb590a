import { execFile, spawn, type ChildProcess } from "node:child_process";
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { scriptsDir } from "../helpers/harness.js";

const run = promisify(execFile);
const repoRoot = fileURLToPath(new URL("../../", import.meta.url));
const packages = ["@tandem/protocol", "@tandem/runtime", "@tandem/sdk", "@tandem/testkit", "@tandem/console"] as const;

/** What `npm pack --json` reports per package. */
interface PackReport {
  name: string;
  filename: string;
  files: Array<{ path: string }>;
}

/** npm's environment without what an outer `npm`/`npx` run exported (workspace, prefix, …). */
function npmEnv(): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.toLowerCase().startsWith("npm_")));
}

/**
 * A small app: one session through our SDK, the official 0.2.0 (`cliPath`) and 1.0.x
 * (`RuntimeConnection.forStdio`); then one whose extension (in `EXT_REPO`, outside the project)
 * imports `@tandem/sdk/extension` without having it installed and registers `/greet`.
 */
const app = `
import { createRequire } from "node:module";
import { CopilotClient as TandemClient, approveAll as tandemApproveAll } from "@tandem/sdk";
import { CopilotClient as OfficialClient, approveAll } from "@github/copilot-sdk";
import { CopilotClient as V1Client, RuntimeConnection, approveAll as v1ApproveAll } from "copilot-sdk-v1";

const require = createRequire(import.meta.url);
const tandemBin = require.resolve("@tandem/runtime/bin/tandem.js");
const replies = {};
async function converse(name, client, onPermissionRequest) {
  const session = await client.createSession({ onPermissionRequest });
  const reply = await session.sendAndWait({ prompt: "hello from " + name });
  replies[name] = reply?.data.content;
  await client.stop();
}
await converse("@tandem/sdk", new TandemClient({ logLevel: "error" }), tandemApproveAll);
await converse("official 0.2.0", new OfficialClient({ cliPath: tandemBin, logLevel: "error" }), approveAll);
await converse("official 1.0.x", new V1Client({ connection: RuntimeConnection.forStdio({ path: tandemBin }), logLevel: "error" }), v1ApproveAll);
// An extension outside this project (nothing installed next to it) registers a slash command.
const withExtension = new TandemClient({ logLevel: "error" });
const extensionSession = await withExtension.createSession({ onPermissionRequest: tandemApproveAll, workingDirectory: process.env.EXT_REPO });
await extensionSession.sendAndWait({ prompt: "/greet packed world" });
await withExtension.stop();
const runtime = await import("@tandem/runtime");
console.log(JSON.stringify({ tandemBin, replies, runtimeVersion: runtime.runtimeVersion }));
`;

describe("the packed packages in a fresh project outside the workspace", () => {
  let root = "";
  let project = "";
  const reports = new Map<string, PackReport>();
  let modelServer: ChildProcess | undefined;
  let installWarnings = "";

  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), "tandem-install-"));
    project = join(root, "app");
    const tarballs = join(root, "tarballs");
    mkdirSync(project);
    mkdirSync(tarballs);
    // The README's way: `npm run pack` writes the whole set.
    const packed = await run(process.execPath, [join(repoRoot, "scripts", "pack.mjs"), "--out", tarballs, "--json"], { cwd: repoRoot, env: npmEnv(), maxBuffer: 64 * 1024 * 1024 });
    for (const report of JSON.parse(packed.stdout) as PackReport[]) reports.set(report.name, report);

    writeFileSync(join(project, "package.json"), JSON.stringify({ name: "fresh-app", private: true, type: "module" }));
    const install = [
      "install",
      "--prefer-offline",
      "--no-audit",
      "--no-fund",
      "--ignore-scripts",
      // The official SDKs' optional platform binaries (hundreds of MB) are not needed to drive tandem.
      "--omit=optional",
      ...packages.map((name) => join(tarballs, reports.get(name)?.filename ?? `${name} was not packed`)),
      "@github/copilot-sdk@0.2.0",
      "copilot-sdk-v1@npm:@github/copilot-sdk@1.0.14",
    ];
    installWarnings = (await run("npm", install, { cwd: project, env: npmEnv(), maxBuffer: 64 * 1024 * 1024 })).stderr;
  }, 300_000);

  afterAll(() => {
    modelServer?.kill();
    // The fresh project holds a whole node_modules tree: removing it takes a while on a busy machine.
    if (root) rmSync(root, { recursive: true, force: true });
  }, 120_000);

  it("installs on this Node without engine warnings for anything the Tandem packages bring", () => {
    // npm names each package whose `engines` this Node does not satisfy: `package: 'name@version'`.
    const unsupported = [...installWarnings.matchAll(/EBADENGINE[\s\S]*?package: '([^']+)'/g)].map((match) => match[1]!);
    // The official SDKs installed beside ours for the interop checks bring their own runtime; not ours to pin.
    expect(unsupported.filter((name) => !name.startsWith("@github/"))).toEqual([]);
  });

  it("installs the console with the set: npx tandem-console runs in the project", async () => {
    const { stdout } = await run("npx", ["--no-install", "tandem-console", "--help"], { cwd: project, env: npmEnv(), timeout: 60_000 });
    expect(stdout).toContain("usage: tandem-console");
  });

  it("packs the runtime's bundle and bin without the tsc output's JavaScript", () => {
    const files = reports.get("@tandem/runtime")?.files.map((file) => file.path) ?? [];
    expect(files).toEqual(expect.arrayContaining(["package.json", "bin/tandem.js", "bundle/cli.js", "bundle/index.js", "dist/index.d.ts"]));
    expect(files.filter((path) => path.startsWith("dist/") && !path.endsWith(".d.ts"))).toEqual([]);
  });

  it("packs the testkit with its bin and no sources, tests or source maps", () => {
    const files = reports.get("@tandem/testkit")?.files.map((file) => file.path) ?? [];
    expect(files).toEqual(expect.arrayContaining(["bin/tandem-testkit.js", "dist/index.js", "dist/cli.js", "dist/index.d.ts"]));
    expect(files.filter((path) => /^(src|test)\//.test(path) || path.endsWith(".map") || path.endsWith(".tsbuildinfo"))).toEqual([]);
  });

  it("packs no source maps or build info of tsc in any package", () => {
    for (const name of packages) {
      const files = reports.get(name)?.files.map((file) => file.path) ?? [];
      expect(files.filter((path) => path.startsWith("dist/") && (path.endsWith(".map") || path.endsWith(".tsbuildinfo"))), name).toEqual([]);
    }
  });

  it("runs an app through our SDK and the official 0.2.0 and 1.0.x against the packed testkit's model server, and an extension with a command", async () => {
    copyFileSync(join(scriptsDir, "plain-reply.yaml"), join(project, "plain-reply.yaml"));
    writeFileSync(join(project, "app.mjs"), app);
    const server = spawn(join(project, "node_modules", ".bin", "tandem-testkit"), ["serve", "plain-reply.yaml"], { cwd: project, stdio: ["ignore", "pipe", "inherit"] });
    modelServer = server;
    const modelUrl = await new Promise<string>((resolve, reject) => {
      let output = "";
      server.stdout?.on("data", (chunk: Buffer) => {
        output += chunk.toString("utf8");
        const listening = /model server listening on (\S+)/.exec(output);
        if (listening?.[1]) resolve(listening[1]);
      });
      server.once("error", reject);
      server.once("exit", (code) => reject(new Error(`tandem-testkit exited with ${code}: ${output}`)));
    });
    const home = join(root, "home");
    mkdirSync(home);
    const extRepo = join(root, "ext-repo");
    const greeted = join(root, "greeted.txt");
    mkdirSync(join(extRepo, ".github", "extensions", "greeter"), { recursive: true });
    writeFileSync(
      join(extRepo, ".github", "extensions", "greeter", "extension.mjs"),
      `import { writeFileSync } from "node:fs";
import { joinSession } from "@tandem/sdk/extension";
await joinSession({ commands: [{ name: "greet", handler: ({ args }) => writeFileSync(${JSON.stringify(greeted)}, "hello " + args) }] });
`,
    );
    const env = { PATH: process.env.PATH ?? "", HOME: home, COPILOT_HOME: home, COPILOT_API_URL: modelUrl, GH_TOKEN: "test-token", EXT_REPO: extRepo };
    const { stdout } = await run(process.execPath, ["app.mjs"], { cwd: project, env, timeout: 60_000 });
    const result = JSON.parse(stdout.trim().split("\n").at(-1) ?? "") as { tandemBin: string; replies: Record<string, string>; runtimeVersion: string };

    expect(result.tandemBin).toBe(join(project, "node_modules", "@tandem", "runtime", "bin", "tandem.js"));
    expect(result.replies).toEqual({
      "@tandem/sdk": "Hello from the scripted model.",
      "official 0.2.0": "Hello from the scripted model.",
      "official 1.0.x": "Hello from the scripted model.",
    });
    expect(result.runtimeVersion).toBe("0.1.0");
    expect(readFileSync(greeted, "utf8")).toBe("hello packed world");
  }, 90_000);
});
