import { randomUUID } from "node:crypto";
import { profileFor } from "../compat/profile.js";
import type { McpServerConfig, SessionContext, SessionCreateParams, SessionLifecycleEvent, SessionMetadata, SessionResumeParams } from "@tandem/protocol";
import { ErrorCodes, errorMessage, invalidParams, sessionNotFound, TandemError } from "../errors.js";
import { persistenceFailed } from "../store/persistence-error.js";
import { validateToolConfig } from "../tools/registry.js";
import type { ClientPort } from "./client-port.js";
import { registrationOf } from "./clients.js";
import type { ResumePointRecorder } from "./resume-point-recorder.js";
import { Session } from "./session.js";
import type { SessionEnding } from "./metrics.js";
import { shortTitle } from "./turn-events.js";
import { compactionSettings } from "../compaction/config.js";
import { ContextTracker } from "../context/context-tracker.js";
import { GitContextReader } from "../context/git-context-reader.js";
import { sameContext } from "../context/git-context.js";
import { lifecycleMetadata, listedSessions, openedResult, startData, workspaceInfo, type SessionListFilter, type SessionOpened } from "./session-metadata.js";
import { sessionExists, SessionOpener } from "./session-opener.js";
import { SingleNodeOwnership, type SessionOwnership } from "./ownership.js";

export type { SessionOpened } from "./session-metadata.js";
export type { SessionManagerOptions } from "./manager-options.js";
import type { SessionManagerOptions } from "./manager-options.js";
import { defaultPendingWorkGraceMs, HeldWork, waitsOnClients } from "./held-work.js";

/** The shortest interval between two `session.updated` notifications of one session. */
const updatedThrottleMs = 100;

/**
 * Owns the live sessions: creates, resumes (from memory or disk), lists, destroys and deletes
 * them, and detaches clients when they go away.
 */
export class SessionManager {
  private readonly live = new Map<string, Session>();
  private readonly opening = new Map<string, Promise<Session>>();
  private readonly gitContexts: GitContextReader;
  private readonly updateScheduled = new Set<string>();
  /** Each live session's resume-point writer (awaited when the session is released). */
  private readonly resumePoints = new Map<string, ResumePointRecorder>();
  private foregroundId: string | undefined;
  /** Opens new sessions and loads persisted ones. */
  private readonly opener: SessionOpener;
  /** Sessions left by their clients while their turn waits on a client's answer. */
  private readonly held: HeldWork;
  /** Which process may run a session (this one alone until a cluster is joined). */
  private ownership: SessionOwnership = new SingleNodeOwnership();

  constructor(private readonly options: SessionManagerOptions) {
    this.gitContexts = options.gitContexts ?? new GitContextReader();
    this.held = new HeldWork(options.pendingWorkGraceMs ?? defaultPendingWorkGraceMs);
    this.opener = new SessionOpener(options, {
      createSession: (init) => new Session(init),
      trackResumePoints: (sessionId, recorder) => this.resumePoints.set(sessionId, recorder),
      opened: (session) => this.live.set(session.sessionId, session),
      scheduleUpdated: (sessionId) => this.scheduleUpdated(sessionId),
      claim: (sessionId) => this.ownership.claim(sessionId),
    });
  }

  /**
   * Cluster: from now on a session is claimed through `ownership` before it opens here, given
   * back when it leaves memory, and handed over when it was taken over from a node that died.
   */
  ownedBy(ownership: SessionOwnership): void {
    this.ownership = ownership;
  }

  /** A live session, or a "Session not found" error. */
  get(sessionId: string): Session {
    const session = this.live.get(sessionId);
    if (!session) throw sessionNotFound(sessionId);
    return session;
  }

  /** A live session, if there is one. */
  find(sessionId: string): Session | undefined {
    return this.live.get(sessionId);
  }

  /** Live sessions. */
  liveSessions(): Session[] {
    return [...this.live.values()];
  }

