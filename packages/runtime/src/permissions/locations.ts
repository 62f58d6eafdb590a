import { mkdir, readFile, realpath, rename, writeFile } from "node:fs/promises";
import { dirname, join, resolve } from "node:path";
import { findGitRoot } from "../context/git-context.js";
import { errorMessage, TandemError } from "../errors.js";
import { ErrorCodes } from "@tandem/protocol/errors";

/** Where location approvals are kept: the git repository a folder is in, else the folder itself. */
export interface PermissionLocation {
  locationType: "repo" | "dir";
  /** The repository root or the folder, symbolic links resolved. */
  locationKey: string;
}

/**
 * The permission location of a working folder: its git repository's root when it is inside one,
 * else the folder (symbolic links resolved; a folder that does not exist is taken as given).
 *
 * @example
 * await resolvePermissionLocation("/work/repo/src"); // { locationType: "repo", locationKey: "/work/repo" }
 */
export async function resolvePermissionLocation(workingDirectory: string): Promise<PermissionLocation> {
  const folder = await realpath(workingDirectory).catch(() => resolve(workingDirectory));
  const repository = findGitRoot(folder);
  return repository ? { locationType: "repo", locationKey: repository.root } : { locationType: "dir", locationKey: folder };
}

/** The file of location approvals in the Tandem home. */
export const locationApprovalsFile = "permission-locations.json";

type StoredLocations = Record<string, { commands?: string[] }>;

/**
 * Tool approvals the user gave for a location (a repository or folder), kept in
 * `<home>/permission-locations.json` so that later sessions working there can take them up
 * (`session.permissions.locations.apply`). Only shell command approvals are kept: they are what a
 * location grants. Writes go to a temporary file renamed into place, so a crash leaves the old
 * file or the new one; an unreadable file is refused, never overwritten.
 *
 * @example
 * await approvals.addCommands("/work/repo", ["npm test"]);
 * await approvals.commandsFor("/work/repo"); // ["npm test"]
 */
export class LocationApprovals {
  private writing: Promise<unknown> = Promise.resolve();

  constructor(private readonly home: string) {}

  /** The file's path. */
  get path(): string {
    return join(this.home, locationApprovalsFile);
  }

  /** The command identifiers approved for `locationKey`. */
  async commandsFor(locationKey: string): Promise<string[]> {
    return (await this.read())[locationKey]?.commands ?? [];
  }

  /** Adds command approvals to a location (one write at a time). */
  async addCommands(locationKey: string, commandIdentifiers: readonly string[]): Promise<void> {
    const write = this.writing.then(async () => {
      const stored = await this.read();
      const commands = new Set(stored[locationKey]?.commands ?? []);
      for (const id of commandIdentifiers) commands.add(id);
      stored[locationKey] = { ...stored[locationKey], commands: [...commands] };
      await mkdir(dirname(this.path), { recursive: true });
      const temporary = `${this.path}.${process.pid}.tmp`;
      await writeFile(temporary, `${JSON.stringify(stored, null, 2)}\n`, "utf8");
      await rename(temporary, this.path);
    });
    this.writing = write.catch(() => undefined);
    await write;
  }

  private async read(): Promise<StoredLocations> {
    let text: string;
    try {
      text = await readFile(this.path, "utf8");
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return {};
      throw new TandemError(ErrorCodes.PersistenceFailed, `${this.path} cannot be read: ${errorMessage(error)}`, { path: this.path });
    }
    try {
      const parsed: unknown = JSON.parse(text);
      if (parsed && typeof parsed === "object" && !Array.isArray(parsed)) return parsed as StoredLocations;
    } catch {
      // Reported below.
    }
    throw new TandemError(ErrorCodes.PersistenceFailed, `${this.path} is not a JSON object; fix or remove it (it was left as it is)`, { path: this.path });
  }
}
