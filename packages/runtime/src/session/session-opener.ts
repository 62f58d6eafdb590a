import { stat } from "node:fs/promises";
import { parseGeneration, profileFor, type ClientGeneration, type CompatProfile } from "../compat/profile.js";
import { resolve } from "node:path";
import { ReasoningEffort, type AgentMode, type SessionContext, type SessionCreateParams, type SessionResumeParams } from "@tandem/protocol";
import { invalidParams, sessionNotFound } from "../errors.js";
import { persistenceFailed } from "../store/persistence-error.js";
import type { SessionEventLog } from "../store/types.js";
import type { ConversationMessage } from "../ports/conversation.js";
import { validateToolConfig, type BuiltinToolOptions } from "../tools/registry.js";
import { SessionEmitter, type RestoredEvents } from "./emitter.js";
import { ResumePointRecorder } from "./resume-point-recorder.js";
import { createSessionWorktree } from "../checkpoints/worktree.js";
import type { Session, SessionInit, SessionServices } from "./session.js";
import { compactionSettings } from "../compaction/config.js";
import type { SessionManagerOptions } from "./manager-options.js";
import { workspaceInfo } from "./session-metadata.js";
import type { SessionClaim } from "./ownership.js";

/** What a restored session starts with besides its config (read from its log and `workspace.yaml`). */
interface RestoredSession {
  events: RestoredEvents;
  /** The log the replay read (it continues where the replay saw the log end). */
  log: SessionEventLog;
  lastEventId: string | null;
  startTime: Date;
  summary?: string;
  name?: string;
  model?: string;
  mode?: AgentMode;
  selectedAgent?: string;
  approveAll?: boolean;
  messages: ConversationMessage[];
  sendKeys?: Record<string, string>;
}

/** What {@link SessionOpener} needs from the session manager. */
export interface OpenerHost {
  /** Constructs the session (the manager's `Session`). */
  createSession(init: SessionInit): Session;
  /** A session's resume-point writer, awaited when the session is released. */
  trackResumePoints(sessionId: string, recorder: ResumePointRecorder): void;
  /** The session is open: it joins the live sessions. */
  opened(session: Session): void;
  /** An event of the session was emitted (throttled `session.updated`). */
  scheduleUpdated(sessionId: string): void;
  /** Takes the session for this process before it opens (see `SessionOwnership.claim`). */
  claim(sessionId: string): Promise<SessionClaim>;
}

/**
 * Opens sessions for the manager: checks a new session's config and makes its folder, or replays
 * a persisted one from its log (taking the cluster lease first), then wires the session's emitter,
 * resume points and services. Remembers what a resume needs afterwards: the context a loaded
 * session last announced, and the node a session was taken over from.
 *
 * @example
 * const session = await opener.openNew(sessionId, params);
 */
export class SessionOpener {
  /** The context a session loaded from disk last announced, to tell whether it changed while closed. */
  private readonly lastContexts = new WeakMap<Session, SessionContext>();
  /** Sessions opened by taking them over from a node that died, until their first client attached. */
  private readonly takenOver = new Map<string, string>();

  constructor(
    private readonly options: SessionManagerOptions,
    private readonly host: OpenerHost,
  ) {}

  /** The context a session loaded from disk announced last before it was closed. */
  contextWhenClosed(session: Session): SessionContext | undefined {
    return this.lastContexts.get(session);
  }

  /** The node a session was taken over from, once: the first resume that asks gets it. */
  takeOverOrigin(sessionId: string): string | undefined {
    const takenOverFrom = this.takenOver.get(sessionId);
    if (takenOverFrom !== undefined) this.takenOver.delete(sessionId);
    return takenOverFrom;
  }