  async create(params: SessionCreateParams, port: ClientPort): Promise<SessionOpened> {
    const sessionId = params.sessionId ?? randomUUID();
    // One session.start per session: an id in use (live, opening or on disk) is never created
    // again. The id is taken synchronously here, so two racing creates cannot both pass.
    if (this.live.has(sessionId) || this.opening.has(sessionId)) throw sessionExists(sessionId);
    const opening = this.opener.openNew(sessionId, params, port.generation ?? "1.0");
    this.opening.set(sessionId, opening);
    try {
      const session = await opening;
      session.attach(port, registrationOf(params));
      session.history.startedNew(params.worktreeIsolation === true);
      session.loop.prefetchPromptFacts();
      // Independent file-system work, side by side: the answer to create waits for both.
      const [context] = await Promise.all([this.trackContext(session), this.options.store.writeWorkspace(workspaceInfo(session))]);
      // `session.start` carries the context; `session.context_changed` follows only a real change
      // (no reference runtime of either client generation announces it again at start).
      session.emitter.emit("session.start", { ...startData(session, this.options.runtimeVersion, false), context });
      if (params.agent) session.agents.select(params.agent);
      await session.skills.load();
      const disabled = session.toolset.disabledNames();
      if (disabled.length > 0) session.emitter.emit("session.info", { infoType: "configuration", message: `Disabled tools: ${disabled.join(", ")}` });
      // MCP servers connect lazily: at the first turn (which waits for them) or at `session.mcp.list`.
      await session.loop.runStartHook("new");
      this.options.broadcastLifecycle({ type: "session.created", sessionId, metadata: lifecycleMetadata(session) });
      const { logger, model } = session.scope;
      if (logger.enabled("info")) logger.info("session created", { model });
      return openedResult(session, false);
    } catch (error) {
      if (!this.live.has(sessionId)) this.ownership.released(sessionId);
      throw error;
    } finally {
      this.opening.delete(sessionId);
    }
  }

