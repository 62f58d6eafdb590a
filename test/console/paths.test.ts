/** Paths in the console's cards: relative to the session's folder when under it, unchanged otherwise. */
import { describe, expect, it } from "vitest";
import { forkName } from "../../packages/console/src/hub.js";
import { displayPath, shortenPaths } from "../../packages/console/web/paths.js";

describe("displayPath", () => {
  it("shows a path under the folder relative to it, and any other path in full", () => {
    expect(displayPath("/work/app/src/a.ts", "/work/app")).toBe("src/a.ts");
    expect(displayPath("/work/app/src/a.ts", "/work/app/")).toBe("src/a.ts");
    expect(displayPath("/work/app", "/work/app")).toBe(".");
    expect(displayPath("/work/application/a.ts", "/work/app")).toBe("/work/application/a.ts");
    expect(displayPath("/etc/hosts", "/work/app")).toBe("/etc/hosts");
    expect(displayPath("relative/a.ts", "/work/app")).toBe("relative/a.ts");
    expect(displayPath("/work/app/a.ts", undefined)).toBe("/work/app/a.ts");
  });

  it("shortens the folder inside a summary line, and leaves a root folder alone", () => {
    expect(shortenPaths("view: /work/app/src/a.ts", "/work/app")).toBe("view: src/a.ts");
    expect(shortenPaths("view: /work/application/a.ts", "/work/app")).toBe("view: /work/application/a.ts");
    expect(shortenPaths("view: /etc/hosts", "/")).toBe("view: /etc/hosts");
  });
});

describe("forkName", () => {
  it("adds \" (fork)\" and stays within the runtime's 100 characters", () => {
    expect(forkName("Fix the bug")).toBe("Fix the bug (fork)");
    expect(forkName("  ")).toBe("Untitled session (fork)");
    const long = forkName("x".repeat(150));
    expect(long.length).toBeLessThanOrEqual(100);
    expect(long.endsWith("… (fork)")).toBe(true);
  });
});
