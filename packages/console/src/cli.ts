/**
 * `tandem-console [--port N] [--cwd DIR] [--mcp-config FILE]`: starts the runtime through @tandem/sdk, serves the
 * console on 127.0.0.1 and prints its URL (with the access token). Opens nothing by itself.
 * Without a configured provider it starts the testkit's scripted model and says so.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { CopilotClient, type MCPServerConfig } from "@tandem/sdk";
import { ModelServer } from "@tandem/testkit";
import { newAccessToken } from "./auth.js";
import { SessionHub } from "./hub.js";
import { startConsoleServer, type ProviderInfo } from "./server.js";

interface ConsoleArgs {
  port: number;
  cwd: string;
  /** A JSON file `{ "mcpServers": { name: config } }`: MCP servers for every session. */
  mcpConfig?: string;
}

function parseArgs(argv: string[]): ConsoleArgs {
  const args: ConsoleArgs = { port: 0, cwd: process.cwd() };
  for (let index = 0; index < argv.length; index++) {
    const flag = argv[index];
    const value = argv[index + 1];
    if (flag === "--port" && value !== undefined && /^\d+$/.test(value)) {
      args.port = Number.parseInt(value, 10);
      index++;
    } else if (flag === "--cwd" && value !== undefined) {
      args.cwd = resolve(value);
      index++;
    } else if (flag === "--mcp-config" && value !== undefined) {
      args.mcpConfig = resolve(value);
      index++;
    } else if (flag === "--help" || flag === "-h") {
      process.stdout.write("usage: tandem-console [--port N] [--cwd DIR] [--mcp-config FILE]\n");
      process.exit(0);
    } else {
      throw new Error(`unknown argument: ${flag}`);
    }
  }
  return args;
}

/** The MCP servers of `--mcp-config` (the file's `mcpServers` object). */
function readMcpConfig(path: string | undefined): Record<string, MCPServerConfig> | undefined {
  if (!path) return undefined;
  const parsed: unknown = JSON.parse(readFileSync(path, "utf8"));
  const servers = parsed && typeof parsed === "object" ? (parsed as { mcpServers?: unknown }).mcpServers : undefined;
  if (!servers || typeof servers !== "object" || Array.isArray(servers)) throw new Error(`${path}: expected { "mcpServers": { "<name>": { ... } } }`);
  return servers as Record<string, MCPServerConfig>;
}

/** The configured provider, as the runtime reads it from the environment. */
function configuredProvider(env: NodeJS.ProcessEnv): string | undefined {
  return env.COPILOT_API_URL ?? env.OPENAI_BASE_URL ?? (env.OPENAI_API_KEY ? "https://api.openai.com/v1" : undefined);
}

/** Starts everything; resolves once the URL is printed. */
export async function main(argv: string[]): Promise<void> {
  const args = parseArgs(argv);
  const mcpServers = readMcpConfig(args.mcpConfig);
  const env: Record<string, string | undefined> = { ...process.env };
  let model: ModelServer | undefined;
  let scratchHome: string | undefined;
  let provider: ProviderInfo;
  const realProvider = configuredProvider(process.env);
  if (realProvider) {
    provider = { scripted: false, description: `model provider at ${realProvider}` };
  } else {
    model = new ModelServer();
    model.loadScriptFile(fileURLToPath(new URL("../scripts/console-demo.yaml", import.meta.url)));
    const { url } = await model.start();
    // The scripted model's sessions stay out of the user's real session folder.
    scratchHome = env.COPILOT_HOME ? undefined : mkdtempSync(join(tmpdir(), "tandem-console-"));
    Object.assign(env, { COPILOT_API_URL: url, GH_TOKEN: "console-scripted-model", ...(scratchHome ? { COPILOT_HOME: scratchHome } : {}) });
    provider = { scripted: true, description: "No model provider configured: this console talks to the testkit's scripted model (set COPILOT_API_URL + GH_TOKEN, or OPENAI_BASE_URL / OPENAI_API_KEY, for a real one)." };
  }
  const configuredModel = env.TANDEM_MODEL ?? env.COPILOT_MODEL;
  if (configuredModel) provider.model = configuredModel;
  const client = new CopilotClient({ env, logLevel: "error", cwd: args.cwd });
  await client.start();
  const hub = new SessionHub(client, args.cwd, mcpServers);
  const webDir = fileURLToPath(new URL("./web/", import.meta.url));
  const { server, url } = await startConsoleServer({ hub, token: newAccessToken(), webDir, provider, defaultCwd: args.cwd, port: args.port });
  if (provider.scripted) process.stdout.write(`${provider.description}\n`);
  process.stdout.write(`Tandem Console: ${url}\n`);

  let stopping = false;
  const stop = async () => {
    if (stopping) return process.exit(1);
    stopping = true;
    server.closeAllConnections();
    server.close();
    await client.stop().catch(() => undefined);
    await model?.stop().catch(() => undefined);
    if (scratchHome) rmSync(scratchHome, { recursive: true, force: true });
    process.exit(0);
  };
  process.on("SIGINT", () => void stop());
  process.on("SIGTERM", () => void stop());
}