  /**
   * Opens a persisted session, or joins a live one. Joining: the client's own registration (tools,
   * handlers; see `SessionClients`) replaces what it registered before and adds to the other
   * clients'; the session-wide settings it sends replace the old ones.
   */
  async resume(params: SessionResumeParams, port: ClientPort): Promise<SessionOpened> {
    const { sessionId } = params;
    validateToolConfig(params);
    compactionSettings(params);
    let session = this.live.get(sessionId);
    if (port.extensionId !== undefined) return this.joinAsExtension(session, params, port);
    const sessionWasLive = session !== undefined;
    let changedContext: SessionContext | undefined;
    // Whether other clients were using the session: a held session (its clients all left) was not.
    const sessionWasActive = session !== undefined && session.emitter.sinkCount > 0;
    const continuePendingWork = params.continuePendingWork === true;
    if (session && this.held.release(sessionId) && !continuePendingWork) {
      // The work held for a returning client is not wanted: the turn ends as if interrupted.
      await session.abort();
    }
    if (session) {
      // The client that resumes the session decides its profile from now on (a stand-in keeps it).
      if (port.generation !== undefined) session.scope.profile = profileFor(port.generation);
      session.attach(port, registrationOf(params));
      const merged = mergeConfig(session.scope.config, params);
      const mcpChanged = mcpSettingsChanged(session.scope.config, params);
      session.reconfigure(merged, params.model ?? session.scope.model);
      if (mcpChanged) await session.toolset.replaceMcpServers(merged);
      if (params.skillDirectories || params.disabledSkills) {
        await session.skills.reconfigure(merged.skillDirectories ?? [], merged.disabledSkills ?? []);
      }
    } else {
      const pending = this.opening.get(sessionId) ?? this.opener.loadFromDisk(params, port.generation);
      this.opening.set(sessionId, pending);
      try {
        session = await pending;
      } catch (error) {
        if (!this.live.has(sessionId)) this.ownership.released(sessionId);
        throw error;
      } finally {
        this.opening.delete(sessionId);
      }
      await session.skills.load();
      session.attach(port, registrationOf(params));
      const context = await this.trackContext(session);
      const last = this.opener.contextWhenClosed(session);
      // Changed while the session was closed (a branch switched): announced after `session.resume`.
      if (last && !sameContext(last, context)) changedContext = context;
    }
    if (!params.disableResume) {
      session.emitter.emit("session.resume", {
        resumeTime: new Date().toISOString(),
        eventCount: session.emitter.persistedCount,
        selectedModel: session.scope.model,
        // Echoed as the client gave it (the 1.0.x SDK reads an explicit false back); absent when not given.
        ...(params.continuePendingWork !== undefined ? { continuePendingWork } : {}),
        sessionWasActive,
        ...(session.scope.config.reasoningEffort ? { reasoningEffort: session.scope.config.reasoningEffort } : {}),
        context: { cwd: session.scope.workingDirectory },
      });
    }
    if (changedContext) session.emitter.emit("session.context_changed", changedContext);
    // As at create, MCP servers connect at the first turn or at `session.mcp.list`.
    // As 1.0.x's references: the resumed session's tool set and skills, before its title.
    if (session.scope.profile.announcesToolsAtResume) {
      session.emitter.emit("session.tools_updated", { model: session.scope.model });
      session.skills.announce();
    }
    if (session.title.name !== undefined) session.emitter.emit("session.title_changed", { title: session.title.name });
    // The same title the session got when its first prompt was accepted.
    else if (session.title.summary) session.emitter.emit("session.title_changed", { title: shortTitle(session.title.summary) });
    await session.loop.runStartHook("resume");
    session.loop.reportContextUsageSoon();
    const takenOverFrom = this.opener.takeOverOrigin(sessionId);
    if (takenOverFrom !== undefined) await this.ownership.tookOver(session, takenOverFrom);
    const { logger, model } = session.scope;
    if (logger.enabled("info")) logger.info("session resumed", { model, from: sessionWasLive ? "memory" : "store" });
    return openedResult(session, true);
  }

  /**
   * An extension's `joinSession()`: it adds its tools and handlers to the live session, and nothing
   * else — the session's settings stay the application's, no `session.resume` is emitted, and
   * permission requests stay with the application.
   */
  private joinAsExtension(session: Session | undefined, params: SessionResumeParams, port: ClientPort): SessionOpened {
    if (!session) throw invalidParams(`Extension ${port.extensionId} can only join a live session; ${params.sessionId} is not open.`, { sessionId: params.sessionId });
    session.attach(port, { ...registrationOf(params), requestPermission: false });
    return openedResult(session, true);
  }

  /** Starts watching a session's cwd / git root / repository / branch; answers where it is now. */
  private async trackContext(session: Session) {
    return new ContextTracker(() => session.scope.workingDirectory, session.emitter, this.gitContexts).start();
  }

  /**
   * Releases a session's memory; its files stay. Unknown ids are fine. When its last events or its
   * `workspace.yaml` could not be written, the session is released all the same and then a
   * `PersistenceFailed` error says what was lost.
   */
  async destroy(sessionId: string, ending?: SessionEnding): Promise<void> {
    const session = this.live.get(sessionId);
    if (!session) return;
    this.live.delete(sessionId);
    this.held.release(sessionId);
    await session.shutdown(ending).finally(() => this.ownership.released(sessionId));
    if (session.scope.logger.enabled("info")) session.scope.logger.info("session shut down");
    await this.resumePoints.get(sessionId)?.settled();
    this.resumePoints.delete(sessionId);
    const lostEvents = session.emitter.log.failure;
    const workspaceFailure = await this.options.store.writeWorkspace(workspaceInfo(session)).then(
      () => undefined,
      (error: unknown) => persistenceFailed(this.options.store.workspaceFilePath(sessionId), error),
    );
    const failure = lostEvents ?? workspaceFailure;
    if (!failure) return;
    const lostText = lostEvents ? `${session.emitter.log.heldLines} event(s) could not be written and are lost` : "its workspace.yaml is out of date";
    throw new TandemError(ErrorCodes.PersistenceFailed, `Session ${sessionId} was destroyed, but ${lostText}: ${failure.message}`, { ...failure.data, sessionId });
  }

