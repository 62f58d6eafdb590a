import { z } from "zod";
import { SessionId } from "../common.js";
import { defineRequest } from "../method.js";
import { HistoryRewindUnavailableReason } from "./history.js";

const sessionScoped = { sessionId: SessionId };

/** `session.workspaces.getWorkspace`: the session's workspace metadata (official SDK 1.0 shape). */
export const SessionWorkspacesGetWorkspace = defineRequest(
  "session.workspaces.getWorkspace",
  () => z.looseObject(sessionScoped),
  () => z.looseObject({
    workspace: z
      .looseObject({
        id: z.string(),
        cwd: z.string().optional(),
        git_root: z.string().optional(),
        branch: z.string().optional(),
        name: z.string().optional(),
        summary_count: z.number().optional(),
        created_at: z.string().optional(),
        updated_at: z.string().optional(),
      })
      .nullable(),
    path: z.string().optional(),
  }),
);

/** One checkpoint: its number, a title and (Tandem) the git ref that holds it. */
export const WorkspacesCheckpoint = z.looseObject({ number: z.number(), title: z.string(), filename: z.string() });

/** `session.workspaces.listCheckpoints`: the session's checkpoints, oldest first. */
export const SessionWorkspacesListCheckpoints = defineRequest(
  "session.workspaces.listCheckpoints",
  () => z.looseObject(sessionScoped),
  () => z.looseObject({ checkpoints: z.array(WorkspacesCheckpoint) }),
);

/** `session.workspaces.readCheckpoint`: a checkpoint as text, or null when there is none with that number. */
export const SessionWorkspacesReadCheckpoint = defineRequest(
  "session.workspaces.readCheckpoint",
  () => z.looseObject({ ...sessionScoped, number: z.number().int() }),
  () => z.looseObject({ content: z.string().nullable() }),
);

/** Diff modes: working-tree changes, changes against the base branch, or what the session changed. */
export const WorkspaceDiffMode = z.enum(["unstaged", "branch", "session"]);

/** `session.workspaces.diff`: changed files with unified diffs. */
export const SessionWorkspacesDiff = defineRequest(
  "session.workspaces.diff",
  () => z.looseObject({ ...sessionScoped, mode: WorkspaceDiffMode, ignoreWhitespace: z.boolean().optional() }),
  () => z.looseObject({
    requestedMode: WorkspaceDiffMode,
    mode: WorkspaceDiffMode,
    changes: z.array(
      z.looseObject({
        path: z.string(),
        diff: z.string(),
        changeType: z.enum(["added", "modified", "deleted", "renamed"]),
        oldPath: z.string().optional(),
        isTruncated: z.boolean().optional(),
      }),
    ),
    baseBranch: z.string().optional(),
    isFallback: z.boolean(),
    unavailableReason: HistoryRewindUnavailableReason.optional(),
  }),
);

/** The `session.workspaces.*` requests Tandem serves. */
export const workspacesRequests = [SessionWorkspacesGetWorkspace, SessionWorkspacesListCheckpoints, SessionWorkspacesReadCheckpoint, SessionWorkspacesDiff] as const;
