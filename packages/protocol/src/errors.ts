/**
 * JSON-RPC error codes used on the wire. The standard range is from the JSON-RPC 2.0 spec; Tandem's
 * domain errors use -32000 … -32099 ("server error" range) so any client can tell them apart.
 */
export const ErrorCodes = {
  ParseError: -32700,
  InvalidRequest: -32600,
  MethodNotFound: -32601,
  InvalidParams: -32602,
  InternalError: -32603,
  /** The session id does not name a live or persisted session. */
  SessionNotFound: -32001,
  /** The session exists but cannot accept this request now. */
  SessionBusy: -32002,
  /** The model provider failed (after retries). */
  ProviderError: -32003,
  /** No model provider / credentials are configured. */
  NotConfigured: -32004,
  /** The feature exists in the protocol but is not available in this runtime. */
  NotAvailable: -32005,
  /** A request id (tool call, permission, input) is unknown or already answered. */
  UnknownRequest: -32006,
  /**
   * The session's state could not be written (disk full, I/O error, read-only file system…);
   * `data` carries `path` and the OS error `code`. The request may be retried once space returns.
   */
  PersistenceFailed: -32007,
  /**
   * The TCP connection has not authenticated: its first request must be `connect` with the
   * runtime's connection token (`COPILOT_CONNECTION_TOKEN`). The runtime closes the connection
   * after sending this error.
   */
  Unauthenticated: -32008,
  /** The runtime is shutting down (`runtime.shutdown` was called): it takes no more requests. */
  ShuttingDown: -32000,
  /**
   * Cluster: this node no longer holds the session's lease (it expired, or another node took the
   * session over); its writes to the session are refused. `data` carries `sessionId` and `nodeId`.
   */
  LeaseLost: -32012,
  /** Cluster: the node that runs the session did not answer (gone, or timed out); `data` carries `nodeId`. */
  NodeUnreachable: -32013,
  /**
   * GitHub refused a token (its user lookup answered 401 or 403): a session's `gitHubToken`, an
   * account's token at `account.login`, or the token of `account.getQuota`. The message names the
   * status; the token itself is never repeated.
   */
  AuthenticationFailed: -32014,
  /**
   * The session's sandbox is required (`sandbox.enabled`) but cannot start here (no bubblewrap, no
   * user namespaces, an unsupported platform), or a sandbox action is not allowed (`allowBypass`
   * unset). `data.reason` says why; nothing ran unsandboxed.
   */
  SandboxUnavailable: -32015,
} as const;

/** One of {@link ErrorCodes}. */
export type ErrorCode = (typeof ErrorCodes)[keyof typeof ErrorCodes];
