import { spawn } from "node:child_process";
import { realpathSync, statSync } from "node:fs";
import type { SandboxPolicy } from "./policy.js";

/** Where the proxy's unix socket appears inside the sandbox (in its private /tmp). */
export const PROXY_SOCKET_INSIDE = "/tmp/.tandem-proxy.sock";

/** What the sandbox's command line needs beyond the policy. */
export interface BwrapPlacement {
  cwd: string;
  /** The runtime's proxy socket on the host, bound into the sandbox when network access goes through it. */
  proxySocket?: string;
  /** Leave out `--die-with-parent` (a detached shell outlives the runtime). */
  outlivesRuntime?: boolean;
}

/**
 * The bubblewrap arguments (before the program) that enforce `policy`: the whole system read-only,
 * a private `/tmp`, minimal `/dev` and `/proc`, every namespace unshared (network included: the
 * sandbox has only its own loopback), a new session (no terminal injection), no capabilities, and
 * (bwrap always does this) no new privileges. Writable paths come after `/tmp` so a working
 * directory under `/tmp` stays visible; read-only and denied paths come last so they win over a
 * writable parent. Paths that do not exist are skipped (bwrap would refuse to start).
 *
 * @example
 * spawn("/usr/bin/bwrap", [...bwrapArguments(policy, { cwd }), "--", "bash"]);
 */
export function bwrapArguments(policy: SandboxPolicy, placement: BwrapPlacement): string[] {
  const args = ["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp"];
  for (const path of existing(policy.readwritePaths)) args.push("--bind", path, path);
  for (const path of existing(policy.readonlyPaths)) args.push("--ro-bind", path, path);
  for (const path of existing(policy.deniedPaths)) {
    // An empty, read-only directory (or an empty file) hides what is there.
    if (statSync(path).isDirectory()) args.push("--tmpfs", path, "--remount-ro", path);
    else args.push("--ro-bind", "/dev/null", path);
  }
  if (placement.proxySocket) args.push("--bind", placement.proxySocket, PROXY_SOCKET_INSIDE);
  args.push("--unshare-all", "--new-session", "--cap-drop", "ALL");
  if (!placement.outlivesRuntime) args.push("--die-with-parent");
  args.push("--chdir", placement.cwd);
  return args;
}

/** The real paths of those that exist (a symlink is resolved, so the mount covers what it points at). */
function existing(paths: readonly string[]): string[] {
  const found: string[] = [];
  for (const path of paths) {
    try {
      found.push(realpathSync(path));
    } catch {
      // Not there: nothing to bind or hide.
    }
  }
  return found;
}

/**
 * Starts bubblewrap once with a tiny sandbox to learn whether it works here (the binary exists,
 * user namespaces are allowed). Resolves to undefined when it does, else to why not.
 *
 * @example
 * const problem = await probeBwrap("/usr/bin/bwrap"); // undefined, or "bwrap: No permissions to create new namespace…"
 */
export function probeBwrap(bwrapPath: string): Promise<string | undefined> {
  return new Promise((resolve) => {
    const child = spawn(bwrapPath, ["--ro-bind", "/", "/", "--unshare-all", "--new-session", "--die-with-parent", "--", "true"], {
      stdio: ["ignore", "ignore", "pipe"],
    });
    let stderr = "";
    child.stderr.on("data", (chunk: Buffer) => {
      if (stderr.length < 2000) stderr += chunk.toString("utf8");
    });
    child.on("error", (error: NodeJS.ErrnoException) =>
      resolve(error.code === "ENOENT" ? `bubblewrap was not found at ${bwrapPath} (install the bubblewrap package)` : `bubblewrap could not be started (${error.message})`),
    );
    child.on("close", (code, signal) => {
      if (code === 0) return resolve(undefined);
      const detail = stderr.trim() || (signal ? `killed by ${signal}` : `exit code ${String(code)}`);
      resolve(`bubblewrap failed to create a sandbox (${detail}); user namespaces may be disabled on this host`);
    });
  });
}
