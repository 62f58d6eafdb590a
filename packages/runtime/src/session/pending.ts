// Pending requests moved to the bottom layer (ports/), where permissions, plan mode and commands
// can import them without reaching up into the session; this keeps the session's imports unchanged.
export { PendingAbandoned, PendingRequests } from "../ports/pending.js";
export type { PendingKind } from "../ports/pending.js";
