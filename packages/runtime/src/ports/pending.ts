import { randomUUID } from "node:crypto";

/** The kinds of requests a session waits on a client for. */
export type PendingKind = "tool" | "permission" | "userInput" | "elicitation" | "exitPlanMode" | "command" | "mcpOauth" | "autoModeSwitch";

interface PendingEntry {
  kind: PendingKind;
  /** What the request is about (a tool call's tool name, a `url` permission's URL), for {@link PendingRequests.abandonWhere}. */
  subject: string | undefined;
  /** What was asked (a permission request), for {@link PendingRequests.listOpen}. */
  detail: unknown;
  resolve: (value: unknown) => void;
  reject: (reason: unknown) => void;
}

/** Thrown into a waiting request when it is abandoned (abort, disconnect, destroy). */
export class PendingAbandoned extends Error {
  constructor(readonly reason: "aborted" | "disconnected" | "destroyed") {
    super(`request ${reason}`);
    this.name = "PendingAbandoned";
  }
}

/**
 * Requests the runtime is waiting on a client to answer, by `requestId`
 * (`external_tool.requested`, `permission.requested`, …).
 *
 * @example
 * const { requestId, promise } = pending.open<PermissionResult>("permission", signal);
 * // later, from session.permissions.handlePendingPermissionRequest:
 * pending.settle(requestId, "permission", result);
 */
export class PendingRequests {
  private readonly entries = new Map<string, PendingEntry>();

  /** Opens a request; the promise rejects with {@link PendingAbandoned} if `signal` aborts. */
  open<T>(kind: PendingKind, signal?: AbortSignal, subject?: string, detail?: unknown): { requestId: string; promise: Promise<T> } {
    const requestId = randomUUID();
    const promise = new Promise<T>((resolve, reject) => {
      if (signal?.aborted) {
        reject(new PendingAbandoned("aborted"));
        return;
      }
      const onAbort = (): void => {
        this.entries.delete(requestId);
        reject(new PendingAbandoned("aborted"));
      };
      signal?.addEventListener("abort", onAbort, { once: true });
      this.entries.set(requestId, {
        kind,
        subject,
        detail,
        resolve: (value) => {
          signal?.removeEventListener("abort", onAbort);
          resolve(value as T);
        },
        reject: (reason) => {
          signal?.removeEventListener("abort", onAbort);
          reject(reason);
        },
      });
    });
    return { requestId, promise };
  }

  /** What an open request is about (a tool call's tool name, a `url` permission's URL), if it is open. */
  subjectOf(requestId: string, kind: PendingKind): string | undefined {
    const entry = this.entries.get(requestId);
    return entry?.kind === kind ? entry.subject : undefined;
  }

  /** The open requests of one kind, oldest first, with what each asked. */

  /** Answers a request. Returns false when no request of that kind has this id. */
  settle(requestId: string, kind: PendingKind, value: unknown): boolean {
    const entry = this.entries.get(requestId);
    if (!entry || entry.kind !== kind) return false;
    this.entries.delete(requestId);
    entry.resolve(value);
    return true;
  }

  /** Abandons every open request (optionally of one kind). */
  abandonAll(reason: PendingAbandoned["reason"], kind?: PendingKind): void {
    for (const [requestId, entry] of this.entries) {
      if (kind && entry.kind !== kind) continue;
      this.entries.delete(requestId);
      entry.reject(new PendingAbandoned(reason));
    }
  }

  /** Abandons the open requests of one kind whose subject matches (e.g. tools no client provides any more). */
  abandonWhere(kind: PendingKind, matches: (subject: string | undefined) => boolean, reason: PendingAbandoned["reason"]): void {
    for (const [requestId, entry] of this.entries) {
      if (entry.kind !== kind || !matches(entry.subject)) continue;
      this.entries.delete(requestId);
      entry.reject(new PendingAbandoned(reason));
    }
  }

  /** The open requests of one kind, oldest first, with what each asked. */
  listOpen(kind: PendingKind): Array<{ requestId: string; detail: unknown }> {
    return [...this.entries].filter(([, entry]) => entry.kind === kind).map(([requestId, entry]) => ({ requestId, detail: entry.detail }));
  }

  /** The number of open requests. */
  get size(): number {
    return this.entries.size;
  }
}
