// The command line checks this setting at start (cli.ts, before the runtime loads): no imports here.

/** The most started shells a session may keep ready (`TANDEM_SANDBOX_POOL`). */
export const MAX_WARM_SHELLS = 8;

/**
 * `TANDEM_SANDBOX_POOL`: how many started sandboxed shells each session keeps ready for one-off
 * commands, a whole number from 0 (none) to {@link MAX_WARM_SHELLS}; undefined when unset. Throws
 * with a message naming the setting on anything else.
 *
 * @example
 * parseWarmShells("2"); // 2
 * parseWarmShells("0"); // 0: every call starts its own sandbox
 */
export function parseWarmShells(text: string | undefined): number | undefined {
  if (text === undefined || text.trim() === "") return undefined;
  const trimmed = text.trim();
  const count = Number(trimmed);
  if (!/^\d+$/.test(trimmed) || count > MAX_WARM_SHELLS) {
    throw new Error(`TANDEM_SANDBOX_POOL must be a whole number from 0 to ${MAX_WARM_SHELLS} (got ${JSON.stringify(text.slice(0, 40))})`);
  }
  return count;
}
