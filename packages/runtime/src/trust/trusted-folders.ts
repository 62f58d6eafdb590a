import { readFile, realpath } from "node:fs/promises";
import { isAbsolute, join, relative, resolve, sep } from "node:path";
import type { Logger } from "../log.js";

/** The user's config file in the Tandem home, where `trustedFolders` is read from. */
export const userConfigFile = "config.json";

/**
 * The folders the user trusts to run their own code: the `trustedFolders` list (absolute paths) of
 * `<home>/config.json`; `trusted_folders`, the reference CLI's spelling, is read too. A folder
 * inside a trusted folder is trusted. The file is read at every question, so an edit counts from
 * the next session open; a missing file trusts nothing, and an unreadable one is logged and trusts
 * nothing. Relative entries are ignored (they would depend on where the runtime was started).
 *
 * @example
 * const trusted = new TrustedFolders("/home/me/.tandem", logger);
 * await trusted.covers("/home/me/work/repo"); // true with { "trustedFolders": ["/home/me/work"] }
 */
export class TrustedFolders {
  constructor(
    private readonly home: string,
    private readonly logger: Logger,
  ) {}

  /** The config file's path. */
  get configPath(): string {
    return join(this.home, userConfigFile);
  }

  /** Whether `folder` is a trusted folder or lies inside one (symbolic links resolved on both sides). */
  async covers(folder: string): Promise<boolean> {
    const entries = await this.read();
    if (entries.length === 0) return false;
    for (const entry of entries) {
      if (await folderContains(entry, folder)) return true;
    }
    return false;
  }

  /** The absolute folders listed in the config file. */
  async read(): Promise<string[]> {
    const text = await readFile(this.configPath, "utf8").catch((error: NodeJS.ErrnoException) => {
      if (error.code !== "ENOENT") this.logger.warn(`${this.configPath} cannot be read; no folder is trusted`, error);
      return undefined;
    });
    if (text === undefined) return [];
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch (error) {
      this.logger.warn(`${this.configPath} is not valid JSON; no folder is trusted`, error);
      return [];
    }
    if (!parsed || typeof parsed !== "object") return [];
    const record = parsed as Record<string, unknown>;
    const listed = [record.trustedFolders, record.trusted_folders].flatMap((value) => (Array.isArray(value) ? value : []));
    return listed.filter((entry): entry is string => typeof entry === "string" && isAbsolute(entry));
  }
}

/**
 * Whether `path` is `root` or lies below it, symbolic links resolved on both sides.
 *
 * @example
 * await folderContains("/repo", "/repo/.github/skills/deploy"); // true
 */
export async function folderContains(root: string, path: string): Promise<boolean> {
  return isInside(await canonical(path), await canonical(root));
}

/** Whether `folder` is `root` or lies below it. */
function isInside(folder: string, root: string): boolean {
  const path = relative(root, folder);
  if (path === "") return true;
  return !isAbsolute(path) && path !== ".." && !path.startsWith(`..${sep}`);
}

/** The folder's real path, or its resolved path when it does not exist. */
async function canonical(folder: string): Promise<string> {
  return realpath(folder).catch(() => resolve(folder));
}
