import type { RequestToken } from "@tandem/protocol";
import type { z } from "zod";
import type { RequestingClient } from "./requesting-client.js";

/** Any request token of the protocol. */
export type AnyToken = RequestToken<string, z.ZodType, z.ZodType>;

/** A method's handler: its validated params and the calling client in, its result out. */
export type Handler<T extends AnyToken> = (params: z.infer<T["params"]>, client: RequestingClient) => Promise<z.infer<T["result"]>> | z.infer<T["result"]>;

/**
 * Where method handlers are registered (one per request token). Handlers see only this, not the
 * dispatcher that implements it and imports them.
 *
 * @example
 * export function registerPingMethods(table: MethodTable): void {
 *   table.on(Ping, (params) => ({ message: `pong: ${params.message ?? ""}` }));
 * }
 */
export interface MethodTable {
  on<T extends AnyToken>(token: T, handle: Handler<T>): void;
}
