import type { PermissionRequest } from "@tandem/protocol";
import { h, setChildren } from "./dom.js";
import { displayPath, shortenPaths } from "./paths.js";
import type { ConsoleDecision } from "../src/messages.js";

/**
 * A tool card's status. A card starts `pending` ("Preparing"): the runtime announces a tool before
 * it asks for permission, so "Running" is shown only once the tool is approved or reports output
 * (never flash "Running" before "Waiting for permission").
 */
export type ToolStatus = "pending" | "waiting" | "asking" | "running" | "done" | "failed" | "denied";

const statusText: Record<ToolStatus, string> = {
  pending: "Preparing",
  waiting: "Waiting for permission",
  asking: "Waiting for your answer",
  running: "Running",
  done: "Done",
  failed: "Failed",
  denied: "Denied",
};

/** Tools whose result is a program's output, shown exactly as printed. */
const shellTools: ReadonlySet<string> = new Set(["bash", "powershell", "read_bash", "write_bash", "read_powershell", "write_powershell"]);

/** A tab's answer to a permission request (the server's vocabulary). */
export type Decision = ConsoleDecision;

/** One tool call, live. */
export class ToolCard {
  readonly element: HTMLElement;
  readonly #status: HTMLElement;
  readonly #output: HTMLElement;
  readonly #progress: HTMLElement;
  readonly #result: HTMLElement;
  readonly #permission: HTMLElement;
  readonly #children: HTMLElement;
  /** The card's one diff: from the arguments, replaced by the runtime's own diff when a write asks for permission. */
  readonly #diff: HTMLElement;
  status: ToolStatus = "pending";

