import { ErrorCodes } from "@tandem/protocol/errors";
import { z } from "zod";
import { invalidParams, TandemError } from "../errors.js";
import type { AnyToken, Handler, MethodTable } from "./method-table.js";
import type { RequestingClient } from "./requesting-client.js";

/** Registers the handlers of one area on the table it is given, after importing their module. */
export type AreaLoader = (table: MethodTable) => Promise<void>;

type StoredHandler = (params: unknown, client: RequestingClient) => unknown;

/** Methods whose handlers one module registers when the first of them is called. */
interface Area {
  /** The methods its module must register (a method registered directly leaves it). */
  readonly methods: Set<string>;
  readonly load: AreaLoader;
  /** The load in flight or done; cleared when it failed, so a later call tries again. */
  loaded?: Promise<void>;
}

interface Entry {
  /** The area that registers the handler; undefined for a handler registered directly. */
  readonly area?: Area;
  /** The method's token and handler, once registered (an area's, when its module has loaded). */
  registered?: { readonly token: AnyToken; readonly handle: StoredHandler };
}

/**
 * A method table whose handlers may live in modules imported on first use. Every method is known
 * from the start (an area's by its name alone, so its tokens and schemas load with its module), so
 * an unknown method answers -32601 at once without loading anything, and a declared one never
 * does: the first call of an area's method imports its module, which registers the area's handlers
 * with their tokens. Params are validated here, once, against the token's schema. Requests that
 * arrive while an area loads wait for that load, so handlers still start in the order their
 * requests arrived. A handler registered directly ({@link on}) answers its method even when an
 * area declares it (before or after): moving a method out of an area's module into one registered
 * at once needs no change to the area's line.
 *
 * @example
 * const table = new LazyMethodTable();
 * table.on(Ping, (params) => pingResult(params));
 * table.area(["session.canvas.list", "session.canvas.open"], async (into) => (await import("./handlers/canvas.js")).registerCanvasMethods(into, runtime));
 * await table.dispatch("session.canvas.list", { sessionId }, client); // imports handlers/canvas.js once
 */
export class LazyMethodTable implements MethodTable {
  private readonly entries = new Map<string, Entry>();
  /** Settles once every area load started so far has settled; undefined when none is in flight. */
  private loads: Promise<void> | undefined;

  /**
   * Registers the handler of one method now. A method an area declares leaves that area: the
   * handler registered here answers it, and the area's module need not register it (one that does
   * is not used for it).
   */
  on<T extends AnyToken>(token: T, handle: Handler<T>): void {
    this.entries.get(token.method)?.area?.methods.delete(token.method);
    this.entries.set(token.method, { registered: { token, handle: handle as StoredHandler } });
  }

  /**
   * Declares the methods of one area by name; `load` imports their module, which registers them
   * with their tokens, on the first call of one. Naming them here keeps the tokens (and the
   * schemas they build) out of the module that builds the table.
   */
  area(methods: readonly string[], load: AreaLoader): void {
    const area: Area = { methods: new Set(), load };
    for (const method of methods) {
      const known = this.entries.get(method);
      // Registered directly: that handler answers it, the area's module need not.
      if (known && !known.area) continue;
      if (known) throw new Error(`${method} is declared twice in the method table`);
      area.methods.add(method);
      this.entries.set(method, { area });
    }
  }

  /**
   * Validates params against the method's schema and runs its handler. A method without a handler
   * (unknown, or in the protocol but not implemented by Tandem) answers -32601 `Unhandled method
   * <name>`, as the reference runtime does: the official SDKs test for it (e.g. to fall back).
   */
  async dispatch(method: string, params: unknown, client: RequestingClient): Promise<unknown> {
    const entry = this.entries.get(method);
    if (!entry) throw new TandemError(ErrorCodes.MethodNotFound, `Unhandled method ${method}`);
    const loading = !entry.registered && entry.area ? this.startLoad(entry.area) : undefined;
    // Every load started before this request (its own included) settles first: handlers start in arrival order.
    if (this.loads) await this.loads;
    // Awaited only when the load failed (it has settled by now): one more await would let later requests start first.
    if (!entry.registered && loading) await loading;
    const registered = entry.registered;
    if (!registered) throw new TandemError(ErrorCodes.InternalError, `No handler was registered for ${method}`);
    const parsed = registered.token.params.safeParse(params ?? undefined);
    if (!parsed.success) throw invalidParams(`Invalid params for ${method}: ${z.prettifyError(parsed.error)}`, { issues: parsed.error.issues });
    return registered.handle(parsed.data, client);
  }

  /** The area's load, started now unless it is in flight or done. */
  private startLoad(area: Area): Promise<void> {
    if (area.loaded) return area.loaded;
    const loaded = this.loadArea(area);
    area.loaded = loaded;
    loaded.catch(() => {
      if (area.loaded === loaded) area.loaded = undefined;
    });
    const loads = Promise.all([this.loads, loaded.catch(() => undefined)]).then(() => undefined);
    this.loads = loads;
    void loads.then(() => {
      if (this.loads === loads) this.loads = undefined;
    });
    return loaded;
  }

  /** Imports the area's module and takes its handlers, all of them or none (a module that fails part-way leaves none). */
  private async loadArea(area: Area): Promise<void> {
    const registered = new Map<string, { token: AnyToken; handle: StoredHandler }>();
    const scoped: MethodTable = {
      on: (token, handle) => {
        if (area.methods.has(token.method)) {
          registered.set(token.method, { token, handle: handle as StoredHandler });
          return;
        }
        const entry = this.entries.get(token.method);
        // Registered directly: that handler answers it.
        if (entry && !entry.area) return;
        throw new Error(`${token.method} is not declared in the area that registers it`);
      },
    };
    await area.load(scoped);
    const missing = [...area.methods].filter((method) => !registered.has(method));
    if (missing.length > 0) throw new TandemError(ErrorCodes.InternalError, `The handlers of ${missing.join(", ")} were not registered by their area's module`);
    for (const [method, handler] of registered) {
      const entry = this.entries.get(method);
      if (entry) entry.registered = handler;
    }
  }
}
