import { join } from "node:path";
import type { McpServerConfig } from "@tandem/protocol";
import { ErrorCodes, invalidParams, TandemError } from "../errors.js";
import { JsonObjectFile } from "../store/json-object-file.js";

/** The file's shape: servers by name, and the names the user turned off. */
interface McpConfigFile {
  mcpServers: Record<string, Record<string, unknown>>;
  disabledServers?: string[];
}

/**
 * The user's MCP configuration, `<home>/mcp-config.json` (`mcp.config.*`): servers by name and
 * the names turned off. A {@link JsonObjectFile}: each change reads the file, applies one edit and
 * writes it back whole, one after another; a crash leaves the old or the new file, never half of one.
 *
 * @example
 * const config = new McpUserConfig(store.home);
 * await config.add("files", { command: "node", args: ["server.js"], tools: ["*"] });
 * (await config.list()).files; // { command: "node", … }
 */
export class McpUserConfig {
  private readonly file: JsonObjectFile;

  constructor(home: string) {
    this.file = new JsonObjectFile(join(home, "mcp-config.json"));
  }

  /** The file's path. */
  get path(): string {
    return this.file.path;
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

  private async edit(change: (file: McpConfigFile) => void): Promise<void> {
    await this.file.update((current) => {
      const file = this.shape(current);
      change(file);
      return { ...current, ...file };
    });
  }

  private async read(): Promise<McpConfigFile> {
    return this.shape(await this.file.read());
  }

  /** The servers and the names turned off of the file's object; one without a `mcpServers` object is refused. */
  private shape(parsed: Record<string, unknown>): McpConfigFile {
    const servers = parsed.mcpServers ?? {};
    if (typeof servers !== "object" || servers === null || Array.isArray(servers)) {
      throw new TandemError(ErrorCodes.InternalError, `The MCP configuration ${this.path} has no "mcpServers" object; fix or remove it`, { path: this.path });
    }
    const disabled = parsed.disabledServers;
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
