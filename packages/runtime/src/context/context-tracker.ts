import type { SessionContext } from "@tandem/protocol";
import type { EventEmitterPort } from "../ports/events.js";
import { sameContext } from "./git-context.js";
import { GitContextReader } from "./git-context-reader.js";

/**
 * Emits `session.context_changed` (cwd, gitRoot, repository `owner/name`, branch) when a session
 * starts and whenever its place changed at the end of a turn (a `git checkout` in a bash command,
 * say). The check reads three small files; turns that changed nothing emit nothing.
 *
 * @example
 * const context = await new ContextTracker(() => session.workingDirectory, session.emitter).start();
 * session.emitter.emit("session.context_changed", context);
 */
export class ContextTracker {
  private last: SessionContext | undefined;
  private checking: Promise<void> = Promise.resolve();
  private stopListening: (() => void) | undefined;

  /** @param cwd the session's working directory, read at each check (it may move: `session.metadata.setWorkingDirectory`) */
  constructor(
    private readonly cwd: () => string,
    private readonly emitter: EventEmitterPort,
    /** Shared by the runtime's sessions (reads of one folder are shared); a private one by default. */
    private readonly reader: GitContextReader = new GitContextReader(),
  ) {}

  /** Reads the context (the caller announces it), then checks again after every turn. */
  async start(): Promise<SessionContext> {
    this.last = await this.reader.read(this.cwd());
    this.stopListening ??= this.emitter.addListener((event) => {
      // After the idle event is on its way to the clients (their writers flush on setImmediate):
      // the check's file-system work must not delay it.
      if (event.type === "session.idle") setImmediate(() => this.check());
    });
    return this.last;
  }

  /** Stops watching. */
  dispose(): void {
    this.stopListening?.();
    this.stopListening = undefined;
  }

  private check(): void {
    this.checking = this.checking.then(async () => {
      const now = await this.reader.read(this.cwd()).catch(() => undefined);
      if (!now || (this.last && sameContext(this.last, now))) return;
      this.last = now;
      this.emitter.emit("session.context_changed", now);
    });
  }
}
