import type { PermissionRequest } from "@tandem/protocol";
import type { Logger } from "../log.js";

/** A scope an `approve-for-session` decision asks the session to remember (1.0.x `approval`). */
export type SessionApproval =
  | { kind: "commands"; commandIdentifiers: string[] }
  | { kind: "read" }
  | { kind: "write" }
  | { kind: "mcp"; serverName: string; toolName: string | null }
  | { kind: "custom-tool"; toolName: string }
  /** A URL origin, `scheme://host:port` as `URL.origin` writes it. */
  | { kind: "url"; origin: string };

/** Why a request was approved without asking: approve-all, or an earlier session approval. */
export type StandingApproval = "approve-all" | "session-approval";

/** What a request asks of the remembered approvals beyond its own content. */
export interface CoverOptions {
  /**
   * Only approvals remembered after this moment (of the approvals' clock, `performance.now()`)
   * cover the request: a named shell whose state changed since asks again (see `NamedShellStates`).
   */
  approvedAfter?: number;
}

/** The `session.permissions_changed` modes Tandem uses. */
export type PermissionMode = "manual" | "allow-all";

/**
 * Reads the scope to remember from a client's answer, when it is an `approve-for-session` (or the
 * relayed `approved-for-session`) decision with a scope Tandem can hold: shell `commands`, `read`,
 * `write`, an `mcp` server or tool, a `custom-tool`, or a URL `domain` (see {@link urlOriginOf}:
 * `approvedUrl` is the URL of the request being answered). Returns undefined for every other
 * answer; `unsupported` names a session approval whose scope is not understood.
 */
export function sessionApprovalOf(answer: unknown, approvedUrl?: string): { approval?: SessionApproval; unsupported?: string } {
  if (!answer || typeof answer !== "object") return {};
  const decision = answer as { kind?: unknown; approval?: unknown; domain?: unknown };
  if (decision.kind !== "approve-for-session" && decision.kind !== "approved-for-session") return {};
  if (typeof decision.domain === "string" && decision.domain.trim() !== "") {
    const origin = urlOriginOf(decision.domain.trim(), approvedUrl);
    return origin ? { approval: { kind: "url", origin } } : { unsupported: `URL domain ${JSON.stringify(decision.domain)} that names no origin` };
  }
  const scope = (decision.approval ?? {}) as Record<string, unknown>;
  switch (scope.kind) {
    case "commands": {
      const ids = scope.commandIdentifiers;
      if (Array.isArray(ids) && ids.length > 0 && ids.every((id) => typeof id === "string")) return { approval: { kind: "commands", commandIdentifiers: ids as string[] } };
      break;
    }
    case "read":
    case "write":
      return { approval: { kind: scope.kind } };
    case "mcp":
      if (typeof scope.serverName === "string" && (scope.toolName === null || scope.toolName === undefined || typeof scope.toolName === "string")) {
        return { approval: { kind: "mcp", serverName: scope.serverName, toolName: (scope.toolName as string | null | undefined) ?? null } };
      }
      break;
    case "custom-tool":
      if (typeof scope.toolName === "string") return { approval: { kind: "custom-tool", toolName: scope.toolName } };
      break;
  }
  return { unsupported: scope.kind === undefined ? "no approval scope" : `approval scope ${JSON.stringify(scope.kind)}` };
}

/**
 * What the session approves without asking: everything while approve-all is on
 * (`session.permissions.setApproveAll`), reads and URL fetches while approve-all-reads is on, and
 * what `approve-for-session` decisions remembered for the rest of the session. A shell request is
 * covered only when every command it runs was approved.
 *
 * @example
 * approvals.remember({ kind: "commands", commandIdentifiers: ["ls"] });
 * approvals.covers({ kind: "shell", commands: [{ identifier: "ls", readOnly: false }], … }); // "session-approval"
 */
export class SessionApprovals {
  private approveAllTools = false;
  private approveAllReads = false;
  /** Approved command identifiers, with the clock's reading when each was last approved. */
  private readonly commands = new Map<string, number>();
  private readonly kinds = new Set<"read" | "write">();
  /** MCP approvals: server name → tool names, or null for every tool of the server. */
  private readonly mcp = new Map<string, Set<string> | null>();
  private readonly customTools = new Set<string>();
  /** URL origins (`scheme://host:port`), never bare host names: another port is another origin. */
  private readonly origins = new Set<string>();

  constructor(
    private readonly logger: Logger,
    private readonly clock: () => number = () => performance.now(),
  ) {}

  /** The mode `session.permissions_changed` reports. */
  get mode(): PermissionMode {
    return this.approveAllTools ? "allow-all" : "manual";
  }

