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

/** What the console streams to the tabs of one session. */
export type ConsoleMessage =
  | {
      kind: "snapshot";
      history: SessionEvent[];
      permissions: PendingPermission[];
      asks: PendingAsk[];
      busy: boolean;
      usage: SessionEvent | undefined;
      model: string | undefined;
    }
  | { kind: "event"; event: SessionEvent }
  | { kind: "ask"; ask: PendingAsk }
  | { kind: "ask-answered"; id: string; answer: string }
  | { kind: "permission-answered"; requestId: string; decision: ConsoleDecision }
  | { kind: "error"; error: string; type: string };
