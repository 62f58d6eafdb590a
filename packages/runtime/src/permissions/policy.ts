import { realpathSync } from "node:fs";
import { tmpdir } from "../node-os.js";
import { isAbsolute, relative, resolve, sep } from "node:path";
import type { PermissionRequest, PermissionResult } from "@tandem/protocol";
import { invalidParams } from "../errors.js";

/** A permission rule: its kind and what it matches (null: every request of the kind). */
export interface PermissionRule {
  kind: string;
  argument: string | null;
}

/**
 * The rule kinds Tandem can match, and the request kind each one applies to. `commands` is the
 * 1.0.x name of `shell` rules (an argument is a command identifier, as approvals name them).
 */
const ruleKinds: ReadonlyMap<string, PermissionRequest["kind"]> = new Map([
  ["read", "read"],
  ["write", "write"],
  ["memory", "memory"],
  ["shell", "shell"],
  ["commands", "shell"],
  ["url", "url"],
  ["mcp", "mcp"],
  ["custom-tool", "custom-tool"],
]);

/** What the rules say about a request, when they say anything. */
export type RuleDecision = { kind: "approved"; rules: PermissionRule[] } | Extract<PermissionResult, { kind: "denied-by-rules" }>;

/**
 * Approve and deny rules of a session: a request a deny rule matches is denied without asking,
 * one an approve rule matches is approved without asking; a deny rule wins. An argument narrows a
 * rule: a directory for `read`/`write` (the path is in it), a command identifier for
 * `shell`/`commands` (every command of the request must be approved; one denied command denies),
 * an origin or host name for `url`, a server name (or `server/tool`) for `mcp`, a tool name for
 * `custom-tool`.
 *
 * @example
 * rules.add("approved", [{ kind: "read", argument: null }]);
 * rules.decide({ kind: "read", path: "/x", intention: "Read file: /x" }); // { kind: "approved", … }
 */
export class PermissionRules {
  private readonly lists = { approved: [] as PermissionRule[], denied: [] as PermissionRule[] };

  /** Adds rules to a list (a rule already there is kept once); an unknown kind is refused, nothing added. */
  add(list: "approved" | "denied", rules: readonly PermissionRule[]): void {
    const checked = rules.map(checkedRule);
    for (const rule of checked) if (!this.lists[list].some((kept) => sameRule(kept, rule))) this.lists[list].push(rule);
  }

  /** Removes rules from a list; returns how many were there. */
  remove(list: "approved" | "denied", rules: readonly PermissionRule[]): number {
    const before = this.lists[list].length;
    this.lists[list] = this.lists[list].filter((kept) => !rules.some((rule) => sameRule(kept, rule)));
    return before - this.lists[list].length;
  }

  /**
   * Changes one list as `session.permissions.modifyRules` asks: everything removed (`removeAll`),
   * then `remove`, then `add`. The rules to add are checked first: a refused change changes nothing.
   */
  modify(list: "approved" | "denied", change: { add?: readonly PermissionRule[] | undefined; remove?: readonly PermissionRule[] | undefined; removeAll?: boolean | undefined }): void {
    const added = (change.add ?? []).map(checkedRule);
    if (change.removeAll) this.clear(list);
    if (change.remove) this.remove(list, change.remove);
    this.add(list, added);
  }

  /** Replaces both lists (the rules of `session.permissions.configure`). */
  replace(rules: { approved: readonly PermissionRule[]; denied: readonly PermissionRule[] }): void {
    const approved = rules.approved.map(checkedRule);
    const denied = rules.denied.map(checkedRule);
    this.lists.approved = approved;
    this.lists.denied = denied;
  }

  /** Forgets every rule of a list. */
  clear(list: "approved" | "denied"): void {
    this.lists[list] = [];
  }

  /** The rules of a list, as they were given. */
  list(list: "approved" | "denied"): PermissionRule[] {
    return this.lists[list].map((rule) => ({ ...rule }));
  }

