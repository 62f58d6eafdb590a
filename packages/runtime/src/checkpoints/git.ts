import { execFile } from "node:child_process";

/** Options of one git command. */
export interface GitRunOptions {
  /** Runs with this index file instead of the repository's own (`GIT_INDEX_FILE`). */
  indexFile?: string;
  /** Written to the command's stdin. */
  input?: string;
  /** Extra environment. */
  env?: Record<string, string>;
}

/** A git command that failed: its arguments, exit code and stderr. */
export class GitError extends Error {
  constructor(
    readonly args: readonly string[],
    readonly stderr: string,
    readonly exitCode: number | null,
  ) {
    super(`git ${args.join(" ")} failed${exitCode !== null ? ` (exit ${exitCode})` : ""}: ${stderr.trim() || "no output"}`);
    this.name = "GitError";
  }
}

/** Identity of the commits that hold checkpoints (they never go on a user's branch). */
const checkpointIdentity = {
  GIT_AUTHOR_NAME: "Tandem",
  GIT_AUTHOR_EMAIL: "tandem@localhost",
  GIT_COMMITTER_NAME: "Tandem",
  GIT_COMMITTER_EMAIL: "tandem@localhost",
};

/**
 * Runs git in one directory. The inherited `GIT_DIR` / `GIT_WORK_TREE` / `GIT_INDEX_FILE` are dropped
 * (the runtime may itself run inside a git hook), and `GIT_OPTIONAL_LOCKS=0` keeps read commands from
 * refreshing (and locking) the user's index.
 *
 * @example
 * const git = new Git("/repo");
 * const top = await git.run(["rev-parse", "--show-toplevel"]);
 */
export class Git {
  constructor(readonly cwd: string) {}

  /** Runs `git <args>` and returns its stdout; throws {@link GitError} on a non-zero exit. */
  run(args: readonly string[], options: GitRunOptions = {}): Promise<string> {
    const env: NodeJS.ProcessEnv = { ...process.env, GIT_OPTIONAL_LOCKS: "0", GIT_TERMINAL_PROMPT: "0", ...checkpointIdentity, ...options.env };
    delete env.GIT_DIR;
    delete env.GIT_WORK_TREE;
    delete env.GIT_INDEX_FILE;
    if (options.indexFile) env.GIT_INDEX_FILE = options.indexFile;
    return new Promise((resolve, reject) => {
      const child = execFile("git", [...args], { cwd: this.cwd, env, maxBuffer: 256 * 1024 * 1024, encoding: "utf8" }, (error, stdout, stderr) => {
        if (error) {
          const exitCode = typeof error.code === "number" ? error.code : null;
          reject(new GitError(args, stderr || error.message, exitCode));
          return;
        }
        resolve(stdout);
      });
      if (options.input !== undefined) child.stdin?.end(options.input);
    });
  }

  /** Like {@link run}, with the trailing newline removed. */
  async line(args: readonly string[], options?: GitRunOptions): Promise<string> {
    return (await this.run(args, options)).trimEnd();
  }
}
