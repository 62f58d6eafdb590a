import { realpath } from "node:fs/promises";
import { ErrorCodes } from "@tandem/protocol/errors";
import { errorMessage, TandemError } from "../errors.js";
import { isAbsolute, relative, resolve, sep } from "node:path";
import type { Logger } from "../log.js";
import type { JsonObjectFile } from "../store/json-object-file.js";

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
 * const trusted = new TrustedFolders(new JsonObjectFile("/home/me/.tandem/config.json"), logger);
 * await trusted.covers("/home/me/work/repo"); // true with { "trustedFolders": ["/home/me/work"] }
 */
export class TrustedFolders {
  constructor(
    private readonly config: JsonObjectFile,
    private readonly logger: Logger,
  ) {}

  /** The config file's path. */
  get configPath(): string {
    return this.config.path;
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

  /**
   * Adds `folder` (absolute; symbolic links resolved) to `trustedFolders` in the config file,
   * keeping everything else in it (see {@link JsonObjectFile.update}).
   */
  async add(folder: string): Promise<void> {
    if (!isAbsolute(folder)) throw new TandemError(ErrorCodes.InvalidParams, `A trusted folder must be an absolute path: ${folder}`, { path: folder });
    const canonicalFolder = await canonical(folder);
    await this.config.update((current) => {
      const listed = Array.isArray(current.trustedFolders) ? current.trustedFolders : [];
      return listed.includes(canonicalFolder) ? undefined : { ...current, trustedFolders: [...listed, canonicalFolder] };
    });
  }

  /** The absolute folders listed in the config file. */
  async read(): Promise<string[]> {
    let record: Record<string, unknown>;
    try {
      record = await this.config.read();
    } catch (error) {
      this.logger.warn(`${errorMessage(error)}; no folder is trusted`);
      return [];
    }
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
