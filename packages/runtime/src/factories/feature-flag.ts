/** The environment variable that lists the runtime's switched-on experimental features (comma-separated). */
export const enabledFeatureFlagsVariable = "COPILOT_CLI_ENABLED_FEATURE_FLAGS";

/** The feature flag that switches agent factories on. */
export const agentFactoriesFlag = "AGENT_FACTORIES";

/**
 * Whether agent factories are switched on: `COPILOT_CLI_ENABLED_FEATURE_FLAGS` lists
 * `AGENT_FACTORIES` (names are comma- or space-separated, case-insensitive).
 *
 * @example
 * agentFactoriesEnabled({ COPILOT_CLI_ENABLED_FEATURE_FLAGS: "EXTENSIONS,AGENT_FACTORIES" }); // true
 */
export function agentFactoriesEnabled(env: NodeJS.ProcessEnv): boolean {
  const flags = (env[enabledFeatureFlagsVariable] ?? "").split(/[\s,]+/);
  return flags.some((flag) => flag.toUpperCase() === agentFactoriesFlag);
}
