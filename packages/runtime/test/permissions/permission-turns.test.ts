import { describe, expect, it } from "vitest";
import { PermissionTurns } from "../../src/loop/permission-turns.js";

/** A request that stays open until `answer()`; `state.asked` says whether it went out. */
function openRequest() {
  let answer: () => void = () => undefined;
  const state = { asked: false };
  const request = () => {
    state.asked = true;
    return new Promise<string>((resolve) => {
      answer = () => resolve("approved");
    });
  };
  return { request, state, answer: () => answer() };
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe("PermissionTurns", () => {
  it("sends a later call's request only once the earlier call's was answered", async () => {
    const turns = new PermissionTurns(["view", "bash"]);
    const signal = new AbortController().signal;
    const first = openRequest();
    const second = openRequest();
    const secondDone = turns.ask(1, signal, second.request);
    const firstDone = turns.ask(0, signal, first.request);
    await tick();
    expect([first.state.asked, second.state.asked]).toEqual([true, false]);
    first.answer();
    await firstDone;
    await tick();
    expect(second.state.asked).toBe(true);
    second.answer();
    await expect(secondDone).resolves.toBe("approved");
  });

  it("lets later calls ask past calls that finished, or were decided, without asking", async () => {
    const turns = new PermissionTurns(["bash", "edit", "glob"]);
    const signal = new AbortController().signal;
    const last = openRequest();
    void turns.ask(2, signal, last.request);
    turns.pass(0);
    await tick();
    expect(last.state.asked).toBe(false);
    turns.pass(1);
    await tick();
    expect(last.state.asked).toBe(true);
  });

  it("never holds later calls behind tools that do not ask (a sub-agent, read_bash)", async () => {
    const turns = new PermissionTurns(["task", "read_bash", "bash"]);
    const request = openRequest();
    void turns.ask(2, new AbortController().signal, request.request);
    await tick();
    expect(request.state.asked).toBe(true);
  });

  it("stops waiting when the turn is aborted", async () => {
    const turns = new PermissionTurns(["view", "bash"]);
    const abort = new AbortController();
    const request = openRequest();
    void turns.ask(1, abort.signal, request.request);
    await tick();
    expect(request.state.asked).toBe(false);
    abort.abort();
    await tick();
    expect(request.state.asked).toBe(true);
  });
});