  /** What the rules decide for `request`: denied (with the matching rules), approved, or nothing. */
  decide(request: PermissionRequest): RuleDecision | undefined {
    const denying = this.lists.denied.filter((rule) => matchesAny(rule, request));
    if (denying.length > 0) return { kind: "denied-by-rules", rules: denying };
    if (request.kind === "shell") {
      const approving = this.lists.approved.filter((rule) => ruleKinds.get(rule.kind) === "shell");
      const covered = request.commands.length > 0 && request.commands.every((command) => approving.some((rule) => rule.argument === null || rule.argument === command.identifier));
      return covered ? { kind: "approved", rules: approving } : undefined;
    }
    const approving = this.lists.approved.filter((rule) => matchesAny(rule, request));
    return approving.length > 0 ? { kind: "approved", rules: approving } : undefined;
  }
}

/** A rule with a kind Tandem can match, or an InvalidParams error naming the kinds it can. */
function checkedRule(rule: PermissionRule): PermissionRule {
  if (!ruleKinds.has(rule.kind)) {
    throw invalidParams(`Unknown permission rule kind ${JSON.stringify(rule.kind)}: use one of ${[...ruleKinds.keys()].join(", ")}`);
  }
  return { kind: rule.kind, argument: rule.argument };
}

function sameRule(left: PermissionRule, right: PermissionRule): boolean {
  return ruleKinds.get(left.kind) === ruleKinds.get(right.kind) && left.argument === right.argument;
}

/** Whether a rule matches a request (for shell: any one of its commands). */
function matchesAny(rule: PermissionRule, request: PermissionRequest): boolean {
  if (ruleKinds.get(rule.kind) !== request.kind) return false;
  const { argument } = rule;
  if (argument === null) return true;
  switch (request.kind) {
    case "read":
    case "write": {
      const path = (request as { path?: unknown; fileName?: unknown }).path ?? (request as { fileName?: unknown }).fileName;
      return typeof path === "string" && isWithin(path, argument);
    }
    case "shell":
      return request.commands.some((command) => command.identifier === argument);
    case "url":
      return urlMatches(request.url, argument);
    case "mcp":
      return argument === request.serverName || argument === `${request.serverName}/${request.toolName}`;
    case "custom-tool":
      return argument === request.toolName;
    default:
      return false;
  }
}

