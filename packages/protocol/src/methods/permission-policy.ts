import { z } from "zod";
import { SessionId } from "../common.js";
import { defineRequest } from "../method.js";

/**
 * A session's permission policy beyond approve-all (official SDK 1.0 names): rules that approve or
 * deny requests without asking, the URL policy, the allowed directories, and whether a client
 * wants to be asked. `session.permissions.configure` sets several at once (see `session-api.ts`).
 */

const sessionScoped = { sessionId: SessionId };
const Success = z.lazy(() => z.looseObject({ success: z.boolean() }));
const AbsolutePath = z.lazy(() => z.string().min(1));

/** A permission rule: its kind (`read`, `write`, `shell`, `url`, …) and what it matches, or null for every request of the kind. */
export const PermissionPolicyRule = z.lazy(() => z.looseObject({ kind: z.string().min(1), argument: z.string().nullable() }));

/** `session.permissions.setRequired`: whether the calling client answers this session's permission requests. */
export const SessionPermissionsSetRequired = defineRequest(
  "session.permissions.setRequired",
  () => z.looseObject({ ...sessionScoped, required: z.boolean() }),
  () => Success,
);

/** `session.permissions.notifyPromptShown`: the client shows the user a permission prompt. */
export const SessionPermissionsNotifyPromptShown = defineRequest(
  "session.permissions.notifyPromptShown",
  () => z.looseObject({ ...sessionScoped, message: z.string() }),
  () => Success,
);

/** `session.permissions.modifyRules`: adds or removes approve rules of the session (or of its location). */
export const SessionPermissionsModifyRules = defineRequest(
  "session.permissions.modifyRules",
  () => z.looseObject({
    ...sessionScoped,
    scope: z.enum(["session", "location"]),
    add: z.array(PermissionPolicyRule).optional(),
    remove: z.array(PermissionPolicyRule).optional(),
    removeAll: z.boolean().optional(),
  }),
  () => Success,
);

/** `session.permissions.urls.setUnrestrictedMode`: whether every URL is fetched without asking. */
export const SessionPermissionsUrlsSetUnrestrictedMode = defineRequest(
  "session.permissions.urls.setUnrestrictedMode",
  () => z.looseObject({ ...sessionScoped, enabled: z.boolean() }),
  () => Success,
);

/** `session.permissions.paths.list`: the primary (workspace) directory and every allowed directory. */
export const SessionPermissionsPathsList = defineRequest(
  "session.permissions.paths.list",
  () => z.looseObject(sessionScoped),
  () => z.looseObject({ primary: z.string(), directories: z.array(z.string()) }),
);

/** `session.permissions.paths.add`: allows one more directory. */
export const SessionPermissionsPathsAdd = defineRequest(
  "session.permissions.paths.add",
  () => z.looseObject({ ...sessionScoped, path: AbsolutePath }),
  () => Success,
);

/** `session.permissions.paths.updatePrimary`: makes a directory the primary (workspace) one. */
export const SessionPermissionsPathsUpdatePrimary = defineRequest(
  "session.permissions.paths.updatePrimary",
  () => z.looseObject({ ...sessionScoped, path: AbsolutePath }),
  () => Success,
);

/** `session.permissions.paths.isPathWithinAllowedDirectories`: whether a path is inside an allowed directory. */
export const SessionPermissionsPathsIsPathWithinAllowedDirectories = defineRequest(
  "session.permissions.paths.isPathWithinAllowedDirectories",
  () => z.looseObject({ ...sessionScoped, path: AbsolutePath }),
  () => z.looseObject({ allowed: z.boolean() }),
);

/** `session.permissions.paths.isPathWithinWorkspace`: whether a path is inside the primary directory. */
export const SessionPermissionsPathsIsPathWithinWorkspace = defineRequest(
  "session.permissions.paths.isPathWithinWorkspace",
  () => z.looseObject({ ...sessionScoped, path: AbsolutePath }),
  () => z.looseObject({ allowed: z.boolean() }),
);

/** The requests of this file, for `clientToServerRequests`. */
export const permissionPolicyRequests = [
  SessionPermissionsSetRequired,
  SessionPermissionsNotifyPromptShown,
  SessionPermissionsModifyRules,
  SessionPermissionsUrlsSetUnrestrictedMode,
  SessionPermissionsPathsList,
  SessionPermissionsPathsAdd,
  SessionPermissionsPathsUpdatePrimary,
  SessionPermissionsPathsIsPathWithinAllowedDirectories,
  SessionPermissionsPathsIsPathWithinWorkspace,
] as const;
