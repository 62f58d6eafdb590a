import type { z } from "zod";

/**
 * A JSON-RPC request as a typed token: the wire name plus its params and result schemas.
 * The runtime registers handlers with it; the SDK calls with it.
 *
 * @example
 * const Ping = defineRequest("ping", PingParams, PingResult);
 * connection.sendRequest(Ping.method, params);
 */
export interface RequestToken<Method extends string, Params extends z.ZodType, Result extends z.ZodType> {
  readonly kind: "request";
  readonly method: Method;
  readonly params: Params;
  readonly result: Result;
}

/** A JSON-RPC notification as a typed token (no result). */
export interface NotificationToken<Method extends string, Params extends z.ZodType> {
  readonly kind: "notification";
  readonly method: Method;
  readonly params: Params;
}

/** Creates a {@link RequestToken}. */
export function defineRequest<Method extends string, Params extends z.ZodType, Result extends z.ZodType>(
  method: Method,
  params: Params,
  result: Result,
): RequestToken<Method, Params, Result> {
  return { kind: "request", method, params, result };
}

/** Creates a {@link NotificationToken}. */
export function defineNotification<Method extends string, Params extends z.ZodType>(
  method: Method,
  params: Params,
): NotificationToken<Method, Params> {
  return { kind: "notification", method, params };
}

/** Params type of a request or notification token. */
export type ParamsOf<T> = T extends { params: infer P extends z.ZodType } ? z.infer<P> : never;
/** Result type of a request token. */
export type ResultOf<T> = T extends { result: infer R extends z.ZodType } ? z.infer<R> : never;
