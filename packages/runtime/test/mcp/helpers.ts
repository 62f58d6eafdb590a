import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { ElicitationResult, McpServerConfig, PermissionResult, SessionEvent } from "@tandem/protocol";
import type { EventEmitterPort } from "../../src/session/emitter.js";
import type { McpElicitationRequest, McpHost } from "../../src/mcp/types.js";
import type { ToolContext, ToolPermissionRequest } from "../../src/tools/types.js";

/** The stdio fixture script. */
export const stdioServerScript = fileURLToPath(new URL("../../../../test/fixtures/mcp/stdio-server.mjs", import.meta.url));

/** One emitted event, as the fake emitter recorded it. */
export interface RecordedEvent {
  type: string;
  data: Record<string, unknown>;
}

/** A fake session: records events, log lines, elicitations and tool-set changes. */
export class FakeHost implements McpHost {
  readonly events: RecordedEvent[] = [];
  readonly logLines: string[] = [];
  readonly elicitations: McpElicitationRequest[] = [];
  toolsChangedCount = 0;
  elicitAnswer: (request: McpElicitationRequest, signal: AbortSignal) => Promise<ElicitationResult> = async () => ({ action: "decline" });

  readonly emitter: EventEmitterPort = {
    emit: (type, data) => {
      this.events.push({ type, data: data as Record<string, unknown> });
      return { type, data, id: String(this.events.length), timestamp: new Date().toISOString(), parentId: null } as never;
    },
    sinkCount: 1,
    addListener: () => () => undefined,
  };

  readonly logger = {
    debug: (message: string) => void this.logLines.push(`debug ${message}`),
    info: (message: string) => void this.logLines.push(`info ${message}`),
    warn: (message: string) => void this.logLines.push(`warn ${message}`),
    error: (message: string) => void this.logLines.push(`error ${message}`),
  };

  constructor(readonly workingDirectory: string) {}

  elicit(request: McpElicitationRequest, signal: AbortSignal): Promise<ElicitationResult> {
    this.elicitations.push(request);
    return this.elicitAnswer(request, signal);
  }

  onToolsChanged(): void {
    this.toolsChangedCount++;
  }

  /** The data of every event of `type`. */
  eventsOf(type: string): Array<Record<string, unknown>> {
    return this.events.filter((event) => event.type === type).map((event) => event.data);
  }
}

/** A tool context whose permission answer is `permission`; records the requests it saw. */
export function toolContext(
  host: FakeHost,
  options: { toolCallId?: string; permission?: PermissionResult; signal?: AbortSignal } = {},
): ToolContext & { permissionRequests: ToolPermissionRequest[] } {
  const permissionRequests: ToolPermissionRequest[] = [];
  const toolCallId = options.toolCallId ?? "call-1";
  return {
    sessionId: "session-1",
    toolCallId,
    toolName: "mcp",
    signal: options.signal ?? new AbortController().signal,
    workingDirectory: host.workingDirectory,
    emitter: host.emitter,
    permissionRequests,
    requestPermission: async (request) => {
      permissionRequests.push(request);
      return options.permission ?? { kind: "approved" };
    },
    callClientTool: async () => ({ error: "not in this test" }),
    requestUserInput: async () => {
      throw new Error("not in this test");
    },
  };
}

/** A temporary directory with a fixture log file; `entries()` reads what the server recorded. */
export class FixtureLog {
  readonly dir = mkdtempSync(join(tmpdir(), "tandem-mcp-"));
  readonly file = join(this.dir, "server.jsonl");

  entries(): Array<Record<string, unknown>> {
    try {
      return readFileSync(this.file, "utf8")
        .split("\n")
        .filter((line) => line.trim() !== "")
        .map((line) => JSON.parse(line) as Record<string, unknown>);
    } catch {
      return [];
    }
  }

  of(event: string): Array<Record<string, unknown>> {
    return this.entries().filter((entry) => entry.event === event);
  }

  remove(): void {
    rmSync(this.dir, { recursive: true, force: true });
  }
}

/** A config running the stdio fixture, logging to `log`. */
export function stdioConfig(log: FixtureLog, extra: Partial<Extract<McpServerConfig, { command: string }>> = {}): McpServerConfig {
  return {
    command: process.execPath,
    args: [stdioServerScript],
    tools: ["*"],
    ...extra,
    env: { MCP_FIXTURE_LOG: log.file, ...extra.env },
  };
}

/** Waits until `condition` holds (polling), or fails after `timeoutMs`. */
export async function waitFor(condition: () => boolean, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error("condition not met in time");
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** Whether a process is alive. */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

export type { SessionEvent };