  /**
   * `session.destroy` from a client: while other clients are attached, only that client leaves
   * (its tools and handlers with it); otherwise the session's memory is released.
   */
  async release(sessionId: string, port: ClientPort): Promise<void> {
    const session = this.live.get(sessionId);
    if (session?.isAttached(port) && session.emitter.sinkCount > 1) {
      session.detach(port);
      return;
    }
    await this.destroy(sessionId);
  }

  /**
   * `session.detach`: this client leaves the session. Other clients keep it; when none is left, its
   * memory is released (disk is kept). A client that is not attached changes nothing; unknown ids are fine.
   */
  async detach(sessionId: string, port: ClientPort): Promise<void> {
    const session = this.live.get(sessionId);
    if (!session?.isAttached(port)) return;
    // The last client leaving sees the session's `session.shutdown`, as with `session.destroy`.
    if (session.emitter.sinkCount === 1) {
      try {
        await this.destroy(sessionId);
      } finally {
        session.detach(port);
      }
      return;
    }
    session.detach(port);
  }

  /**
   * Cluster: this node lost the session's lease (another node runs it now): the session leaves
   * memory without writing anything more (its appends would be refused).
   */
  evict(sessionId: string): void {
    const session = this.live.get(sessionId);
    if (!session) return;
    this.live.delete(sessionId);
    session.context.dispose();
    void session.abort().catch(() => undefined);
    session.scope.pending.abandonAll("destroyed");
    void session.toolset.dispose().catch(() => undefined);
  }

  /**
   * Deletes a session and its files, and (unless `keepGitState`) what it left in the user's git
   * repository: its checkpoint refs, its worktree and its branch.
   */
  async delete(sessionId: string, options: { keepGitState?: boolean } = {}): Promise<{ success: boolean; error?: string }> {
    const session = this.live.get(sessionId);
    if (session) {
      this.live.delete(sessionId);
      session.context.dispose();
      await session.abort("destroyed");
      session.scope.pending.abandonAll("destroyed");
      await session.toolset.dispose();
      await session.emitter.close();
      await this.resumePoints.get(sessionId)?.settled();
      this.resumePoints.delete(sessionId);
      // The last checkpoint is written before its ref can be removed.
      await session.history.settled();
    }
    if (session) this.ownership.released(sessionId);
    // The git step loads with the first deletion (the checkpoint code is not on the create path).
    if (!options.keepGitState) await (await import("./git-cleanup.js")).removeGitStateOfSession(this.options.store, session?.scope.logger ?? this.options.logger.child(() => ({ sessionId })), sessionId, session?.scope.workingDirectory);
    const deleted = await this.options.store.delete(sessionId);
    if (!deleted && !session) return { success: false, error: `Session not found: ${sessionId}` };
    if (this.foregroundId === sessionId) this.foregroundId = undefined;
    this.options.broadcastLifecycle({ type: "session.deleted", sessionId });
    return { success: true };
  }

  /** Persisted sessions that have at least one message, newest first. */
  async list(filter?: SessionListFilter): Promise<SessionMetadata[]> {
    const stored = await this.options.store.list();
    return listedSessions(stored, filter);
  }

  /** The most recently modified session with messages. */
  async lastId(): Promise<string | undefined> {
    const [latest] = await this.list();
    return latest?.sessionId;
  }

  getForeground(): { sessionId?: string; workspacePath?: string } {
    if (!this.foregroundId) return {};
    return { sessionId: this.foregroundId, workspacePath: this.options.store.sessionDir(this.foregroundId) };
  }