  /** Turns approve-all on or off; returns the modes before and after. */
  setApproveAll(enabled: boolean): { previousMode: PermissionMode; mode: PermissionMode } {
    const previousMode = this.mode;
    this.approveAllTools = enabled;
    return { previousMode, mode: this.mode };
  }

  /** Turns approve-all-reads (read and URL requests) on or off. */
  setApproveAllReads(enabled: boolean): void {
    this.approveAllReads = enabled;
  }

  /** Forgets every approval remembered for the session (approve-all stays as it is). */
  forgetRemembered(): void {
    this.commands.clear();
    this.kinds.clear();
    this.mcp.clear();
    this.customTools.clear();
    this.origins.clear();
  }

  /** Remembers an approval for the rest of the session. */
  remember(approval: SessionApproval): void {
    switch (approval.kind) {
      case "commands":
        for (const id of approval.commandIdentifiers) this.commands.set(id, this.clock());
        return;
      case "read":
      case "write":
        this.kinds.add(approval.kind);
        return;
      case "mcp": {
        if (approval.toolName === null) {
          this.mcp.set(approval.serverName, null);
          return;
        }
        const tools = this.mcp.get(approval.serverName);
        if (tools === null) return;
        this.mcp.set(approval.serverName, new Set([...(tools ?? []), approval.toolName]));
        return;
      }
      case "custom-tool":
        this.customTools.add(approval.toolName);
        return;
      case "url":
        this.origins.add(approval.origin);
        return;
    }
  }

  /**
   * Remembers what a client's answer asks to remember, logging a session approval it cannot hold.
   * `approvedUrl` is the URL of the `url` request being answered (it gives a bare domain its scheme and port).
   */
  rememberAnswer(answer: unknown, sessionId: string, approvedUrl?: string): void {
    const { approval, unsupported } = sessionApprovalOf(answer, approvedUrl);
    if (approval) {
      this.remember(approval);
      return;
    }
    if (unsupported) this.logger.warn(`approve-for-session with ${unsupported} approves this request only; nothing is remembered`);
  }

  /** Whether `request` is approved without asking, and why. */
  covers(request: PermissionRequest, options: CoverOptions = {}): StandingApproval | undefined {
    if (this.approveAllTools) return "approve-all";
    if (this.approveAllReads && (request.kind === "read" || request.kind === "url")) return "approve-all";
    return this.remembered(request, options) ? "session-approval" : undefined;
  }

  private remembered(request: PermissionRequest, options: CoverOptions): boolean {
    switch (request.kind) {
      case "shell": {
        const after = options.approvedAfter ?? -Infinity;
        return request.commands.length > 0 && request.commands.every((command) => (this.commands.get(command.identifier) ?? -Infinity) > after);
      }
      case "read":
      case "write":
        return this.kinds.has(request.kind);
      case "mcp": {
        if (!this.mcp.has(request.serverName)) return false;
        const tools = this.mcp.get(request.serverName);
        return tools === null || tools === undefined || tools.has(request.toolTitle) || tools.has(request.toolName);
      }
      case "custom-tool":
        return this.customTools.has(request.toolName);
      case "url":
        return this.origins.has(originOf(request.url) ?? "");
      default:
        return false;
    }
  }
}

/**
 * The origin an approve-for-session `domain` stands for. A full URL (`https://example.com:8443`)
 * names its own origin. A bare host name, or `host:port`, names the origin of the approved
 * request's URL when it is that URL's host (`127.0.0.1` approving `http://127.0.0.1:4000/a` is
 * `http://127.0.0.1:4000`); otherwise it takes the approved URL's scheme and the scheme's default
 * port. Without an approved URL a bare name names nothing: approving one host must not approve
 * every port and scheme of it.
 *
 * @example
 * urlOriginOf("127.0.0.1", "http://127.0.0.1:4000/a"); // "http://127.0.0.1:4000"
 * urlOriginOf("https://Example.com/x");                // "https://example.com"
 */
export function urlOriginOf(domain: string, approvedUrl?: string): string | undefined {
  if (/^https?:\/\//i.test(domain)) return originOf(domain);
  const approved = approvedUrl === undefined ? undefined : parseHttpUrl(approvedUrl);
  if (!approved) return undefined;
  const named = parseHttpUrl(`${approved.protocol}//${domain}`);
  if (!named || named.pathname !== "/" || named.search !== "" || named.username !== "" || named.password !== "") return undefined;
  const explicitPort = /:\d+$/.test(domain);
  if (named.hostname === approved.hostname && (!explicitPort || named.port === approved.port)) return approved.origin;
  return named.origin;
}

function originOf(url: string): string | undefined {
  return parseHttpUrl(url)?.origin;
}

function parseHttpUrl(text: string): URL | undefined {
  try {
    const url = new URL(text);
    return url.protocol === "http:" || url.protocol === "https:" ? url : undefined;
  } catch {
    return undefined;
  }
}
