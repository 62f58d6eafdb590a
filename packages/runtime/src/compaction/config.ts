import type { SessionCreateParams } from "@tandem/protocol";
import { invalidParams } from "../errors.js";

/** `infiniteSessions` with every default filled in. */
export interface CompactionSettings {
  /** Whether the session compacts on its own (manual compaction works either way). */
  enabled: boolean;
  /** Fraction of the window at which compaction starts in the background (default 0.80). */
  backgroundThreshold: number;
  /** Fraction of the window at which the next model call waits for compaction (default 0.95). */
  exhaustionThreshold: number;
}

/** The defaults of `infiniteSessions`. */
export const defaultCompactionSettings: CompactionSettings = { enabled: true, backgroundThreshold: 0.8, exhaustionThreshold: 0.95 };

/**
 * Reads `infiniteSessions` from a session's config (the schema already bounds each fraction to
 * (0, 1]); a background threshold above the exhaustion threshold is refused with invalid params.
 *
 * @example
 * compactionSettings({ infiniteSessions: { backgroundCompactionThreshold: 0.7 } }); // { enabled: true, backgroundThreshold: 0.7, exhaustionThreshold: 0.95 }
 */
export function compactionSettings(config: Pick<SessionCreateParams, "infiniteSessions">): CompactionSettings {
  const given = config.infiniteSessions ?? {};
  const settings: CompactionSettings = {
    enabled: given.enabled ?? defaultCompactionSettings.enabled,
    backgroundThreshold: given.backgroundCompactionThreshold ?? defaultCompactionSettings.backgroundThreshold,
    exhaustionThreshold: given.bufferExhaustionThreshold ?? defaultCompactionSettings.exhaustionThreshold,
  };
  if (settings.backgroundThreshold > settings.exhaustionThreshold) {
    throw invalidParams(
      `infiniteSessions.backgroundCompactionThreshold (${settings.backgroundThreshold}) must not be above bufferExhaustionThreshold (${settings.exhaustionThreshold})`,
      { infiniteSessions: given },
    );
  }
  return settings;
}
