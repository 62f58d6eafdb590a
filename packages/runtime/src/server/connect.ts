/** The `connect` answer (the official SDK's opening handshake): ok, protocol and runtime versions. */
export function connectResult(protocolVersion: number, version: string): { ok: true; protocolVersion: number; version: string } {
  return { ok: true, protocolVersion, version };
}
