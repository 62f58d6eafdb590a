/** What the model reads before a prompt sent in plan mode (every reference runtime writes it). */
export const planPromptMark = "[[PLAN]]";

/** What a user message in plan mode carries for the model, before its prompt. */
export interface ModeNoticeText {
  /** The text put before the prompt: a mode-change notice (once, on entering plan mode) and the plan mark. */
  prefix: string;
  /** The mode the notice told the model about, when one was delivered with this message (`session.mode_notice_delivered`). */
  noticed?: "plan";
}

/**
 * Tells the model which agent mode a user message is answered in: a prompt sent in plan mode is
 * marked `[[PLAN]] `, and the first one after the session entered plan mode is preceded by a
 * `<mode_changed_notice>` that says what plan mode asks of it (1.0.x clients, as 1.0.102; 1.0.10
 * marked the prompt only). The notice's words are Tandem's own.
 *
 * @example
 * const notices = new ModeNotices(() => profile.deliversModeNotices, () => session.planPath);
 * const { prefix, noticed } = notices.forMessage("plan");
 */
export class ModeNotices {
  /** The agent mode the model was last told about (`interactive`, `plan`, `autopilot`). */
  private told = "interactive";

  constructor(
    /** Whether the session's client generation gets mode-change notices. */
    private readonly deliversNotices: () => boolean,
    /** The session's plan file, named in the notice. */
    private readonly planPath: () => string,
  ) {}

  /** The text before the prompt of a user message answered in the agent mode `mode`. */
  forMessage(mode: string): ModeNoticeText {
    const entering = mode !== this.told;
    this.told = mode;
    if (mode !== "plan") return { prefix: "" };
    if (!entering || !this.deliversNotices()) return { prefix: `${planPromptMark} ` };
    return { prefix: `${planModeNotice(this.planPath())}\n\n${planPromptMark} `, noticed: "plan" };
  }
}

/** The notice of entering plan mode, in Tandem's words. */
function planModeNotice(planPath: string): string {
  const instructions = [
    `Messages marked ${planPromptMark} are answered in plan mode: work out a plan before anything is changed.`,
    "- Read and search what you need. Changes to the workspace (writing files, shell commands that change things, MCP tools that are not read-only) are refused in this mode.",
    `- Write the plan to ${planPath} with the create or edit tool (this one file may be written) and keep it current as it changes.`,
    "- The plan says what the problem is, how you mean to solve it, and the steps, each small enough to check.",
    "- When the request is unclear, ask the user with ask_user rather than guessing.",
    "- End your answer with a short summary of the plan; call exit_plan_mode when it is ready for the user to approve.",
  ].join("\n");
  return `<mode_changed_notice>\n\n<plan_mode>\n${instructions}\n</plan_mode>\n\n</mode_changed_notice>`;
}
