import { mkdir, readFile, realpath, rename, writeFile } from "node:fs/promises";
import { ErrorCodes } from "@tandem/protocol/errors";
import { TandemError } from "../errors.js";
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

  /**
   * Adds `folder` (absolute; symbolic links resolved) to `trustedFolders` in the config file,
   * keeping everything else in it. A config file that is not a JSON object is refused, never
   * overwritten. The file is replaced whole (a temporary file renamed into place).
   */
  async add(folder: string): Promise<void> {
    if (!isAbsolute(folder)) throw new TandemError(ErrorCodes.InvalidParams, `A trusted folder must be an absolute path: ${folder}`, { path: folder });
    const canonicalFolder = await canonical(folder);
    const text = await readFile(this.configPath, "utf8").catch((error: NodeJS.ErrnoException) => {
      if (error.code === "ENOENT") return "{}";
      throw new TandemError(ErrorCodes.PersistenceFailed, `${this.configPath} cannot be read: ${error.message}`, { path: this.configPath, code: error.code });
    });
    let config: unknown;
    try {
      config = JSON.parse(text);
    } catch {
      config = undefined;
    }
    if (!config || typeof config !== "object" || Array.isArray(config)) {
      throw new TandemError(ErrorCodes.PersistenceFailed, `${this.configPath} is not a JSON object; fix it to add trusted folders (it was left as it is)`, { path: this.configPath });
    }
    const record = config as Record<string, unknown>;
    const listed = Array.isArray(record.trustedFolders) ? record.trustedFolders : [];
    if (listed.includes(canonicalFolder)) return;
    record.trustedFolders = [...listed, canonicalFolder];
    await mkdir(this.home, { recursive: true });
    const temporary = `${this.configPath}.${process.pid}.tmp`;
    await writeFile(temporary, `${JSON.stringify(record, null, 2)}\n`, "utf8");
    await rename(temporary, this.configPath);
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
