import { describe, expect, it } from "vitest";
import { shouldExitWithParent, watchParent } from "../../src/server/parent-watch.js";

describe("shouldExitWithParent", () => {
  it("is on for a headless TCP runtime unless a flag says otherwise, and never for stdio", () => {
    expect(shouldExitWithParent({ stdio: false, headless: true })).toBe(true);
    expect(shouldExitWithParent({ stdio: false, headless: false })).toBe(false);
    expect(shouldExitWithParent({ stdio: false, headless: true, exitWithParent: false })).toBe(false);
    expect(shouldExitWithParent({ stdio: false, headless: false, exitWithParent: true })).toBe(true);
    expect(shouldExitWithParent({ stdio: true, headless: true, exitWithParent: true })).toBe(false);
  });
});

describe("watchParent", () => {
  it("calls back once the parent pid changes (re-parented) or the parent is gone", async () => {
    let parent = 4000;
    let alive = true;
    const view = { parentPid: () => parent, isAlive: () => alive };
    let calls = 0;
    watchParent(() => calls++, view, 5);
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(calls).toBe(0);
    parent = 1;
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(calls).toBe(1);

    parent = 4000;
    let gone = 0;
    watchParent(() => gone++, view, 5);
    alive = false;
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(gone).toBe(1);
  });

  it("does nothing when the parent is already init", async () => {
    let calls = 0;
    watchParent(() => calls++, { parentPid: () => 1, isAlive: () => false }, 5);
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(calls).toBe(0);
  });
});
