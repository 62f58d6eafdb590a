import { isAbsolute, resolve } from "node:path";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { McpServerConfig } from "@tandem/protocol";
import { isRemoteConfig } from "./config.js";
import type { McpSdk } from "./sdk.js";
import type { McpEnvValueMode, McpHost } from "./types.js";

/** A transport, and for local servers the last lines the server wrote to stderr. */
export interface McpTransport {
  transport: Transport;
  /** The last stderr lines of a local server ("" for remote servers), to explain failures. */
  stderrTail(): string;
}

const stderrTailLines = 5;

/**
 * Creates the client transport a server config asks for: stdio for local servers (spawned in the
 * config's `cwd`, relative to the session's working directory), streamable HTTP or SSE for remote
 * ones (with the config's `headers` on every request). A local server's stderr goes to the log.
 *
 * @example
 * const { transport } = createTransport(sdk, "files", { command: "node", args: ["server.js"], tools: ["*"] }, host);
 * await client.connect(transport);
 */
export function createTransport(
  sdk: McpSdk,
  serverName: string,
  config: McpServerConfig,
  host: Pick<McpHost, "logger" | "workingDirectory">,
  envValueMode: McpEnvValueMode = "direct",
  sourceEnv: NodeJS.ProcessEnv = process.env,
  authenticatedFetch?: typeof fetch,
): McpTransport {
  if (isRemoteConfig(config)) {
    const url = new URL(config.url);
    const requestInit: RequestInit = config.headers ? { headers: config.headers } : {};
    const options = { requestInit, ...(authenticatedFetch ? { fetch: authenticatedFetch } : {}) };
    const transport = config.type === "sse" ? new sdk.SSEClientTransport(url, options) : new sdk.StreamableHTTPClientTransport(url, options);
    return { transport, stderrTail: () => "" };
  }
  const cwd = config.cwd ? (isAbsolute(config.cwd) ? config.cwd : resolve(host.workingDirectory, config.cwd)) : host.workingDirectory;
  const transport = new sdk.StdioClientTransport({
    command: config.command,
    args: config.args ?? [],
    // The SDK adds a safe base environment (HOME, PATH, SHELL, TERM, USER, LOGNAME) to these.
    ...(config.env ? { env: resolveEnvValues(config.env, envValueMode, sourceEnv) } : {}),
    cwd,
    stderr: "pipe",
  });
  const tail: string[] = [];
  // Always drain stderr: an unread pipe fills up and blocks the server.
  transport.stderr?.on("data", (chunk: Buffer) => {
    for (const line of chunk.toString("utf8").split("\n")) {
      if (line.trim() === "") continue;
      host.logger.debug(`[mcp:${serverName}] ${line}`);
      tail.push(line.trim());
      if (tail.length > stderrTailLines) tail.shift();
    }
  });
  return { transport, stderrTail: () => tail.join("\n") };
}

/**
 * A local server's environment values in the given mode: as written (`direct`), or with `$NAME` and
 * `${NAME}` replaced by the variable of `sourceEnv` (`indirect`; an unset variable becomes "").
 *
 * @example
 * resolveEnvValues({ TOKEN: "${GH_TOKEN}" }, "indirect", { GH_TOKEN: "abc" }); // { TOKEN: "abc" }
 */
export function resolveEnvValues(env: Record<string, string>, mode: McpEnvValueMode, sourceEnv: NodeJS.ProcessEnv): Record<string, string> {
  if (mode === "direct") return { ...env };
  const reference = /\$\{([A-Za-z_][A-Za-z0-9_]*)\}|\$([A-Za-z_][A-Za-z0-9_]*)/g;
  return Object.fromEntries(
    Object.entries(env).map(([key, value]) => [key, value.replace(reference, (_match, braced: string | undefined, bare: string | undefined) => sourceEnv[braced ?? bare ?? ""] ?? "")]),
  );
}
