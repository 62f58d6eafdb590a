import { clientToServerRequests, type RequestToken } from "@tandem/protocol";
import { ErrorCodes } from "@tandem/protocol/errors";
import { z } from "zod";
import { invalidParams, TandemError } from "../errors.js";
import type { Runtime } from "../runtime.js";
import type { ClientConnection } from "./connection.js";
import { registerPendingAnswerMethods } from "./handlers/pending-answers.js";
import { registerServerMethods } from "./handlers/server.js";
import { registerSessionFeatureMethods } from "./handlers/session-features.js";
import { registerSessionLifecycleMethods } from "./handlers/session-lifecycle.js";
import { registerCompactionMethods } from "./handlers/compaction.js";

type AnyToken = RequestToken<string, z.ZodType, z.ZodType>;

/** A method's handler: its validated params and the calling client in, its result out. */
export type Handler<T extends AnyToken> = (params: z.infer<T["params"]>, client: ClientConnection) => Promise<z.infer<T["result"]>> | z.infer<T["result"]>;

/** Where method handlers are registered (one per request token). */
export interface MethodTable {
  on<T extends AnyToken>(token: T, handle: Handler<T>): void;
}

/**
 * The method table: one handler per request token, params validated once, here. The handlers live
 * in `handlers/`, one file per area of the protocol.
 */
export class Dispatcher implements MethodTable {
  private readonly handlers = new Map<string, { token: AnyToken; handle: (params: unknown, client: ClientConnection) => unknown }>();

  constructor(runtime: Runtime) {
    registerServerMethods(this, runtime);
    registerSessionLifecycleMethods(this, runtime);
    registerPendingAnswerMethods(this, runtime);
    registerSessionFeatureMethods(this, runtime);
    registerCompactionMethods(this, runtime);
    this.answerTheRestAsNotAvailable();
  }

  /** Validates params against the method's schema and runs its handler. */
  async dispatch(method: string, params: unknown, client: ClientConnection): Promise<unknown> {
    const entry = this.handlers.get(method);
    if (!entry) throw new TandemError(ErrorCodes.MethodNotFound, `Unhandled method ${method}`);
    const parsed = entry.token.params.safeParse(params ?? undefined);
    if (!parsed.success) throw invalidParams(`Invalid params for ${method}: ${z.prettifyError(parsed.error)}`, { issues: parsed.error.issues });
    return entry.handle(parsed.data, client);
  }

  /** Registers the handler of one method. */
  on<T extends AnyToken>(token: T, handle: Handler<T>): void {
    this.handlers.set(token.method, { token, handle: handle as (params: unknown, client: ClientConnection) => unknown });
  }

  /** Methods of the protocol that later work implements answer with a clear, typed error. */
  private answerTheRestAsNotAvailable(): void {
    for (const token of clientToServerRequests) {
      if (this.handlers.has(token.method)) continue;
      this.on(token as AnyToken, () => {
        throw new TandemError(ErrorCodes.NotAvailable, `${token.method} is not available in this version of Tandem`);
      });
    }
  }
}
