import { spawn } from "node:child_process";
import { access, constants } from "node:fs/promises";
import { delimiter, join } from "node:path";

/** What a ripgrep run printed. */
export interface RipgrepResult {
  exitCode: number | null;
  stdout: string;
  stderr: string;
  /** stdout went past the limit and was cut. */
  truncated: boolean;
}

/**
 * Finds the `rg` binary on PATH (once) and runs it. The file search tools use it when present and
 * fall back to their own Node implementation otherwise.
 *
 * @example
 * const ripgrep = new Ripgrep();
 * if (await ripgrep.available()) await ripgrep.run(["--files", "."], { cwd, signal });
 */
export class Ripgrep {
  private located: Promise<string | undefined> | undefined;

  /** @param path The binary to use; `null` disables ripgrep; default: look for `rg` on PATH. */
  constructor(private readonly path?: string | null) {}

  /** The binary's path, or undefined when there is none. */
  locate(): Promise<string | undefined> {
    if (this.path === null) return Promise.resolve(undefined);
    if (this.path !== undefined) return Promise.resolve(this.path);
    this.located ??= findOnPath("rg");
    return this.located;
  }

  async available(): Promise<boolean> {
    return (await this.locate()) !== undefined;
  }

  /** Runs rg with `args`; stdout is kept up to `maxOutputBytes` (default 20 MB). */
  async run(args: string[], options: { cwd: string; signal: AbortSignal; maxOutputBytes?: number }): Promise<RipgrepResult> {
    const binary = await this.locate();
    if (!binary) throw new Error("ripgrep is not available");
    const limit = options.maxOutputBytes ?? 20 * 1024 * 1024;
    return new Promise<RipgrepResult>((resolve, reject) => {
      const child = spawn(binary, args, { cwd: options.cwd, signal: options.signal, stdio: ["ignore", "pipe", "pipe"] });
      const stdout: Buffer[] = [];
      const stderr: Buffer[] = [];
      let size = 0;
      let truncated = false;
      child.stdout.on("data", (chunk: Buffer) => {
        if (truncated) return;
        size += chunk.length;
        stdout.push(chunk);
        if (size > limit) {
          truncated = true;
          child.kill();
        }
      });
      child.stderr.on("data", (chunk: Buffer) => stderr.push(chunk));
      child.on("error", reject);
      child.on("close", (exitCode) => {
        resolve({
          exitCode: truncated ? 0 : exitCode,
          stdout: Buffer.concat(stdout).toString("utf8"),
          stderr: Buffer.concat(stderr).toString("utf8"),
          truncated,
        });
      });
    });
  }
}

async function findOnPath(name: string): Promise<string | undefined> {
  for (const folder of (process.env.PATH ?? "").split(delimiter)) {
    if (!folder) continue;
    const candidate = join(folder, name);
    try {
      await access(candidate, constants.X_OK);
      return candidate;
    } catch {
      // Not here.
    }
  }
  return undefined;
}
