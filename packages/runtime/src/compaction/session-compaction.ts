import type { SessionCreateParams } from "@tandem/protocol";
import type { Logger } from "../log.js";
import type { SessionFiles } from "../store/types.js";
import { CheckpointStore } from "./checkpoints.js";
import { SessionCompactor, type CompactionHost, type CompactorOptions } from "./compactor.js";
import { compactionSettings, type CompactionSettings } from "./config.js";
import type { ToolTokenCache } from "./tokens.js";
import { configuredLimit, ContextWindow } from "./window.js";

/** What compaction borrows from the runtime. */
export interface CompactionServices {
  /** How long one summary call may take (`TANDEM_COMPACTION_TIMEOUT_MS`, default 120 s). */
  readonly timeoutMs: number;
  /** A model's prompt limit from a model list the runtime already holds for the provider `config` selects (no request). */
  knownWindow(config: SessionCreateParams, model: string): number | undefined;
  /** A model's prompt limit from the model list of the provider `config` selects (asks the provider). */
  fetchWindow(config: SessionCreateParams, model: string): Promise<number | undefined>;
  /** Tool token estimates shared by all sessions. */
  readonly toolTokens?: ToolTokenCache;
}

/** The default time a summary call may take. */
export const defaultCompactionTimeoutMs = 120_000;

/** Reads `TANDEM_COMPACTION_TIMEOUT_MS` (a positive number of milliseconds), else the default. */
export function compactionTimeoutFromEnv(env: NodeJS.ProcessEnv): number {
  const value = Number(env.TANDEM_COMPACTION_TIMEOUT_MS);
  return Number.isFinite(value) && value > 0 ? value : defaultCompactionTimeoutMs;
}

/**
 * Builds the compactors of one session from its config: the main loop's and one per sub-agent
 * run (same settings and window source; checkpoints numbered in one folder).
 *
 * @example
 * const compaction = new SessionCompaction(config, store.files(sessionId), services, logger);
 * const compactor = compaction.create(loop);
 */
export class SessionCompaction {
  private readonly checkpoints: CheckpointStore;
  private window!: ContextWindow;
  private config!: SessionCreateParams;

  constructor(
    config: SessionCreateParams,
    files: SessionFiles,
    private readonly services: CompactionServices,
    private readonly logger: Logger,
  ) {
    this.checkpoints = new CheckpointStore(files);
    this.configure(config);
  }

  /** Takes a new config (resume with new settings); compactors made later use it. */
  configure(config: SessionCreateParams): void {
    this.config = config;
    const lookup = { known: (model: string) => this.services.knownWindow(this.config, model), fetch: (model: string) => this.services.fetchWindow(this.config, model) };
    this.window = new ContextWindow(configuredLimit(config.provider), lookup, this.logger);
  }

  /** A compactor for `host` (a sub-agent's when `agentName` is given). */
  create(host: CompactionHost, agentName?: string): SessionCompactor {
    return new SessionCompactor(host, this.options(agentName));
  }

  /** How many compactions the session (and its sub-agents) made: their numbered checkpoints. */
  compactionCount(): Promise<number> {
    return this.checkpoints.count();
  }

  /** The compaction settings under the current config. */
  settings(): CompactionSettings {
    return compactionSettings(this.config);
  }

  /** The options compactors are built with under the current config. */
  options(agentName?: string): CompactorOptions {
    return {
      settings: compactionSettings(this.config),
      window: this.window,
      checkpoints: this.checkpoints,
      timeoutMs: this.services.timeoutMs,
      ...(agentName ? { agentName } : {}),
      ...(this.services.toolTokens ? { toolTokens: this.services.toolTokens } : {}),
    };
  }
}
