import { homedir } from "../node-os.js";
import { isAbsolute, resolve } from "node:path";
import type { SandboxConfig } from "@tandem/protocol";
import { parseWarmShells } from "./pool-setting.js";

/** A sandbox config made concrete for one session: absolute paths, every default applied. */
export interface SandboxPolicy {
  enabled: boolean;
  allowBypass: boolean;
  sandboxMcpServers: boolean;
  readwritePaths: string[];
  readonlyPaths: string[];
  deniedPaths: string[];
  network: { allowOutbound: boolean; allowLocalNetwork: boolean; allowedHosts: string[]; blockedHosts: string[] };
}

/**
 * The policy of a session: its own `sandbox` config, else the runtime's default, else off. Paths
 * may start with `~/` (the user's home) and are resolved against the working directory.
 *
 * @example
 * resolveSandboxPolicy({ enabled: true, userPolicy: { filesystem: { readwritePaths: ["out"] } } }, undefined, "/work");
 * // { enabled: true, readwritePaths: ["/work", "/work/out"], … }
 */
export function resolveSandboxPolicy(config: SandboxConfig | undefined, runtimeDefault: SandboxConfig | undefined, workingDirectory: string): SandboxPolicy {
  const chosen = config ?? runtimeDefault;
  const filesystem = chosen?.userPolicy?.filesystem ?? {};
  const network = chosen?.userPolicy?.network ?? {};
  const absolute = (path: string): string => {
    const expanded = path === "~" ? homedir() : path.startsWith("~/") ? resolve(homedir(), path.slice(2)) : path;
    return isAbsolute(expanded) ? resolve(expanded) : resolve(workingDirectory, expanded);
  };
  const withWorkingDirectory = chosen?.addCurrentWorkingDirectory === false ? [] : [workingDirectory];
  return {
    enabled: chosen?.enabled === true,
    allowBypass: chosen?.allowBypass === true,
    sandboxMcpServers: chosen?.sandboxMcpServers !== false,
    readwritePaths: [...withWorkingDirectory, ...(filesystem.readwritePaths ?? [])].map(absolute),
    readonlyPaths: (filesystem.readonlyPaths ?? []).map(absolute),
    deniedPaths: (filesystem.deniedPaths ?? []).map(absolute),
    network: {
      allowOutbound: network.allowOutbound === true,
      allowLocalNetwork: network.allowLocalNetwork === true,
      allowedHosts: (network.allowedHosts ?? []).map((host) => host.toLowerCase()),
      blockedHosts: (network.blockedHosts ?? []).map((host) => host.toLowerCase()),
    },
  };
}

/**
 * The runtime-wide default from `--sandbox` or `TANDEM_SANDBOX`: `on` (enabled, nothing else
 * allowed), `off`, or a `SandboxConfig` as JSON. Throws with a message naming the setting on
 * anything else.
 *
 * @example
 * parseSandboxSetting("on"); // { enabled: true }
 * parseSandboxSetting('{"enabled":true,"allowBypass":true}');
 */
export function parseSandboxSetting(text: string, parse: (value: unknown) => SandboxConfig): SandboxConfig {
  const trimmed = text.trim();
  if (trimmed === "on" || trimmed === "true" || trimmed === "1") return { enabled: true };
  if (trimmed === "off" || trimmed === "false" || trimmed === "0") return { enabled: false };
  let value: unknown;
  try {
    value = JSON.parse(trimmed);
  } catch {
    throw new Error(`--sandbox / TANDEM_SANDBOX must be on, off or a SandboxConfig as JSON (got ${JSON.stringify(text.slice(0, 80))})`);
  }
  try {
    return parse(value);
  } catch (error) {
    const issues = (error as { issues?: Array<{ path: PropertyKey[]; message: string }> }).issues;
    const detail = issues ? issues.map((issue) => `${issue.path.map(String).join(".") || "(root)"}: ${issue.message}`).join("; ") : String(error);
    throw new Error(`--sandbox / TANDEM_SANDBOX is not a valid SandboxConfig (${detail})`);
  }
}

/**
 * The sandbox settings of the whole runtime: the default config from `--sandbox` (else
 * `TANDEM_SANDBOX`), the bubblewrap binary (`TANDEM_BWRAP`, else `bwrap` on PATH), the platform, and
 * the shells kept ready per session (`TANDEM_SANDBOX_POOL`).
 *
 * @example
 * sandboxEnvironmentFrom("on", process.env); // { runtimeDefault: { enabled: true }, bwrapPath: "bwrap", platform: "linux" }
 */
export function sandboxEnvironmentFrom(
  flag: string | undefined,
  env: NodeJS.ProcessEnv,
  parse: (value: unknown) => SandboxConfig,
): { runtimeDefault?: SandboxConfig; bwrapPath: string; platform: NodeJS.Platform; warmShells?: number } {
  const setting = flag ?? (env.TANDEM_SANDBOX === "" ? undefined : env.TANDEM_SANDBOX);
  const warmShells = parseWarmShells(env.TANDEM_SANDBOX_POOL);
  return {
    ...(setting !== undefined ? { runtimeDefault: parseSandboxSetting(setting, parse) } : {}),
    bwrapPath: env.TANDEM_BWRAP || "bwrap",
    platform: process.platform,
    ...(warmShells !== undefined ? { warmShells } : {}),
  };
}
