// Types only: the messages the console's server streams to the browser app. Both sides import
// them (the browser bundle through `import type`, so nothing of the server is bundled).
import type { PermissionRequest, SessionEvent } from "@tandem/protocol";

/** The permission answers a tab can give (the official SDK 1.0 decision vocabulary). */
export type ConsoleDecision = "approve-once" | "approve-for-session" | "reject";

/** A permission request the runtime is waiting on (from `permission.requested`). */
export interface PendingPermission {
  requestId: string;
  permissionRequest: PermissionRequest;
}

/** An `ask_user` question waiting for the user's answer. */
export interface PendingAsk {
  id: string;
  question: string;
  choices?: string[];
  allowFreeform?: boolean;
}

/** A form an MCP server asks the user to fill in (from `elicitation.requested`). */
export interface PendingElicitation {
  requestId: string;
  message: string;
  source?: string;
  mode?: string;
  requestedSchema?: { type: "object"; properties: Record<string, unknown>; required?: string[] };
}

/** The agent's plan, waiting for the user's choice (from `exit_plan_mode.requested`). */
export interface PendingPlanExit {
  requestId: string;
  summary: string;
  planContent: string;
  actions: string[];
  recommendedAction: string;
}

/** Tokens of the current (or last) turn, summed over its `assistant.usage` events. */
export interface TurnUsage {
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  modelCalls: number;
}

/** What the console streams to the tabs of one session. */
export type ConsoleMessage =
  | {
      kind: "snapshot";
      history: SessionEvent[];
      permissions: PendingPermission[];
      asks: PendingAsk[];
      busy: boolean;
      usage: SessionEvent | undefined;
      turnUsage: TurnUsage | undefined;
      model: string | undefined;
      mode: string | undefined;
      /** The session's title, when it has one. */
      title: string | undefined;
      /** The session's working directory: tool paths under it are shown relative to it. */
      cwd: string | undefined;
      elicitations: PendingElicitation[];
      planExits: PendingPlanExit[];
    }
  | { kind: "event"; event: SessionEvent }
  | { kind: "ask"; ask: PendingAsk }
  | { kind: "ask-answered"; id: string; answer: string }
  | { kind: "permission-answered"; requestId: string; decision: ConsoleDecision }
  | { kind: "error"; error: string; type: string };
