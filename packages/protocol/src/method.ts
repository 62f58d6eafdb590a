import type { z } from "zod";
import { defineMemoisedProperty } from "./lazy.js";

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

/** A schema, or a function building it on first use (the token keeps what it built). */
export type SchemaSource<Schema extends z.ZodType> = Schema | (() => Schema);

/** Sets `token[key]` to `source`, or to a getter building it once when `source` is a function. */
function setSchema(token: object, key: "params" | "result", source: SchemaSource<z.ZodType>): void {
  if (typeof source === "function") defineMemoisedProperty(token, key, source);
  else Object.defineProperty(token, key, { value: source, enumerable: true });
}

/** Creates a {@link RequestToken}; schemas given as functions are built on first read. */
export function defineRequest<Method extends string, Params extends z.ZodType, Result extends z.ZodType>(
  method: Method,
  params: SchemaSource<Params>,
  result: SchemaSource<Result>,
): RequestToken<Method, Params, Result> {
  const token = { kind: "request", method } as RequestToken<Method, Params, Result>;
  setSchema(token, "params", params);
  setSchema(token, "result", result);
  return token;
}

/** Creates a {@link NotificationToken}; a schema given as a function is built on first read. */
export function defineNotification<Method extends string, Params extends z.ZodType>(
  method: Method,
  params: SchemaSource<Params>,
): NotificationToken<Method, Params> {
  const token = { kind: "notification", method } as NotificationToken<Method, Params>;
  setSchema(token, "params", params);
  return token;
}

/** Params type of a request or notification token. */
export type ParamsOf<T> = T extends { params: infer P extends z.ZodType } ? z.infer<P> : never;
/** Result type of a request token. */
export type ResultOf<T> = T extends { result: infer R extends z.ZodType } ? z.infer<R> : never;