  /** Checks a new session's config and opens it (the id must not be on disk yet) for a client of `generation`. */
  async openNew(sessionId: string, params: SessionCreateParams, generation: ClientGeneration): Promise<Session> {
    if (await this.options.store.exists(sessionId)) throw sessionExists(sessionId);
    await this.host.claim(sessionId);
    const requestedDirectory = await checkDirectory(params.workingDirectory);
    validateToolConfig(params);
    compactionSettings(params);
    const workingDirectory = params.worktreeIsolation
      ? await createSessionWorktree(requestedDirectory, sessionId, this.options.store.sessionDir(sessionId))
      : requestedDirectory;
    if (params.agent && !(params.customAgents ?? []).some((agent) => agent.name === params.agent)) {
      throw invalidParams(`Unknown agent "${params.agent}": it is not among customAgents.`, { agent: params.agent });
    }
    return this.open(sessionId, params, workingDirectory, profileFor(generation), undefined);
  }

  /**
   * Replays a persisted session from its log and opens it for a client of `generation`; a client
   * without one (a stand-in) keeps the generation recorded in `workspace.yaml` (else 1.0.x).
   */
  async loadFromDisk(params: SessionResumeParams, generation: ClientGeneration | undefined): Promise<Session> {
    const { sessionId } = params;
    const { store } = this.options;
    const logger = this.options.logger.child(() => ({ sessionId }));
    if (!(await store.exists(sessionId))) throw sessionNotFound(sessionId);
    // The lease first: once it is ours, the previous owner can append nothing more to the log we read.
    const claim = await this.host.claim(sessionId);
    if (claim.takenOverFrom !== undefined) this.takenOver.set(sessionId, claim.takenOverFrom);
    const log = store.openEventLog(sessionId);
    // The replay code loads with the first resume (a runtime that only creates sessions does not parse it).
    const { replaySession } = await import("./resume-point.js");
    const replay = await replaySession(log, store.files(sessionId), logger);
    const { count, skippedLines, approveAll, excluded, end } = replay;
    if (skippedLines > 0) logger.warn(`${skippedLines} unreadable line(s) skipped while resuming`);
    if (replay.resumedFrom !== undefined) logger.debug(`resumed from its resume point at position ${replay.resumedFrom} (${replay.bytesRead} bytes read)`);
    const rebuilt = replay.history.finish();
    const workspace = await store.readWorkspace(sessionId);
    const workingDirectory = await checkDirectory(params.workingDirectory ?? rebuilt.cwd ?? workspace?.cwd);
    // A resume that names no reasoning effort keeps the one the session last used.
    const reasoningEffort = params.reasoningEffort ?? ReasoningEffort.safeParse(rebuilt.reasoningEffort).data;
    const profile = profileFor(generation ?? parseGeneration(workspace?.client_generation) ?? "1.0");
    const session = await this.open(sessionId, { ...params, ...(reasoningEffort ? { reasoningEffort } : {}) }, workingDirectory, profile, {
      events: { count, end, excluded },
      log,
      lastEventId: rebuilt.lastEventId,
      startTime: new Date(rebuilt.startTime ?? workspace?.created_at ?? Date.now()),
      summary: workspace?.summary ?? rebuilt.firstPrompt,
      name: workspace?.name,
      approveAll,
      model: rebuilt.model,
      mode: rebuilt.mode,
      selectedAgent: rebuilt.selectedAgent,
      messages: rebuilt.messages,
      ...(rebuilt.sendKeys ? { sendKeys: rebuilt.sendKeys } : {}),
    });
    if (rebuilt.context) this.lastContexts.set(session, rebuilt.context);
    return session;
  }

