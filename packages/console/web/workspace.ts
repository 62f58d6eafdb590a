/** The worktree view of an isolated session: its branch, the branch it came from, and its diff. */
import { api } from "./api.js";
import { h, setChildren } from "./dom.js";

interface WorkspaceAnswer {
  workspace: { cwd?: string; branch?: string; git_root?: string } | null;
  /** Only for a session in its own worktree. */
  diff: { mode: string; isFallback: boolean; baseBranch?: string; changes: Array<{ path: string; diff: string; changeType: string }> } | null;
}

/** Shown only for a session that works in its own `git worktree` (the runtime's `branch` diff). */
export class WorkspacePanel {
  readonly element = h("details", { class: "workspace-panel", hidden: true, "data-testid": "workspace-panel" });
  #sessionId: string | undefined;

  /** Shows `sessionId`'s worktree (or hides the panel when it has none). */
  async load(sessionId: string): Promise<void> {
    this.#sessionId = sessionId;
    const answer = await api<WorkspaceAnswer>("GET", `sessions/${encodeURIComponent(sessionId)}/workspace`);
    if (this.#sessionId !== sessionId) return;
    const { workspace, diff } = answer;
    if (!diff || diff.mode !== "branch" || diff.isFallback || !workspace?.branch) {
      this.element.hidden = true;
      return;
    }
    const files = diff.changes.length === 1 ? "1 file changed" : `${diff.changes.length} files changed`;
    setChildren(
      this.element,
      h(
        "summary",
        {},
        "Worktree ",
        h("code", { class: "workspace-branch", "data-testid": "workspace-branch" }, workspace.branch),
        diff.baseBranch ? " from " : "",
        diff.baseBranch ? h("code", { class: "workspace-base" }, diff.baseBranch) : "",
        ` · ${files}`,
      ),
      h("div", { class: "workspace-path" }, workspace.cwd ?? ""),
      ...diff.changes.map((change) =>
        h(
          "div",
          { class: "diff workspace-change", "data-path": change.path },
          h("div", { class: "diff-path" }, `${change.changeType} ${change.path}`),
          ...change.diff
            .split("\n")
            .filter((line) => line !== "" && !line.startsWith("diff --git") && !line.startsWith("index "))
            .map((line) => h("div", { class: line.startsWith("+") && !line.startsWith("+++") ? "diff-add" : line.startsWith("-") && !line.startsWith("---") ? "diff-del" : "diff-context" }, line)),
        ),
      ),
    );
    this.element.hidden = false;
  }

  hide(): void {
    this.#sessionId = undefined;
    this.element.hidden = true;
  }
}