  /** Paths under `cwd` (the session's working directory) are shown relative to it, in full on hover. */
  constructor(
    readonly toolCallId: string,
    readonly toolName: string,
    args: unknown,
    readonly cwd?: string,
  ) {
    this.#status = h("span", { class: "tool-status" });
    this.#output = h("pre", { class: "tool-output", hidden: true });
    this.#progress = h("div", { class: "tool-progress" });
    this.#result = h("div", { class: "tool-result" });
    this.#permission = h("div", { class: "permission" });
    this.#children = h("div", { class: "tool-children" });
    const summary = summarizeArgs(toolName, args);
    const argsView = h("details", { class: "tool-args" }, h("summary", { title: summary }, shortenPaths(summary, cwd)), h("pre", {}, JSON.stringify(args, null, 2)));
    this.#diff = h("div", { class: "tool-diff" }, diffFromArgs(toolName, args, cwd));
    this.element = h(
      "div",
      { class: "tool-card", "data-tool-call-id": toolCallId, "data-tool-name": toolName },
      h("div", { class: "tool-head" }, h("span", { class: "tool-name" }, toolName), this.#status),
      argsView,
      this.#diff,
      this.#permission,
      this.#progress,
      this.#output,
      this.#result,
      this.#children,
    );
    this.setStatus("pending");
  }

  /** The tool is an MCP server's (from `tool.execution_start`). */
  setMcp(serverName: string, toolName: string): void {
    this.element.dataset.mcpServer = serverName;
    this.element.dataset.mcpTool = toolName;
  }

  /** Whether this card is the call of `toolName` on MCP server `serverName`. */
  isMcpTool(serverName: string, toolName: string): boolean {
    const { mcpServer, mcpTool } = this.element.dataset;
    if (mcpServer !== undefined && mcpServer !== serverName) return false;
    // The request names the tool as the server does or as the model saw it (`server-tool`).
    return [mcpTool, this.toolName].includes(toolName) || this.toolName === `${serverName}-${toolName}`;
  }

  /** A sub-agent runs this tool's work (a `task`): its name goes in the card's head. */
  setAgent(name: string): void {
    this.element.dataset.agent = name;
    if (this.status === "pending") this.setStatus("running");
    this.element.querySelector(".tool-head .tool-name")?.append(h("span", { class: "tool-agent" }, ` → ${name}`));
  }

  /** Where sub-agent work started by this tool (a `task`) is shown. */
  get children(): HTMLElement {
    return this.#children;
  }

  setStatus(status: ToolStatus): void {
    this.status = status;
    this.element.dataset.status = status;
    this.#status.textContent = statusText[status];
  }

  /** Output arrived: the tool runs (unless it is already finished). The result replaces it when it comes. */
  appendOutput(text: string): void {
    this.#output.hidden = false;
    this.#output.textContent += text;
    if (this.status === "pending") this.setStatus("running");
  }

  progress(message: string): void {
    this.#progress.textContent = message;
    if (this.status === "pending") this.setStatus("running");
  }

  /** The call ended; `sandboxed` (what `bash` reports) puts a badge in the card's head. */
  complete(success: boolean, content: string | undefined, error: string | undefined, sandboxed?: boolean): void {
    this.clearPermission();
    if (sandboxed !== undefined) this.showSandbox(sandboxed);
    const denied = !success && /denied|rejected/i.test(`${error ?? ""} ${content ?? ""}`);
    this.setStatus(success ? "done" : denied ? "denied" : "failed");
    const text = success ? content : (error ?? content);
    if (!text) return;
    // The result holds the output streamed so far (and what followed): shown once, not twice.
    this.#output.hidden = true;
    this.#output.textContent = "";
    // A shell's output is shown as printed; other tools' messages name paths relative to the folder.
    setChildren(this.#result, h("pre", {}, shellTools.has(this.toolName) ? text : shortenPaths(text, this.cwd)));
  }

  /** Says in the card's head whether the command ran in the session's OS sandbox. */
  showSandbox(sandboxed: boolean): void {
    this.element.dataset.sandboxed = String(sandboxed);
    const badge = this.element.querySelector(".tool-sandbox") ?? this.element.querySelector(".tool-head")?.appendChild(h("span", { class: "tool-sandbox" }));
    if (badge) badge.textContent = sandboxed ? "sandboxed" : "not sandboxed";
  }

  /** Shows the request on the card with the three answers. */
  askPermission(request: PermissionRequest, answer: (decision: Decision) => void): void {
    this.setStatus("waiting");
    // A write shows the runtime's diff (the file as it is on disk), in place of the one from the arguments.
    if (request.kind === "write" && request.diff) setChildren(this.#diff, unifiedDiffView(request.diff, displayPath(request.fileName, this.cwd), request.fileName));
    const button = (decision: Decision, label: string) => h("button", { class: `decision ${decision}`, "data-decision": decision, onclick: () => answer(decision) }, label);
    setChildren(
      this.#permission,
      h("div", { class: "permission-title" }, permissionTitle(request, this.cwd)),
      permissionDetails(request, this.cwd),
      h("div", { class: "permission-actions" }, button("approve-once", "Approve once"), button("approve-for-session", "Approve for session"), button("reject", "Deny")),
    );
  }

  /** The request was answered (here, in another tab, or by the runtime). */
  permissionAnswered(approved: boolean): void {
    this.clearPermission();
    if (this.status === "waiting" || this.status === "pending") this.setStatus(approved ? "running" : "denied");
  }

  clearPermission(): void {
    this.#permission.replaceChildren();
  }
}

function summarizeArgs(toolName: string, args: unknown): string {
  const record = (args ?? {}) as Record<string, unknown>;
  const main = record.command ?? record.path ?? record.url ?? record.pattern ?? record.question ?? record.description;
  return typeof main === "string" ? `${toolName}: ${main}` : `${toolName} arguments`;
}

/** A diff view for `edit` (old_str → new_str) and `create` (the new file). */
function diffFromArgs(toolName: string, args: unknown, cwd: string | undefined): HTMLElement | null {
  const record = (args ?? {}) as Record<string, unknown>;
  const path = String(record.path ?? "");
  if (toolName === "edit" && typeof record.old_str === "string" && typeof record.new_str === "string") {
    return diffView(path, cwd, record.old_str, record.new_str);
  }
  if (toolName === "create" && typeof record.file_text === "string") return diffView(path, cwd, "", record.file_text);
  return null;
}

function diffView(path: string, cwd: string | undefined, before: string, after: string): HTMLElement {
  const lines = (text: string) => (text === "" ? [] : text.replace(/\n$/, "").split("\n"));
  return h(
    "div",
    { class: "diff" },
    h("div", { class: "diff-path", title: path }, displayPath(path, cwd)),
    ...lines(before).map((line) => h("div", { class: "diff-del" }, `- ${line}`)),
    ...lines(after).map((line) => h("div", { class: "diff-add" }, `+ ${line}`)),
  );
}

function permissionTitle(request: PermissionRequest, cwd: string | undefined): string {
  switch (request.kind) {
    case "shell":
      return "Run this shell command?";
    case "write":
      return `Write ${displayPath(request.fileName, cwd)}?`;
    case "read":
      return `Read ${displayPath(request.path, cwd)}?`;
    case "url":
      return `Fetch ${request.url}?`;
    case "mcp":
      return `Call ${request.toolTitle || request.toolName} on MCP server ${request.serverName}?`;
    case "memory":
      return "Remember this fact?";
    case "extension-management":
      return request.operation === "start" ? `Start extension ${request.extensionName ?? request.extensionId ?? ""} from this folder?` : `${request.operation} extension ${request.extensionName ?? ""}?`;
    default:
      return `Allow ${request.kind}?`;
  }
}

/**
 * What is asked, per kind: every sub-command of a shell line, the file written (its diff is the
 * card's), the path, the URL, the MCP server and tool, the extension and its folder.
 */
function permissionDetails(request: PermissionRequest, cwd: string | undefined): HTMLElement {
  const intention = "intention" in request && typeof request.intention === "string" && request.intention ? h("div", { class: "permission-intention" }, request.intention) : null;
  const field = (label: string, value: string) => h("div", { class: "permission-field" }, h("span", { class: "permission-label" }, label), h("code", {}, value));
  const pathField = (label: string, path: string) => h("div", { class: "permission-field" }, h("span", { class: "permission-label" }, label), h("code", { title: path }, displayPath(path, cwd)));
  switch (request.kind) {
    case "shell":
      return h(
        "div",
        {},
        intention,
        h("pre", { class: "permission-command" }, request.fullCommandText),
        h("ul", { class: "permission-commands" }, ...request.commands.map((command) => h("li", { "data-command": command.identifier }, h("code", {}, command.identifier), command.readOnly ? " (read-only)" : ""))),
        request.possiblePaths.length ? h("div", { class: "permission-field" }, h("span", { class: "permission-label" }, "Paths"), h("code", { title: request.possiblePaths.join(", ") }, request.possiblePaths.map((path) => displayPath(path, cwd)).join(", "))) : null,
        request.hasWriteFileRedirection ? h("div", { class: "permission-warning" }, "Writes to a file (redirection)") : null,
        sandboxNote(request),
      );
    case "write":
      return h("div", {}, intention, pathField("File", request.fileName));
    case "read":
      return h("div", {}, intention, pathField("Path", request.path));
    case "url":
      return h("div", {}, intention, field("URL", request.url));
    case "mcp":
      return h(
        "div",
        {},
        field("Server", request.serverName),
        field("Tool", request.toolTitle || request.toolName),
        request.readOnly ? h("div", { class: "permission-intention" }, "The server marks this tool read-only.") : null,
        h("pre", { class: "permission-args" }, JSON.stringify(request.args ?? {}, null, 2)),
      );
    case "memory":
      return h("pre", {}, request.fact);
    case "extension-management":
      return h(
        "div",
        {},
        request.operation === "start" ? h("div", { class: "permission-warning" }, "The working folder brings this program; approved, it runs as you, with your environment.") : null,
        request.extensionId ? field("Extension", request.extensionId) : request.extensionName ? field("Extension", request.extensionName) : null,
        request.path ? pathField("Path", request.path) : null,
        request.workingDirectory ? field("Folder", request.workingDirectory) : null,
      );
    default:
      return h("div", {}, intention);
  }
}

/** A unified diff, line by line: additions green, removals red, headers dim; its file named on top. */
function unifiedDiffView(diff: string, shownPath: string, fullPath: string): HTMLElement {
  const lineClass = (line: string) =>
    line.startsWith("+++") || line.startsWith("---") || line.startsWith("@@") || line.startsWith("diff ") || line.startsWith("index ") ? "diff-context" : line.startsWith("+") ? "diff-add" : line.startsWith("-") ? "diff-del" : "diff-context";
  // The file headers before the first hunk name the file, which the path line above already does.
  const all = diff.replace(/\n$/, "").split("\n");
  const firstHunk = all.findIndex((line) => line.startsWith("@@"));
  const lines = firstHunk > 0 ? all.slice(firstHunk) : all;
  return h("div", { class: "diff permission-diff" }, h("div", { class: "diff-path", title: fullPath }, shownPath), ...lines.map((line) => h("div", { class: lineClass(line) }, line)));
}

/** Where a shell command will run: in the sandbox, or (a bypass the model asks for) outside it, with its reason. */
function sandboxNote(request: Extract<PermissionRequest, { kind: "shell" }>): HTMLElement | null {
  if (request.requestSandboxBypass) {
    const reason = request.requestSandboxBypassReason ? `: ${request.requestSandboxBypassReason}` : "";
    return h("div", { class: "permission-warning sandbox-bypass" }, `Runs OUTSIDE the sandbox if you approve${reason}`);
  }
  if (request.sandboxed === true) return h("div", { class: "permission-sandbox" }, "Runs in the session's sandbox");
  return null;
}
