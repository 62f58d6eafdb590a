import type { SessionScopePort } from "../ports/session-scope.js";
import type { GitCheckpoints } from "./git-checkpoints.js";
import type { SessionHistory } from "./session-history.js";
import { readWorktreeInfo } from "./worktree.js";

/** What {@link SessionWorkspaceView} needs from its session: part of its scope, its summary and its history. */
export interface WorkspaceHost {
  readonly scope: Pick<SessionScopePort, "sessionId" | "workingDirectory" | "workspacePath" | "startTime">;
  /** The session's summary (its first prompt), once it has one. */
  readonly title: { readonly summary: string | undefined };
  readonly history: SessionHistory;
}

type DiffMode = "unstaged" | "branch" | "session";

/** A changed file as `session.workspaces.diff` reports it. */
export type WorkspaceDiffChange = {
  path: string;
  diff: string;
  changeType: "added" | "modified" | "deleted";
}

/** The `session.workspaces.diff` result. */
export type WorkspaceDiff = {
  requestedMode: DiffMode;
  mode: DiffMode;
  changes: WorkspaceDiffChange[];
  baseBranch?: string;
  isFallback: boolean;
  unavailableReason?: "file-change-tracking-disabled";
}

/** Git's empty tree: the base of a diff in a repository without commits. */
const emptyTree = "4b825dc642cb6eb9a060e54bf8d69288fbee4904";

/**
 * `session.workspaces.*` over the session's folder and git checkpoints: the workspace (folder, git
 * root, branch — `tandem/<sessionId>` for an isolated session), the checkpoints as a list, and diffs
 * (working-tree changes, the isolated branch against the branch it came from, what the session changed).
 *
 * @example
 * const view = new SessionWorkspaceView(session);
 * const { changes } = await view.diff("branch");
 */
export class SessionWorkspaceView {
  constructor(private readonly host: WorkspaceHost) {}

  /** `getWorkspace`: the workspace metadata and the session folder. */
  async getWorkspace() {
    const store = await this.host.history.checkpoints();
    const branch = store ? await store.runner.line(["symbolic-ref", "--short", "-q", "HEAD"]).catch(() => "") : "";
    return {
      workspace: {
        id: this.host.scope.sessionId,
        cwd: this.host.scope.workingDirectory,
        ...(store ? { git_root: store.root } : {}),
        ...(branch ? { branch } : {}),
        ...(this.host.title.summary ? { name: this.host.title.summary } : {}),
        summary_count: 0,
        created_at: this.host.scope.startTime.toISOString(),
        updated_at: new Date().toISOString(),
      },
      path: this.host.scope.workspacePath,
    };
  }

  /** `listCheckpoints`: the git checkpoints, oldest first; `filename` is the ref that holds each. */
  async listCheckpoints(): Promise<{ checkpoints: Array<{ number: number; title: string; filename: string }> }> {
    const store = await this.host.history.checkpoints();
    if (!store) return { checkpoints: [] };
    await this.host.history.settled();
    const prompts = await this.prompts();
    return {
      checkpoints: store.all.map((checkpoint) => ({
        number: checkpoint.number,
        title: `${checkpoint.phase} of turn: ${prompts.get(checkpoint.eventId) ?? checkpoint.eventId}`,
        filename: checkpoint.ref,
      })),
    };
  }

  /** `readCheckpoint`: a checkpoint as text (ref, commit, turn, files changed since the one before), or null. */
  async readCheckpoint(number: number): Promise<{ content: string | null }> {
    const store = await this.host.history.checkpoints();
    const index = store?.all.findIndex((checkpoint) => checkpoint.number === number) ?? -1;
    const checkpoint = store?.all[index];
    if (!store || !checkpoint) return { content: null };
    const previous = store.all[index - 1];
    const changes = previous ? await store.changesBetween(previous.commit, checkpoint.commit) : [];
    const lines = [
      `# Checkpoint ${checkpoint.number}: ${checkpoint.phase} of turn ${checkpoint.eventId}`,
      "",
      `ref: ${checkpoint.ref}`,
      `commit: ${checkpoint.commit}`,
      `turn: ${(await this.prompts()).get(checkpoint.eventId) ?? "(no longer in the conversation)"}`,
      "",
      previous ? `Files changed since checkpoint ${previous.number}: ${changes.length}` : "The first checkpoint of the session.",
      ...changes.map((change) => `- ${change.changeType} ${change.path} (+${change.linesAdded} -${change.linesRemoved})`),
    ];
    return { content: `${lines.join("\n")}\n` };
  }

  /**
   * `diff`: `unstaged` = the working tree (staged, unstaged and untracked) against HEAD; `branch` =
   * an isolated session's worktree against the commit it branched from; `session` = the working tree
   * against the session's first checkpoint. A mode that cannot be answered falls back to `unstaged`.
   */
  async diff(requestedMode: DiffMode, ignoreWhitespace = false): Promise<WorkspaceDiff> {
    const store = await this.host.history.checkpoints();
    if (!store) return { requestedMode, mode: requestedMode, changes: [], isFallback: false, unavailableReason: "file-change-tracking-disabled" };
    await this.host.history.settled();
    if (requestedMode === "branch") {
      const worktree = await readWorktreeInfo(this.host.scope.workspacePath);
      if (worktree) {
        const changes = await store.diffSince(worktree.baseCommit, ignoreWhitespace);
        return { requestedMode, mode: "branch", changes, ...(worktree.baseBranch ? { baseBranch: worktree.baseBranch } : {}), isFallback: false };
      }
    }
    if (requestedMode === "session") {
      const first = store.all[0];
      if (first) return { requestedMode, mode: "session", changes: await store.diffSince(first.commit, ignoreWhitespace), isFallback: false };
    }
    const changes = await store.diffSince(await this.head(store), ignoreWhitespace);
    const fallback = requestedMode !== "unstaged";
    return { requestedMode, mode: "unstaged", changes, isFallback: fallback, ...(fallback && requestedMode === "session" ? { unavailableReason: "file-change-tracking-disabled" as const } : {}) };
  }

  private async head(store: GitCheckpoints): Promise<string> {
    return store.runner.line(["rev-parse", "--verify", "-q", "HEAD"]).catch(() => emptyTree);
  }

  /** The prompt of every root turn still in the conversation, by its event id. */
  private async prompts(): Promise<Map<string, string>> {
    const prompts = new Map<string, string>();
    for (const entry of (await this.host.history.timeline()).live) {
      if (entry.turn) prompts.set(entry.id, entry.turn.userMessage.split("\n")[0]?.slice(0, 80) ?? "");
    }
    return prompts;
  }
}
