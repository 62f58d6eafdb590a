import { randomBytes, timingSafeEqual } from "node:crypto";
import type { IncomingMessage } from "node:http";

/** A fresh random access token (32 bytes, URL-safe). */
export function newAccessToken(): string {
  return randomBytes(32).toString("base64url");
}

/** Where a request's token failed: none given (401), a wrong one or a foreign Host (403). */
export type AccessVerdict = "ok" | "missing" | "wrong" | "bad-host";

/**
 * Checks a request's access token (the `token` query parameter or the `x-tandem-token` header) in
 * constant time, and that its Host is this loopback server (no DNS rebinding). No cookies: a
 * cookie on 127.0.0.1 would be sent to every local port.
 */
export function checkAccess(request: IncomingMessage, url: URL, token: string, port: number): AccessVerdict {
  const host = request.headers.host ?? "";
  if (host !== `127.0.0.1:${port}` && host !== `localhost:${port}` && host !== `[::1]:${port}`) return "bad-host";
  const header = request.headers["x-tandem-token"];
  const given = url.searchParams.get("token") ?? (typeof header === "string" ? header : undefined);
  if (!given) return "missing";
  const expected = Buffer.from(token);
  const actual = Buffer.from(given);
  if (actual.length !== expected.length) return "wrong";
  return timingSafeEqual(actual, expected) ? "ok" : "wrong";
}
