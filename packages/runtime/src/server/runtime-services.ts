import type { ModelInfo } from "@tandem/protocol";
import type { AccountStore } from "../accounts/account-store.js";
import type { GitHubUsers } from "../accounts/github-users.js";
import type { ClusterNode } from "../cluster/cluster-node.js";
import type { SessionFsHost } from "../session-fs/session-fs-host.js";
import type { SlashCommands } from "../commands/slash-commands.js";
import type { ExtensionHost } from "../extensions/host.js";
import type { Logger } from "../log.js";
import type { ClientInferenceTransport } from "../providers/client-inference/transport.js";
import type { ProviderEnvironment } from "../providers/resolve.js";
import type { SessionProviders } from "../providers/session-providers.js";
import type { SecretFilter } from "../secrets/secret-filter.js";
import type { SessionManager } from "../session/manager.js";
import type { SessionScoped } from "../session/session-scoped.js";
import type { Session } from "../session/session.js";
import type { SessionStore } from "../store/types.js";
import type { TrustedFolders } from "../trust/trusted-folders.js";
import type { UserSettings } from "../user-settings/user-settings.js";
import type { RequestingClient } from "./requesting-client.js";

/** What `auth.getStatus` answers about the default provider (a type literal, so it fits the result schema's open object). */
export type AuthStatus = {
  isAuthenticated: boolean;
  authType: string;
  host: string;
  statusMessage: string;
};

/**
 * What the method handlers (`handlers/`) use of the runtime: its services and a few runtime-wide
 * operations. Declared here, below the composition root, so handlers never import `runtime.ts`
 * (which builds the method table, and would otherwise import them back); `Runtime` implements it.
 *
 * @example
 * export function registerUserSettingsMethods(table: MethodTable, runtime: RuntimeServices): void {
 *   table.on(UserSettingsGet, () => runtime.userSettings.read());
 * }
 */
export interface RuntimeServices {
  readonly version: string;
  readonly protocolVersion: 2 | 3;
  readonly sessions: SessionManager;
  readonly store: SessionStore;
  readonly secrets: SecretFilter;
  readonly trustedFolders: TrustedFolders;
  readonly userSettings: UserSettings;
  readonly extensions: ExtensionHost;
  readonly commands: SlashCommands;
  readonly addedProviders: SessionScoped<Session, SessionProviders>;
  readonly inferenceTransport: ClientInferenceTransport;
  readonly providerEnvironment: ProviderEnvironment;
  /** The environment the runtime was started with. */
  readonly environment: NodeJS.ProcessEnv;
  readonly logger: Logger;
  /** Accounts logged in through `account.login` (their tokens serve sessions without their own). */
  readonly accounts: AccountStore;
  /** GitHub's user lookup for tokens (login, plan, quota). */
  readonly gitHubUsers: GitHubUsers;
  /** Where sessions kept in a client's file system go (`sessionFs.setProvider`). */
  readonly sessionFs: SessionFsHost;
  /** This runtime as a cluster node, when it joined one. */
  readonly cluster: ClusterNode | undefined;
  /** Handles one request from a client (in a cluster, possibly by forwarding it). */
  dispatch(method: string, params: unknown, client: RequestingClient): Promise<unknown>;
  authStatus(): AuthStatus;
  sessionProviderEnvironment(gitHubToken: string | undefined): ProviderEnvironment;
  listModels(): Promise<ModelInfo[]>;
  shutdownOnRequest(client: RequestingClient): Promise<void>;
  shutdown(): Promise<void>;
}
