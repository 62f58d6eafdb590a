// The client ports moved to the bottom layer (ports/), where subsystems below the session can
// import them; this keeps the session's imports unchanged.
export type { ClientNeed, ClientPort } from "../ports/clients.js";