function urlMatches(url: string, argument: string): boolean {
  try {
    const parsed = new URL(url);
    if (/^https?:\/\//i.test(argument)) return new URL(argument).origin === parsed.origin;
    return parsed.hostname === argument.toLowerCase() || parsed.host === argument.toLowerCase();
  } catch {
    return false;
  }
}

/** The paths part of `session.permissions.configure`: each field given replaces the current one. */
export interface PathsConfig {
  workspacePath?: string | undefined;
  additionalDirectories?: readonly string[] | undefined;
  includeTempDirectory?: boolean | undefined;
  unrestricted?: boolean | undefined;
}

/** A paths configuration with its paths made absolute, or an InvalidParams error for a relative one. */
function checkedPathsConfig(config: PathsConfig): PathsConfig {
  return {
    ...config,
    ...(config.workspacePath !== undefined ? { workspacePath: absolute(config.workspacePath) } : {}),
    ...(config.additionalDirectories !== undefined ? { additionalDirectories: config.additionalDirectories.map(absolute) } : {}),
  };
}

/** What `session.permissions.configure` sets of the policy; each part given replaces the current one. */
export interface PolicyPatch {
  rules?: { approved: readonly PermissionRule[]; denied: readonly PermissionRule[] } | undefined;
  paths?: PathsConfig | undefined;
  urls?: { unrestricted?: boolean | undefined; initialAllowed?: readonly string[] | undefined } | undefined;
}

/**
 * The directories a session works in: the primary one (the workspace: the session's working
 * directory until another is made primary), the ones added, and the temporary directory unless it
 * is left out. Unrestricted: every path is allowed. Tandem asks for every read and write wherever
 * it is; these answer the client's questions about where the session works.
 *
 * @example
 * paths.add("/work/shared");
 * paths.isWithinAllowed("/work/shared/a.txt"); // true
 */
export class PermissionPaths {
  private primaryOverride: string | undefined;
  private readonly added: string[] = [];
  private includeTemp = true;
  private unrestricted = false;

  constructor(private readonly workingDirectory: () => string) {}

  /** The primary (workspace) directory. */
  get primary(): string {
    return this.primaryOverride ?? this.workingDirectory();
  }

  /** Every allowed directory, the primary first, each once. */
  directories(): string[] {
    const all = [this.primary, ...this.added, ...(this.includeTemp ? [tmpdir()] : [])];
    return all.filter((directory, index) => all.findIndex((other) => samePath(other, directory)) === index);
  }

  /** Applies the paths part of `session.permissions.configure` (checked first: see {@link checkedPathsConfig}). */
  configure(config: PathsConfig): void {
    if (config.workspacePath !== undefined) this.primaryOverride = config.workspacePath;
    if (config.additionalDirectories !== undefined) this.added.splice(0, this.added.length, ...config.additionalDirectories);
    if (config.includeTempDirectory !== undefined) this.includeTemp = config.includeTempDirectory;
    if (config.unrestricted !== undefined) this.unrestricted = config.unrestricted;
  }

  /** Allows one more directory. */
  add(path: string): void {
    const directory = absolute(path);
    if (!this.added.some((kept) => samePath(kept, directory))) this.added.push(directory);
  }

  /** Makes a directory the primary one (the previous one is no longer allowed unless it was added). */
  updatePrimary(path: string): void {
    this.primaryOverride = absolute(path);
  }

  /** Whether `path` is in an allowed directory (always, when unrestricted). */
  isWithinAllowed(path: string): boolean {
    const target = absolute(path);
    return this.unrestricted || this.directories().some((directory) => isWithin(target, directory));
  }

  /** Whether `path` is in the primary directory. */
  isWithinWorkspace(path: string): boolean {
    return isWithin(absolute(path), this.primary);
  }
}

/** The URL policy: unrestricted (every URL fetched without asking) or not. */
export class UrlPolicy {
  unrestricted = false;

  /** Whether a `url` request is approved by the policy. */
  approves(request: PermissionRequest): boolean {
    return this.unrestricted && request.kind === "url";
  }
}

/**
 * A session's permission policy beyond approve-all and remembered approvals: its rules, its URL
 * policy and its allowed directories.
 */
export class PermissionPolicy {
  readonly rules = new PermissionRules();
  readonly urls = new UrlPolicy();
  readonly paths: PermissionPaths;

  constructor(workingDirectory: () => string) {
    this.paths = new PermissionPaths(workingDirectory);
  }

  /**
   * Applies a `session.permissions.configure` patch: everything is checked before anything changes,
   * so a refused patch (an unknown rule kind, a relative path) leaves the policy as it was. URLs
   * allowed from the start become approve rules of kind `url`.
   */
  configure(patch: PolicyPatch): void {
    const rules = patch.rules && { approved: patch.rules.approved.map(checkedRule), denied: patch.rules.denied.map(checkedRule) };
    const paths = patch.paths && checkedPathsConfig(patch.paths);
    const allowedUrls = (patch.urls?.initialAllowed ?? []).map((url): PermissionRule => ({ kind: "url", argument: url }));
    if (rules) this.rules.replace(rules);
    if (paths) this.paths.configure(paths);
    if (allowedUrls.length > 0) this.rules.add("approved", allowedUrls);
    if (patch.urls?.unrestricted !== undefined) this.urls.unrestricted = patch.urls.unrestricted;
  }

  /** What the policy decides for a request without asking anyone, if anything. */
  decide(request: PermissionRequest): RuleDecision | undefined {
    const byRules = this.rules.decide(request);
    if (byRules?.kind === "denied-by-rules") return byRules;
    if (byRules) return byRules;
    return this.urls.approves(request) ? { kind: "approved", rules: [{ kind: "url", argument: null }] } : undefined;
  }
}

function absolute(path: string): string {
  if (!isAbsolute(path)) throw invalidParams(`Path ${JSON.stringify(path)} is not absolute: give the full path of the directory or file`);
  return resolve(path);
}

/** The path with its symbolic links resolved as far as it exists (a file not yet written keeps its name). */
function canonical(path: string): string {
  const absolutePath = resolve(path);
  try {
    return realpathSync.native(absolutePath);
  } catch {
    const parent = resolve(absolutePath, "..");
    if (parent === absolutePath) return absolutePath;
    return resolve(canonical(parent), relative(parent, absolutePath));
  }
}

function samePath(left: string, right: string): boolean {
  return canonical(left) === canonical(right);
}

/** Whether `path` is `directory` or inside it, symbolic links resolved. */
function isWithin(path: string, directory: string): boolean {
  const inside = relative(canonical(directory), canonical(path));
  return inside === "" || (!inside.startsWith(`..${sep}`) && inside !== ".." && !isAbsolute(inside));
}
