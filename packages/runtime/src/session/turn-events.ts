import type { AgentMode } from "@tandem/protocol";
import type { RunEndProfile } from "../compat/profile.js";
import type { EventEmitterPort } from "./emitter.js";

/** A short title from the first prompt: its first line, at most 60 characters. */
export function shortTitle(prompt: string): string {
  const firstLine = prompt.trim().split("\n")[0] ?? "";
  return firstLine.length <= 60 ? firstLine : `${firstLine.slice(0, 57).trimEnd()}...`;
}

/**
 * The events around each answered message besides the loop's own, in the reference's order
 * (the reference runtime's order): the title when the first prompt is accepted, `session.tools_updated {model}`
 * before the `user.message`, the system prompt as `system.message` after it, and `assistant.idle`
 * before `session.idle {mode, aborted?}` at the end (the session's profile leaves out what its
 * client generation does not get). How a cancelled run ends follows the profile's `runEnd`.
 */
export class TurnEvents {
  private titleAnnounced: boolean;

  constructor(
    private readonly emitter: EventEmitterPort,
    /** Whether the session already has its first prompt (resumed ones do). */
    hasFirstPrompt: boolean,
    /** The session's current profile's `runEnd` (a resume by the other generation changes it). */
    private readonly runEnd: () => RunEndProfile,
  ) {
    this.titleAnnounced = hasFirstPrompt;
  }

  /** A prompt was accepted: the first one names the session, unless the user named it. */
  accepted(prompt: string, userName: string | undefined): void {
    if (this.titleAnnounced) return;
    this.titleAnnounced = true;
    if (userName === undefined) this.emitter.emit("session.title_changed", { title: shortTitle(prompt) });
  }

  /** Before a message's `user.message`: the tools offered to `model`. */
  beforeUserMessage(model: string): void {
    this.emitter.emit("session.tools_updated", { model });
  }

  /** After the `user.message`: the system prompt the model gets for it (persisted). */
  systemPrompt(content: string): void {
    this.emitter.emit("system.message", { role: "system", content });
  }

  /**
   * The user cancelled the run (`"user initiated"`) or it stopped because the session's files could
   * not be written: `abort` (the session's profile spells the reason for its client generation),
   * then, for the user, a cancellation notice; the waiting messages were dropped, so the clients
   * re-read them (1.0.x). Emitted before the interrupted turn's `assistant.turn_end`.
   */
  aborted(reason: "user initiated" | "persistence failure"): void {
    this.emitter.emit("abort", { reason });
    if (reason === "user initiated") this.emitter.emit("session.info", { infoType: "cancellation", message: "Operation cancelled by user" });
    if (this.runEnd().abortRereadsQueue) this.emitter.emit("pending_messages.modified", {});
  }

  /** The turn an abort interrupted was closed after the abort: the clients re-read the queue once more (1.0.x). */
  interruptedTurnClosed(): void {
    if (this.runEnd().abortRereadsQueue) this.emitter.emit("pending_messages.modified", {});
  }

  /**
   * The user rejected a tool call, which ends the run: as a user cancellation (1.0.x), or, as
   * 1.0.10 does, with nothing but `pending_messages.modified` (the waiting messages stay waiting).
   */
  rejected(): void {
    if (this.runEnd().rejectionAborts) return this.aborted("user initiated");
    this.emitter.emit("pending_messages.modified", {});
  }

  /**
   * The loop went idle; `aborted` when its last run was cancelled. `mode` is left out in autopilot:
   * the 1.0.x SDK reads `session.idle {mode: "autopilot"}` as an idle autopilot continues from, and
   * its `sendAndWait` keeps waiting past it.
   */
  idle(mode: AgentMode, aborted: boolean): void {
    this.emitter.emit("assistant.idle", aborted ? { aborted } : {});
    const data = mode === "autopilot" ? {} : { mode };
    this.emitter.emit("session.idle", aborted ? { ...data, aborted } : data);
  }
}
