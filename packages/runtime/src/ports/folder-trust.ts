/**
 * The user's trust in working folders, as sessions read it (the runtime's `trust/` builds it from
 * `--allow-all` and `trustedFolders`).
 *
 * @example
 * if (await trust.trusts(workingDirectory)) approveSkillTools();
 */
export interface FolderTrust {
  /** Whether the user trusts code `folder` brings: `--allow-all` / `--yolo`, or `trustedFolders`. */
  trusts(folder: string): Promise<boolean>;
  /** How the user can trust `folder`, in words. */
  howToTrust(folder: string): string;
}
