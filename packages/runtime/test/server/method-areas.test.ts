import { defineRequest } from "@tandem/protocol";
import { ErrorCodes } from "@tandem/protocol/errors";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { LazyMethodTable } from "../../src/server/method-areas.js";
import type { MethodTable } from "../../src/server/method-table.js";
import type { RequestingClient } from "../../src/server/requesting-client.js";

const Echo = defineRequest("test.echo", () => z.looseObject({ text: z.string() }), () => z.looseObject({ text: z.string() }));
const Count = defineRequest("test.count", () => z.looseObject({}), () => z.looseObject({ count: z.number() }));
const Ping = defineRequest("test.ping", () => z.looseObject({}).optional(), () => z.looseObject({ pong: z.boolean() }));

/** The table passes the client through to the handler; these tests never read it. */
const client = {} as RequestingClient;

/** A promise and the function that settles it, to hold an area's import open for as long as a test needs. */
function gate(): { opened: Promise<void>; open: () => void } {
  let open = (): void => undefined;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { opened, open };
}

describe("LazyMethodTable", () => {
  it("answers an unknown method with -32601 without loading any area", async () => {
    const table = new LazyMethodTable();
    let loads = 0;
    table.area([Echo.method], async (into) => {
      loads++;
      into.on(Echo, ({ text }) => ({ text }));
    });
    await expect(table.dispatch("test.nothing", {}, client)).rejects.toMatchObject({ code: ErrorCodes.MethodNotFound, message: "Unhandled method test.nothing" });
    expect(loads).toBe(0);
  });

  it("loads an area once, on the first call of one of its methods, and validates params against the token", async () => {
    const table = new LazyMethodTable();
    let loads = 0;
    let counted = 0;
    table.area([Echo.method, Count.method], async (into) => {
      loads++;
      into.on(Echo, ({ text }) => ({ text }));
      into.on(Count, () => ({ count: ++counted }));
    });
    const [first, second] = await Promise.all([table.dispatch("test.echo", { text: "a" }, client), table.dispatch("test.count", {}, client)]);
    expect(first).toEqual({ text: "a" });
    expect(second).toEqual({ count: 1 });
    await expect(table.dispatch("test.echo", { text: 3 }, client)).rejects.toMatchObject({ code: ErrorCodes.InvalidParams });
    expect(loads).toBe(1);
  });

  it("starts handlers in arrival order while an area loads", async () => {
    const table = new LazyMethodTable();
    const started: string[] = [];
    table.on(Ping, () => {
      started.push("ping");
      return { pong: true };
    });
    const importing = gate();
    table.area([Echo.method], async (into) => {
      await importing.opened;
      into.on(Echo, ({ text }) => {
        started.push(text);
        return { text };
      });
    });
    const echoed = table.dispatch("test.echo", { text: "echo" }, client);
    const pinged = table.dispatch("test.ping", undefined, client);
    importing.open();
    await Promise.all([echoed, pinged]);
    expect(started).toEqual(["echo", "ping"]);
    // Nothing loading: a loaded method's handler starts in the same tick as its request.
    const direct = table.dispatch("test.ping", undefined, client);
    expect(started).toEqual(["echo", "ping", "ping"]);
    await direct;
  });

  it("answers InternalError, never -32601, when an area's module leaves a declared method out, and tries the load again later", async () => {
    const table = new LazyMethodTable();
    let complete = false;
    table.area([Echo.method, Count.method], async (into: MethodTable) => {
      into.on(Echo, ({ text }) => ({ text }));
      if (complete) into.on(Count, () => ({ count: 1 }));
    });
    await expect(table.dispatch("test.count", {}, client)).rejects.toMatchObject({ code: ErrorCodes.InternalError, message: expect.stringContaining("test.count") });
    complete = true;
    await expect(table.dispatch("test.count", {}, client)).resolves.toEqual({ count: 1 });
  });

  it("passes an area's import failure to the requests that wait for it", async () => {
    const table = new LazyMethodTable();
    table.area([Echo.method], async () => {
      throw new Error("cannot read the handler module");
    });
    await expect(table.dispatch("test.echo", { text: "a" }, client)).rejects.toThrow("cannot read the handler module");
  });

  it("refuses a handler for a method its area does not declare, and a method two areas declare", async () => {
    const table = new LazyMethodTable();
    table.area([Echo.method], async (into) => {
      into.on(Echo, ({ text }) => ({ text }));
      into.on(Count, () => ({ count: 0 }));
    });
    await expect(table.dispatch("test.echo", { text: "a" }, client)).rejects.toThrow("test.count is not declared in the area that registers it");
    expect(() => table.area([Echo.method], async () => undefined)).toThrow("test.echo is declared twice");
  });

  it("lets a handler registered directly answer a method an area declares, registered before or after the area", async () => {
    const table = new LazyMethodTable();
    table.on(Ping, () => ({ pong: true }));
    let loads = 0;
    table.area([Ping.method, Echo.method, Count.method], async (into) => {
      loads++;
      into.on(Ping, () => ({ pong: false }));
      into.on(Echo, ({ text }) => ({ text: `area ${text}` }));
    });
    table.on(Count, () => ({ count: 7 }));
    await expect(table.dispatch("test.ping", undefined, client)).resolves.toEqual({ pong: true });
    await expect(table.dispatch("test.count", {}, client)).resolves.toEqual({ count: 7 });
    expect(loads).toBe(0);
    await expect(table.dispatch("test.echo", { text: "a" }, client)).resolves.toEqual({ text: "area a" });
    await expect(table.dispatch("test.ping", undefined, client)).resolves.toEqual({ pong: true });
    expect(loads).toBe(1);
  });
});
