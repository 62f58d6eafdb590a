import { z } from "zod";
import { SessionId } from "../common.js";
import { defineRequest } from "../method.js";

/**
 * Permission locations and folder trust (official SDK 1.0 names). A location is where approvals
 * are kept for later sessions: the git repository a folder is in, else the folder. Folder trust is
 * the user's `trustedFolders` list (the Tandem home's `config.json`).
 */

const sessionScoped = { sessionId: SessionId };
const Success = z.lazy(() => z.looseObject({ success: z.boolean() }));
const LocationType = z.lazy(() => z.enum(["repo", "dir"]));
/** A rule as the official SDK reports it (`kind` and its argument: `shell` and a command identifier). */
export const PermissionRuleShape = z.lazy(() => z.looseObject({ kind: z.string(), argument: z.string().nullable() }));

/** `session.permissions.locations.resolve`: the location of a working folder. */
export const SessionPermissionsLocationsResolve = defineRequest(
  "session.permissions.locations.resolve",
  () => z.looseObject({ ...sessionScoped, workingDirectory: z.string().min(1) }),
  () => z.looseObject({ locationKey: z.string(), locationType: LocationType }),
);

/** `session.permissions.locations.addToolApproval`: keeps a tool approval for a location and applies it to this session. */
export const SessionPermissionsLocationsAddToolApproval = defineRequest(
  "session.permissions.locations.addToolApproval",
  () => z.looseObject({
    ...sessionScoped,
    locationKey: z.string().min(1),
    approval: z.looseObject({ kind: z.literal("commands"), commandIdentifiers: z.array(z.string().min(1)).min(1) }),
  }),
  () => Success,
);

/** `session.permissions.locations.apply`: applies a working folder's location approvals to this session. */
export const SessionPermissionsLocationsApply = defineRequest(
  "session.permissions.locations.apply",
  () => z.looseObject({ ...sessionScoped, workingDirectory: z.string().min(1) }),
  () => z.looseObject({
    locationKey: z.string(),
    locationType: LocationType,
    changed: z.boolean(),
    appliedRuleCount: z.number(),
    appliedDirectoryCount: z.number(),
    appliedRules: z.array(PermissionRuleShape),
  }),
);

/** `session.permissions.folderTrust.isTrusted`: whether the user trusts a folder (it or a folder above it is listed). */
export const SessionPermissionsFolderTrustIsTrusted = defineRequest(
  "session.permissions.folderTrust.isTrusted",
  () => z.looseObject({ ...sessionScoped, path: z.string().min(1) }),
  () => z.looseObject({ trusted: z.boolean() }),
);

/** `session.permissions.folderTrust.addTrusted`: adds a folder (an absolute path) to the user's trusted folders. */
export const SessionPermissionsFolderTrustAddTrusted = defineRequest(
  "session.permissions.folderTrust.addTrusted",
  () => z.looseObject({ ...sessionScoped, path: z.string().min(1) }),
  () => Success,
);

/** The requests of this file, for `clientToServerRequests`. */
export const permissionLocationRequests = [
  SessionPermissionsLocationsResolve,
  SessionPermissionsLocationsAddToolApproval,
  SessionPermissionsLocationsApply,
  SessionPermissionsFolderTrustIsTrusted,
  SessionPermissionsFolderTrustAddTrusted,
] as const;
