import {
  SessionPermissionsFolderTrustAddTrusted,
  SessionPermissionsFolderTrustIsTrusted,
  SessionPermissionsLocationsAddToolApproval,
  SessionPermissionsLocationsApply,
  SessionPermissionsLocationsResolve,
} from "@tandem/protocol/methods/permission-locations";
import type { SessionApproval } from "../../permissions/session-approvals.js";
import { LocationApprovals, resolvePermissionLocation } from "../../permissions/locations.js";
import type { RuntimeServices } from "../runtime-services.js";
import { TrustedFolders } from "../../trust/trusted-folders.js";
import type { MethodTable } from "../method-table.js";

/** What these methods need of a session: that it exists, and its approvals. */
interface ApprovalsOf {
  remember(approval: SessionApproval): void;
}

/**
 * `session.permissions.locations.*`: command approvals kept per location (the git repository a
 * folder is in, else the folder) in the Tandem home, applied to the session they are given in and
 * to any session that applies its folder's location; `session.permissions.folderTrust.*`: the
 * user's trusted folders (`trustedFolders` in the home's `config.json`, as folder extensions read it).
 */
export function registerPermissionLocationMethods(table: MethodTable, runtime: RuntimeServices): void {
  const home = runtime.store.home;
  const locations = new LocationApprovals(home);
  const trusted = (sessionId: string): TrustedFolders => {
    runtime.sessions.get(sessionId);
    return runtime.trustedFolders;
  };
  const approvals = (sessionId: string): ApprovalsOf => runtime.sessions.get(sessionId).permissions.approvals;

  table.on(SessionPermissionsLocationsResolve, async ({ sessionId, workingDirectory }) => {
    runtime.sessions.get(sessionId);
    const { locationType, locationKey } = await resolvePermissionLocation(workingDirectory);
    return { locationType, locationKey };
  });
  table.on(SessionPermissionsLocationsAddToolApproval, async ({ sessionId, locationKey, approval }) => {
    const session = approvals(sessionId);
    await locations.addCommands(locationKey, approval.commandIdentifiers);
    session.remember({ kind: "commands", commandIdentifiers: approval.commandIdentifiers });
    return { success: true };
  });
  table.on(SessionPermissionsLocationsApply, async ({ sessionId, workingDirectory }) => {
    const session = approvals(sessionId);
    const location = await resolvePermissionLocation(workingDirectory);
    const commands = await locations.commandsFor(location.locationKey);
    if (commands.length > 0) session.remember({ kind: "commands", commandIdentifiers: commands });
    return {
      ...location,
      changed: commands.length > 0,
      appliedRuleCount: commands.length,
      appliedDirectoryCount: 0,
      appliedRules: commands.map((command) => ({ kind: "shell", argument: command })),
    };
  });
  table.on(SessionPermissionsFolderTrustIsTrusted, async ({ sessionId, path }) => {
    return { trusted: await trusted(sessionId).covers(path) };
  });
  table.on(SessionPermissionsFolderTrustAddTrusted, async ({ sessionId, path }) => {
    await trusted(sessionId).add(path);
    return { success: true };
  });
}
