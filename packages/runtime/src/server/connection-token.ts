/**
 * The environment variable that carries the TCP connection token. The official SDK (1.0.x) sets it
 * on a runtime it spawns in TCP mode and sends the same value in `connect`.
 */
export const CONNECTION_TOKEN_ENV = "COPILOT_CONNECTION_TOKEN";

/**
 * Reads the connection token from `--connection-token-env <VAR>` (when given) or
 * `COPILOT_CONNECTION_TOKEN`, and removes it from `env` so that processes the runtime starts (the
 * shell tool, MCP servers) do not inherit it. An empty value means no token; a variable named by
 * the flag that is unset or empty is a configuration error.
 *
 * @example
 * const token = takeConnectionToken(process.env, args.connectionTokenEnv);
 */
export function takeConnectionToken(env: NodeJS.ProcessEnv, flagVariable: string | undefined): string | undefined {
  const variable = flagVariable ?? CONNECTION_TOKEN_ENV;
  const token = env[variable];
  delete env[variable];
  delete env[CONNECTION_TOKEN_ENV];
  if (token) return token;
  if (flagVariable) throw new Error(`--connection-token-env names ${flagVariable}, which is not set (or empty)`);
  return undefined;
}

/**
 * Whether `given` is the expected token, compared in constant time: both are hashed to equal-length
 * digests first, so neither their content nor their length leaks through timing. Loads Node's
 * crypto on first use (the runtime's entry stays free of it).
 */
export async function tokenMatches(expected: string, given: unknown): Promise<boolean> {
  if (typeof given !== "string" || given.length === 0) return false;
  const { createHash, timingSafeEqual } = await import("node:crypto");
  const digest = (text: string) => createHash("sha256").update(text, "utf8").digest();
  return timingSafeEqual(digest(expected), digest(given));
}
