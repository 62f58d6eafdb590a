import type { SessionCreateParams } from "@tandem/protocol";
import { invalidParams } from "../errors.js";
import type { Logger } from "../log.js";
import { askUserTool } from "./builtin/ask-user.js";
import { listBashTool, readBashTool, stopBashTool, writeBashTool } from "./builtin/bash-control.js";
import { bashTool, type ShellToolOptions } from "./builtin/bash.js";
import { createTool } from "./builtin/create.js";
import { editTool } from "./builtin/edit.js";
import { globTool } from "./builtin/glob.js";
import { grepTool } from "./builtin/grep.js";
import { reportIntentTool } from "./builtin/report-intent.js";
import { Ripgrep } from "./builtin/search/ripgrep.js";
import { SessionDatabase, type SessionDatabaseOptions, type SqlDatabase } from "./builtin/sql/session-database.js";
import { sqlTool } from "./builtin/sql/sql-tool.js";
import { ShellCommandParser } from "./builtin/shell/bash-parser.js";
import { ShellManager, type ShellManagerOptions } from "./builtin/shell/shell-manager.js";
import { NamedShellStates } from "./builtin/shell/shell-states.js";
import { taskCompleteTool } from "./builtin/task-complete.js";
import { viewTool, type ViewOptions } from "./builtin/view.js";
import { webFetchTool, type WebFetchOptions } from "./builtin/web-fetch.js";
import { ExternalTool } from "./external.js";
import type { Tool } from "./types.js";
import { ToolFilter, toolSource } from "./tool-filter.js";

/** Settings of the built-in tools (tests shorten limits; the defaults suit real sessions). */
export interface BuiltinToolOptions {
  shell?: ShellToolOptions;
  view?: ViewOptions;
  webFetch?: WebFetchOptions;
  /** The session database's settings (its time limit per query). */
  sql?: SessionDatabaseOptions;
  /** The session's database when something other than its `session.db` file keeps it (a client's file system). */
  database?: SqlDatabase;
}

/**
 * What the built-in tools of one session share: its shells, the bash parser of its permission
 * requests (loaded on the first one) and the ripgrep lookup. Create one per
 * session, pass it to {@link buildSessionTools} on create and on every resume, and call
 * `shells.dispose()` when the session shuts down.
 */
export interface BuiltinServices {
  shells: ShellManager;
  /** Which named shells ran a command that was not read-only, and when. */
  shellStates: NamedShellStates;
  commandParser: ShellCommandParser;
  ripgrep: Ripgrep;
  /** The session's SQLite database (the `sql` tool), opened on its first query. */
  database: SqlDatabase;
  options: BuiltinToolOptions;
}

/**
 * Services for one session's built-in tools.
 *
 * @example
 * const services = createBuiltinServices({ shells: { onBackgroundComplete: (done) => queueNotice(done.notice) } });
 */
export function createBuiltinServices(
  settings: {
    shells?: ShellManagerOptions;
    ripgrepPath?: string | null;
    options?: BuiltinToolOptions;
    logger?: Pick<Logger, "warn">;
    /** The session folder, where the `sql` tool keeps `session.db` (without one: in memory). */
    sessionFolder?: string;
  } = {},
): BuiltinServices {
  const { logger } = settings;
  return {
    shells: new ShellManager(settings.shells),
    shellStates: new NamedShellStates(),
    commandParser: new ShellCommandParser(logger ? { warn: (message, detail) => logger.warn(message, detail) } : {}),
    ripgrep: new Ripgrep(settings.ripgrepPath),
    database: settings.options?.database ?? new SessionDatabase(settings.sessionFolder, settings.options?.sql),
    options: settings.options ?? {},
  };
}

/**
 * The built-in tools in the order the model sees them: `bash, write_bash, read_bash, stop_bash,
 * list_bash, view, create, edit, web_fetch, [report_intent], [ask_user], sql, grep, glob,
 * task_complete` (the session offers `task_complete` only in plan and autopilot mode, after `sql`;
 * see `SessionToolset`; `report_intent` as its client generation or its settings say).
 *
 * @example
 * const tools = createBuiltinTools(createBuiltinServices(), { askUser: false, reportIntent: true });
 */
