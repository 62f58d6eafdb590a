import type { SessionContext } from "@tandem/protocol";
import { describe, expect, it } from "vitest";
import { GitContextReader } from "../../src/context/git-context-reader.js";

/** A read function whose reads finish when the test says, each answering with its start number. */
function controlledReads() {
  const started: Array<{ cwd: string; finish: () => void }> = [];
  const read = (cwd: string) =>
    new Promise<SessionContext>((resolve) => {
      const number = started.length + 1;
      started.push({ cwd, finish: () => resolve({ cwd, branch: `read-${number}` }) });
    });
  return { started, read };
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe("GitContextReader", () => {
  it("gives every caller a read that started after it asked, sharing the next read among those who asked meanwhile", async () => {
    const { started, read } = controlledReads();
    const reader = new GitContextReader(read);
    const first = reader.read("/repo");
    const during = [reader.read("/repo"), reader.read("/repo"), reader.read("/repo")];
    expect(started).toHaveLength(1);
    started[0]!.finish();
    expect((await first).branch).toBe("read-1");
    await tick();
    // The three callers share read 2, which began after read 1 ended.
    expect(started).toHaveLength(2);
    const late = reader.read("/repo");
    started[1]!.finish();
    expect((await Promise.all(during)).map((context) => context.branch)).toEqual(["read-2", "read-2", "read-2"]);
    await tick();
    // A caller that asked while read 2 ran gets read 3, not read 2's (possibly older) answer.
    expect(started).toHaveLength(3);
    started[2]!.finish();
    expect((await late).branch).toBe("read-3");
  });

  it("reads different folders independently, and starts afresh once a folder's reads are done", async () => {
    const { started, read } = controlledReads();
    const reader = new GitContextReader(read);
    const a = reader.read("/a");
    const b = reader.read("/b");
    expect(started.map((entry) => entry.cwd)).toEqual(["/a", "/b"]);
    started[0]!.finish();
    started[1]!.finish();
    expect([(await a).cwd, (await b).cwd]).toEqual(["/a", "/b"]);
    await tick();
    const again = reader.read("/a");
    expect(started).toHaveLength(3);
    started[2]!.finish();
    expect((await again).branch).toBe("read-3");
  });

  it("a failed read does not stop the callers waiting for the next one", async () => {
    let calls = 0;
    const reader = new GitContextReader(async (cwd) => {
      calls++;
      if (calls === 1) throw new Error("EIO");
      return { cwd, branch: "after" };
    });
    const failing = reader.read("/repo");
    const next = reader.read("/repo");
    await expect(failing).rejects.toThrow("EIO");
    expect((await next).branch).toBe("after");
  });
});
