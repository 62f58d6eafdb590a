import {
  SessionPermissionsModifyRules,
  SessionPermissionsNotifyPromptShown,
  SessionPermissionsPathsAdd,
  SessionPermissionsPathsIsPathWithinAllowedDirectories,
  SessionPermissionsPathsIsPathWithinWorkspace,
  SessionPermissionsPathsList,
  SessionPermissionsPathsUpdatePrimary,
  SessionPermissionsSetRequired,
  SessionPermissionsUrlsSetUnrestrictedMode,
} from "@tandem/protocol/methods/permission-policy";
import { ErrorCodes } from "@tandem/protocol/errors";
import { invalidParams, TandemError } from "../../errors.js";
import type { Logger } from "../../log.js";
import type { PermissionPolicy } from "../../permissions/policy.js";
import type { ClientPort } from "../../session/client-port.js";
import type { ClientRegistration } from "../../session/clients.js";
import type { MethodTable } from "../method-table.js";

/** What these methods need of a session: its policy, its clients' registrations, its log. */
export interface PolicySession {
  readonly sessionId: string;
  readonly permissions: { readonly policy: PermissionPolicy };
  readonly scope: { readonly clients: { registrationOf(port: ClientPort): ClientRegistration | undefined }; readonly logger: Logger };
  /** Replaces what a client registered (its tools and handler flags). */
  attach(port: ClientPort, registration: ClientRegistration): void;
}

/**
 * `session.permissions.*` policy methods: whether the calling client answers permission requests
 * (`setRequired`), approve rules (`modifyRules`, session scope), the URL policy
 * (`urls.setUnrestrictedMode`), the allowed directories (`paths.*`), and the client's word that it
 * shows the user a prompt (`notifyPromptShown`, written to the runtime's log).
 */
export function registerPermissionPolicyMethods(table: MethodTable, sessionOf: (sessionId: string) => PolicySession): void {
  table.on(SessionPermissionsSetRequired, ({ sessionId, required }, client) => {
    const session = sessionOf(sessionId);
    const registration = session.scope.clients.registrationOf(client);
    if (!registration) throw invalidParams(`This client has not joined session ${sessionId}: create or resume it first`);
    // The client answers (or stops answering) the session's permission requests from now on.
    session.attach(client, { ...registration, requestPermission: required });
    return { success: true };
  });
  table.on(SessionPermissionsNotifyPromptShown, ({ sessionId, message }) => {
    const session = sessionOf(sessionId);
    session.scope.logger.info(`session ${session.sessionId}: the client shows a permission prompt: ${message}`);
    return { success: true };
  });
  table.on(SessionPermissionsModifyRules, ({ sessionId, scope, add, remove, removeAll }) => {
    const { rules } = sessionOf(sessionId).permissions.policy;
    if (scope === "location") {
      throw new TandemError(ErrorCodes.NotAvailable, "session.permissions.modifyRules: location-scoped rules are not available in this version of Tandem (use session.permissions.locations.addToolApproval for commands); nothing was changed");
    }
    rules.modify("approved", { add, remove, removeAll });
    return { success: true };
  });
  table.on(SessionPermissionsUrlsSetUnrestrictedMode, ({ sessionId, enabled }) => {
    sessionOf(sessionId).permissions.policy.urls.unrestricted = enabled;
    return { success: true };
  });
  table.on(SessionPermissionsPathsList, ({ sessionId }) => {
    const { paths } = sessionOf(sessionId).permissions.policy;
    return { primary: paths.primary, directories: paths.directories() };
  });
  table.on(SessionPermissionsPathsAdd, ({ sessionId, path }) => {
    sessionOf(sessionId).permissions.policy.paths.add(path);
    return { success: true };
  });
  table.on(SessionPermissionsPathsUpdatePrimary, ({ sessionId, path }) => {
    sessionOf(sessionId).permissions.policy.paths.updatePrimary(path);
    return { success: true };
  });
  table.on(SessionPermissionsPathsIsPathWithinAllowedDirectories, ({ sessionId, path }) => ({
    allowed: sessionOf(sessionId).permissions.policy.paths.isWithinAllowed(path),
  }));
  table.on(SessionPermissionsPathsIsPathWithinWorkspace, ({ sessionId, path }) => ({
    allowed: sessionOf(sessionId).permissions.policy.paths.isWithinWorkspace(path),
  }));
}