export function createBuiltinTools(services: BuiltinServices, include: { askUser: boolean; reportIntent: boolean }): Tool[] {
  const { shells, shellStates, commandParser, ripgrep, database, options } = services;
  return [
    bashTool(shells, options.shell, commandParser, shellStates),
    writeBashTool(shells, options.shell),
    readBashTool(shells, options.shell),
    stopBashTool(shells),
    listBashTool(shells),
    viewTool(options.view),
    createTool(),
    editTool(),
    webFetchTool(options.webFetch),
    ...(include.reportIntent ? [reportIntentTool()] : []),
    ...(include.askUser ? [askUserTool()] : []),
    sqlTool(database),
    grepTool(ripgrep),
    globTool(ripgrep),
    taskCompleteTool(),
  ];
}

/**
 * The tools a session offers the model: the built-ins, then the application's tools in
 * registration order (one with `overridesBuiltInTool: true` takes the built-in's place), filtered
 * by `availableTools` (an allow-list; the order stays) and `excludedTools` (see {@link ToolFilter}). A custom tool named
 * like a built-in without `overridesBuiltInTool` is an invalid-params error.
 *
 * @example
 * const tools = buildSessionTools({ tools: [{ name: "deploy", description: "…" }], excludedTools: ["web_fetch"] }, services);
 */
export function buildSessionTools(
  config: Pick<SessionCreateParams, "tools" | "availableTools" | "excludedTools" | "requestUserInput" | "reportIntent">,
  services: BuiltinServices = createBuiltinServices(),
): Tool[] {
  const builtins = createBuiltinTools(services, { askUser: config.requestUserInput === true, reportIntent: config.reportIntent === true });
  const builtinNames = new Set(builtins.map((tool) => tool.name));
  const overrides = new Map<string, Tool>();
  const custom: Tool[] = [];
  const seen = new Set<string>();
  for (const definition of config.tools ?? []) {
    const { name } = definition;
    if (seen.has(name)) throw invalidParams(`Tool "${name}" is defined twice.`, { tool: name });
    seen.add(name);
    const tool = new ExternalTool(definition);
    if (!builtinNames.has(name)) {
      custom.push(tool);
      continue;
    }
    if (!definition.overridesBuiltInTool) {
      throw invalidParams(
        `External tool "${name}" conflicts with a built-in tool of the same name. Set overridesBuiltInTool: true to explicitly override it.`,
        { tool: name },
      );
    }
    overrides.set(name, tool);
  }
  const tools = [...builtins.map((tool) => overrides.get(tool.name) ?? tool), ...custom];
  const filter = new ToolFilter(config.availableTools, config.excludedTools);
  return tools.filter((tool) => filter.allows(tool, toolSource(tool, builtinNames)));
}

/**
 * The names of the built-in tools (without building their JSON Schemas).
 *
 * @example
 * builtinToolNames().includes("bash"); // true
 */
export function builtinToolNames(): string[] {
  return createBuiltinTools(createBuiltinServices({ ripgrepPath: null }), { askUser: true, reportIntent: false }).map((tool) => tool.name);
}

/**
 * The built-in tools for `tools.list`: name, description and JSON Schema parameters.
 *
 * @example
 * listBuiltinTools().map((tool) => tool.name); // ["bash", "write_bash", …, "task_complete"]
 */
export function listBuiltinTools(): Array<{ name: string; description: string; parameters: Record<string, unknown> }> {
  return createBuiltinTools(createBuiltinServices({ ripgrepPath: null }), { askUser: true, reportIntent: false }).map((tool) => ({
    name: tool.name,
    description: tool.description,
    parameters: tool.parameters,
  }));
}

/**
 * Releases what a session's tools hold (its shells). Prefer disposing the session's
 * {@link BuiltinServices} directly; this helper serves callers that only kept the tool list.
 *
 * @example
 * await disposeSessionTools(session.tools);
 */
export async function disposeSessionTools(tools: readonly Tool[]): Promise<void> {
  await Promise.all(tools.map((tool) => tool.dispose?.()));
}

/**
 * Checks the application's tool definitions (duplicates, unannounced built-in overrides) before a
 * session is created, so a bad configuration fails `session.create` with a clear error.
 */
export function validateToolConfig(config: Pick<SessionCreateParams, "tools" | "requestUserInput">): void {
  buildSessionTools({ tools: config.tools, requestUserInput: config.requestUserInput }, createBuiltinServices({ ripgrepPath: null }));
}
