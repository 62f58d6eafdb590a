import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { TandemError } from "../../src/errors.js";
import { Logger } from "../../src/log.js";
import { BatchedAppends } from "../../src/store/batched-appends.js";
import { EventLog } from "../../src/store/event-log.js";
import { persistenceFailed } from "../../src/store/persistence-error.js";

const logger = new Logger("error", () => undefined);
let dir: string;

/** A log kept elsewhere that records each batch it is asked to write. */
class RecordingLog extends BatchedAppends {
  readonly batches: string[][] = [];
  get location(): string {
    return "memory";
  }
  protected async prepare(): Promise<void> {}
  protected async writeBatch(batch: string[]): Promise<void> {
    this.batches.push([...batch]);
  }
  protected describeFailure(error: unknown): TandemError {
    return persistenceFailed(this.location, error, "write");
  }
}

/** Resolves once `count` entries of the log are written. */
function writtenUpTo(log: { progress: { writtenTotal: number; onWritten(listener: (written: number) => void): () => void } }, count: number): Promise<void> {
  if (log.progress.writtenTotal >= count) return Promise.resolve();
  return new Promise((resolve) => {
    const stop = log.progress.onWritten((written) => {
      if (written < count) return;
      stop();
      resolve();
    });
  });
}

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "tandem-flush-soon-"));
  // No timer ever fires in these tests: appended lines must be written without one.
  vi.useFakeTimers({ toFake: ["setTimeout", "setInterval"] });
});
afterEach(() => {
  vi.useRealTimers();
  rmSync(dir, { recursive: true, force: true });
});

describe("appended lines are written at the end of the event loop's turn, not after a timer", () => {
  it("the events file writes what one turn appended as one batch", async () => {
    const path = join(dir, "events.jsonl");
    const log = new EventLog(path, logger);
    for (let index = 1; index <= 3; index++) log.append(JSON.stringify({ id: String(index) }));
    await writtenUpTo(log, 3);
    expect(readFileSync(path, "utf8").trim().split("\n").map((line) => JSON.parse(line).id)).toEqual(["1", "2", "3"]);
    log.append(JSON.stringify({ id: "4" }));
    await writtenUpTo(log, 4);
    expect(readFileSync(path, "utf8").trim().split("\n")).toHaveLength(4);
    await log.close();
  }, 5000);

  it("a log kept elsewhere gets one batch per turn, the next turn's lines in the next batch", async () => {
    const log = new RecordingLog(logger);
    log.append("a");
    log.append("b");
    await writtenUpTo(log, 2);
    log.append("c");
    await writtenUpTo(log, 3);
    expect(log.batches).toEqual([["a", "b"], ["c"]]);
    await log.close();
  }, 5000);
});