  async setForeground(sessionId: string): Promise<void> {
    if (!this.live.has(sessionId) && !(await this.options.store.exists(sessionId))) throw sessionNotFound(sessionId);
    this.foregroundId = sessionId;
  }

  /**
   * A client went away: detach it everywhere; sessions nobody holds any more are shut down, except
   * those whose turn waits on a client's answer (a tool call, a permission): they are held for a
   * client that resumes them (see {@link HeldWork}), and shut down when none comes in time.
   */
  async detachAll(port: ClientPort): Promise<void> {
    const orphaned: string[] = [];
    for (const session of this.live.values()) {
      if (!session.isAttached(port)) continue;
      session.detach(port);
      if (session.emitter.sinkCount > 0) continue;
      if (waitsOnClients(session.scope.pending)) {
        const { sessionId } = session;
        const { logger } = session.scope;
        logger.info(`its clients left while its turn waits on a client; held for a resuming client for ${this.held.graceMs} ms`);
        this.held.hold(sessionId, () => {
          if (this.live.get(sessionId) !== session || session.emitter.sinkCount > 0) return;
          logger.info(`no client resumed it in time; closing it (the work it waited on ends interrupted)`);
          void this.destroyAndLog(sessionId);
        });
        continue;
      }
      orphaned.push(session.sessionId);
    }
    await Promise.all(orphaned.map((sessionId) => this.destroyAndLog(sessionId)));
  }

  /** Shuts every live session down (runtime exit). */
  async shutdownAll(): Promise<void> {
    await Promise.all([...this.live.keys()].map((sessionId) => this.destroyAndLog(sessionId)));
  }

  /** Destroys a session nobody asked to destroy: with no client left to tell, what was lost is logged. */
  private destroyAndLog(sessionId: string): Promise<void> {
    return this.destroy(sessionId).catch((error: unknown) => this.options.logger.error(errorMessage(error)));
  }

  /** Writes `workspace.yaml` now (after a change the caller must know is on disk, e.g. a new name). */
  async writeWorkspaceNow(session: Session): Promise<void> {
    await this.options.store.writeWorkspace(workspaceInfo(session));
  }

  /**
   * `session.updated` lifecycle notifications: at most one per session per
   * {@link updatedThrottleMs}, sent at the end of the window (so the last change is always
   * announced). Per event they would cost a write and a wake-up of every client several times per
   * turn, for a notification that only tells session lists that something changed.
   */
  private scheduleUpdated(sessionId: string): void {
    if (this.updateScheduled.has(sessionId)) return;
    this.updateScheduled.add(sessionId);
    setTimeout(() => {
      this.updateScheduled.delete(sessionId);
      const session = this.live.get(sessionId);
      if (!session) return;
      this.options.broadcastLifecycle({ type: "session.updated", sessionId, metadata: lifecycleMetadata(session) });
    }, updatedThrottleMs).unref();
  }
}

/** Merges resume params over a live session's config: fields the client sends replace old ones. */
/** Whether a resume brings MCP settings (servers, plugin folders, disabled servers) that differ from the session's. */
function mcpSettingsChanged(current: SessionCreateParams, update: SessionResumeParams): boolean {
  return (["mcpServers", "pluginDirectories", "disabledMcpServers", "githubMcpToolConfig"] as const).some((key) => {
    const next = (update as Record<string, unknown>)[key];
    return next !== undefined && JSON.stringify(next) !== JSON.stringify((current as Record<string, unknown>)[key]);
  });
}

function mergeConfig(current: SessionCreateParams, update: SessionResumeParams): SessionCreateParams {
  const merged: Record<string, unknown> = { ...current };
  for (const [key, value] of Object.entries(update)) {
    if (value !== undefined && key !== "disableResume") merged[key] = value;
  }
  return merged as SessionCreateParams;
}
