import { mkdir, readFile, rename, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import type { McpServerConfig } from "@tandem/protocol";
import { ErrorCodes, invalidParams, TandemError } from "../errors.js";

/** The file's shape: servers by name, and the names the user turned off. */
interface McpConfigFile {
  mcpServers: Record<string, Record<string, unknown>>;
  disabledServers?: string[];
}

/**
 * The user's MCP configuration, `<home>/mcp-config.json` (`mcp.config.*`): servers by name and
 * the names turned off. Each change reads the file, applies one edit and writes it back through a
 * temporary file and a rename, so a crash leaves the old or the new file, never half of one. Edits
 * run one after another.
 *
 * @example
 * const config = new McpUserConfig(store.home);
 * await config.add("files", { command: "node", args: ["server.js"], tools: ["*"] });
 * (await config.list()).files; // { command: "node", … }
 */
export class McpUserConfig {
  readonly path: string;
  private queue: Promise<unknown> = Promise.resolve();

  constructor(home: string) {
    this.path = join(home, "mcp-config.json");
  }

  /** The configured servers by name; an enabled/disabled mark is not part of a server's config. */
  async list(): Promise<Record<string, Record<string, unknown>>> {
    return (await this.read()).mcpServers;
  }

  /** The names turned off with {@link disable}. */
  async disabledNames(): Promise<string[]> {
    return (await this.read()).disabledServers ?? [];
  }

  /** Adds a server; a name already configured is refused. */
  add(name: string, config: McpServerConfig): Promise<void> {
    return this.edit((file) => {
      checkName(name);
      if (Object.hasOwn(file.mcpServers, name)) throw invalidParams(`MCP server "${name}" is already configured in ${this.path}; use mcp.config.update to change it`, { name });
      file.mcpServers[name] = { ...config };
    });
  }

  /** Replaces a configured server's config. */
  update(name: string, config: McpServerConfig): Promise<void> {
    return this.edit((file) => {
      this.require(file, name);
      file.mcpServers[name] = { ...config };
    });
  }

  /** Removes a configured server (and its disabled mark). */
  remove(name: string): Promise<void> {
    return this.edit((file) => {
      this.require(file, name);
      delete file.mcpServers[name];
      file.disabledServers = (file.disabledServers ?? []).filter((disabled) => disabled !== name);
    });
  }

  /** Turns servers on or off; every name must be configured. */
  setEnabled(names: readonly string[], enabled: boolean): Promise<void> {
    return this.edit((file) => {
      for (const name of names) this.require(file, name);
      const disabled = new Set(file.disabledServers ?? []);
      for (const name of names) {
        if (enabled) disabled.delete(name);
        else disabled.add(name);
      }
      file.disabledServers = [...disabled].sort();
    });
  }

  /** Reads the file and checks it parses; a broken file is reported, not overwritten. */
  async reload(): Promise<void> {
    await this.read();
  }

  private require(file: McpConfigFile, name: string): void {
    if (!Object.hasOwn(file.mcpServers, name)) throw invalidParams(`MCP server "${name}" is not configured in ${this.path}`, { name });
  }

  private edit(change: (file: McpConfigFile) => void): Promise<void> {
    const next = this.queue.then(async () => {
      const file = await this.read();
      change(file);
      await mkdir(dirname(this.path), { recursive: true });
      const temporary = `${this.path}.${process.pid}.tmp`;
      await writeFile(temporary, `${JSON.stringify(file, null, 2)}\n`, { mode: 0o600 });
      await rename(temporary, this.path);
    });
    this.queue = next.catch(() => undefined);
    return next;
  }

  private async read(): Promise<McpConfigFile> {
    let text: string;
    try {
      text = await readFile(this.path, "utf8");
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return { mcpServers: {} };
      throw error;
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch (error) {
      throw new TandemError(ErrorCodes.InternalError, `The MCP configuration ${this.path} is not valid JSON (${(error as Error).message}); fix or remove it`, { path: this.path });
    }
    const servers = (parsed as { mcpServers?: unknown } | null)?.mcpServers ?? {};
    if (typeof servers !== "object" || servers === null || Array.isArray(servers)) {
      throw new TandemError(ErrorCodes.InternalError, `The MCP configuration ${this.path} has no "mcpServers" object; fix or remove it`, { path: this.path });
    }
    const disabled = (parsed as { disabledServers?: unknown }).disabledServers;
    return {
      mcpServers: { ...(servers as Record<string, Record<string, unknown>>) },
      ...(Array.isArray(disabled) ? { disabledServers: disabled.filter((name): name is string => typeof name === "string") } : {}),
    };
  }
}

/** Names that would not survive as keys of the file's JSON object. */
function checkName(name: string): void {
  if (name === "__proto__" || name.trim() === "") throw invalidParams(`"${name}" cannot name an MCP server`, { name });
}
