import { realpath } from "node:fs/promises";
import { join, resolve } from "node:path";
import { findGitRoot } from "../context/git-context.js";
import { JsonObjectFile } from "../store/json-object-file.js";

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
 * location grants. The file is a {@link JsonObjectFile}: a crash leaves the old file or the new
 * one; an unreadable file is refused, never overwritten.
 *
 * @example
 * await approvals.addCommands("/work/repo", ["npm test"]);
 * await approvals.commandsFor("/work/repo"); // ["npm test"]
 */
export class LocationApprovals {
  private readonly file: JsonObjectFile;

  constructor(home: string) {
    this.file = new JsonObjectFile(join(home, locationApprovalsFile));
  }

  /** The file's path. */
  get path(): string {
    return this.file.path;
  }

  /** The command identifiers approved for `locationKey`. */
  async commandsFor(locationKey: string): Promise<string[]> {
    return ((await this.file.read()) as StoredLocations)[locationKey]?.commands ?? [];
  }

  /** Adds command approvals to a location (one write at a time). */
  async addCommands(locationKey: string, commandIdentifiers: readonly string[]): Promise<void> {
    await this.file.update((current) => {
      const stored = current as StoredLocations;
      const commands = new Set(stored[locationKey]?.commands ?? []);
      for (const id of commandIdentifiers) commands.add(id);
      return { ...stored, [locationKey]: { ...stored[locationKey], commands: [...commands] } };
    });
  }
}
