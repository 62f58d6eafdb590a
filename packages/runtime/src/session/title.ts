import type { EventEmitterPort } from "../ports/events.js";
import { shortTitle } from "./turn-events.js";

/** What a title starts with: what a resumed session had. */
export interface TitleInit {
  /** The session's summary (its first prompt), when it has one. */
  summary?: string;
  /** The name the user gave the session (`session.name.set`). */
  name?: string;
}

/**
 * What a session is called: the name the user gave it, else a generated title
 * (`session.name.setAuto`), else a short form of its first prompt (its summary). Each change that
 * shows a new title is announced here with `session.title_changed`.
 *
 * @example
 * const title = new SessionTitle(emitter, {}, (summary) => saveWorkspace());
 * await title.rename("release notes", () => saveWorkspace());
 */
export class SessionTitle {
  private userName: string | undefined;
  private generated: string | undefined;
  private firstPrompt: string | undefined;

  /** @param onSummary called when the first user message gives the session its summary. */
  constructor(
    private readonly emitter: EventEmitterPort,
    init: TitleInit,
    private readonly onSummary: (summary: string) => void,
  ) {
    this.userName = init.name;
    this.firstPrompt = init.summary;
  }

  /** The name the user gave the session, if any (it replaces the automatic title). */
  get name(): string | undefined {
    return this.userName;
  }

  /** A generated title (`session.name.setAuto`): shown until the user names the session. */
  get autoName(): string | undefined {
    return this.generated;
  }

  /** The session's summary (its first prompt), once it has one. */
  get summary(): string | undefined {
    return this.firstPrompt;
  }

  /** What the session is called now; null before it has a name, a title or a first prompt. */
  current(): string | null {
    return this.userName ?? this.generated ?? (this.firstPrompt !== undefined ? shortTitle(this.firstPrompt) : null);
  }

  /** Names the session: `persist` writes the name down before `session.title_changed` announces it. */
  async rename(name: string, persist: () => Promise<void>): Promise<void> {
    this.userName = name;
    await persist();
    this.emitter.emit("session.title_changed", { title: name });
  }

  /** Sets a generated title, unless the user named the session; true when it was applied (and announced). */
  setGenerated(title: string): boolean {
    if (title === "" || this.userName !== undefined) return false;
    this.generated = title;
    this.emitter.emit("session.title_changed", { title });
    return true;
  }

  /** The first recorded user message gives the session its summary. */
  recordSummary(summary: string): void {
    this.firstPrompt = summary;
    this.onSummary(summary);
  }
}