  private async open(sessionId: string, config: SessionCreateParams, workingDirectory: string, profile: CompatProfile, restored: RestoredSession | undefined): Promise<Session> {
    const { store } = this.options;
    const workspacePath = await store.createSessionDir(sessionId);
    const emitter = new SessionEmitter(sessionId, restored?.log ?? store.openEventLog(sessionId), restored?.lastEventId ?? null, () => this.host.scheduleUpdated(sessionId), this.options.redact);
    if (restored) emitter.restorePersisted(restored.events);
    const files = store.files(sessionId);
    const resumePoints = new ResumePointRecorder(emitter.log, files, this.options.logger);
    emitter.addListener((event) => resumePoints.observe(event));
    this.host.trackResumePoints(sessionId, resumePoints);
    this.options.observeSession?.(sessionId, emitter);
    const session = this.host.createSession({
      sessionId,
      config,
      workingDirectory,
      workspacePath,
      files,
      model: config.model ?? config.provider?.modelId ?? restored?.model ?? this.options.defaultModel,
      emitter,
      services: this.sessionServices(sessionId),
      messages: restored?.messages,
      ...(restored?.sendKeys ? { sendKeys: restored.sendKeys } : {}),
      startTime: restored?.startTime ?? new Date(),
      summary: restored?.summary,
      name: restored?.name,
      mode: restored?.mode,
      profile,
      largeOutputs: this.options.largeOutputSpillFor?.(sessionId, files),
    });
    if (restored?.approveAll) session.permissions.approvals.setApproveAll(true);
    if (restored?.selectedAgent) session.agents.restoreSelection(restored.selectedAgent);
    this.host.opened(session);
    return session;
  }

  private sessionServices(sessionId: string): SessionServices {
    return {
      logger: this.options.logger,
      protocolVersion: this.options.protocolVersion,
      retryPolicy: this.options.retryPolicy,
      maxModelCallsPerTurn: this.options.maxModelCallsPerTurn,
      createModelClient: (config, bearerTokens, logger) => this.options.createModelClient(config, sessionId, bearerTokens, logger),
      ...(this.options.builtinMcpServers ? { builtinMcpServers: this.options.builtinMcpServers } : {}),
      hookTimeoutMs: this.options.hookTimeoutMs,
      ...(this.options.clientReaskMs !== undefined ? { clientReaskMs: this.options.clientReaskMs } : {}),
      reportIntent: this.options.reportIntent,
      sandbox: this.options.sandbox ?? { bwrapPath: "bwrap", platform: process.platform },
      ...this.builtinToolsFor(sessionId),
      compaction: this.options.compaction,
      ...(this.options.folderTrust ? { folderTrust: this.options.folderTrust } : {}),
      onSummary: (session) => void this.saveWorkspace(session),
    };
  }

  /** The built-in tools' settings of a session, with its database when its store keeps that. */
  private builtinToolsFor(sessionId: string): { builtinTools?: BuiltinToolOptions } {
    const database = this.options.sqlDatabaseFor?.(sessionId);
    if (!database) return this.options.builtinTools ? { builtinTools: this.options.builtinTools } : {};
    return { builtinTools: { ...this.options.builtinTools, database } };
  }

  /** Writes `workspace.yaml`; a failure is the session's (reported, and retried before it accepts messages). */
  private async saveWorkspace(session: Session): Promise<void> {
    const { store } = this.options;
    try {
      await store.writeWorkspace(workspaceInfo(session));
    } catch (error) {
      session.persistence.fail(persistenceFailed(store.workspaceFilePath(session.sessionId), error), () => store.writeWorkspace(workspaceInfo(session)));
    }
  }
}

/**
 * The error for an id already in use (live, opening or on disk).
 *
 * @example
 * if (live.has(sessionId)) throw sessionExists(sessionId);
 */
export function sessionExists(sessionId: string) {
  return invalidParams(`Session ${sessionId} already exists; use session.resume to continue it.`, { sessionId });
}

/** The absolute working directory, or an invalid-params error when it is not a directory. */
async function checkDirectory(path: string | undefined): Promise<string> {
  const directory = resolve(path ?? process.cwd());
  const info = await stat(directory).catch(() => undefined);
  if (!info?.isDirectory()) throw invalidParams(`workingDirectory ${directory} does not exist or is not a directory`, { workingDirectory: directory });
  return directory;
}
