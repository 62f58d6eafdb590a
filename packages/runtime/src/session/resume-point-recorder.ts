import type { SessionEvent } from "@tandem/protocol";
import { subAgentRunOf } from "../compat/profile.js";
import { importOnce } from "../import-once.js";
import type { Logger } from "../log.js";
import type { SessionEventLog, SessionFiles } from "../store/types.js";

/** The replay and the point's writer, loaded with the first root compaction (a session that never compacts does not parse them). */
const loadResumePoint = importOnce(() => import("./resume-point.js"));

/**
 * Writes the session's resume point after each successful root compaction (see
 * `resume-point.ts`). Work is queued, one point at a time; failures are logged and leave the older
 * point (or none), which resume handles.
 *
 * @example
 * const recorder = new ResumePointRecorder(log, store.files(id), logger);
 * emitter.addListener((event) => recorder.observe(event));
 */
export class ResumePointRecorder {
  private work: Promise<void> = Promise.resolve();

  constructor(
    private readonly log: SessionEventLog,
    private readonly files: SessionFiles,
    private readonly logger: Logger,
  ) {}

  /** Takes every event of the session; acts on successful root compactions. */
  observe(event: SessionEvent): void {
    if (event.type !== "session.compaction_complete") return;
    const data = event.data as { success?: boolean; messagesRemoved?: number };
    if (!data.success || subAgentRunOf(event) !== undefined || !data.messagesRemoved) return;
    this.work = this.work
      .then(async () => {
        const { recordResumePoint } = await loadResumePoint();
        await recordResumePoint(this.log, this.files, this.logger, event.id);
      })
      .catch((error: unknown) => this.logger.warn("could not load the resume point's writer", error));
  }

  /** Resolves when the points queued so far are written (or given up). */
  settled(): Promise<void> {
    return this.work;
  }
}
