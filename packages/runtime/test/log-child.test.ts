import { describe, expect, it } from "vitest";
import { Logger } from "../src/log.js";

function collecting(level: "warning" | "info", format: "text" | "json"): { logger: Logger; lines: string[] } {
  const lines: string[] = [];
  return { logger: new Logger(level, (line) => lines.push(line), format), lines };
}

describe("Logger.child", () => {
  it("adds its fields, read at each line, to JSON lines and leaves out undefined ones", () => {
    const { logger, lines } = collecting("info", "json");
    const turn: { interactionId?: string } = {};
    const sessionLog = logger.child(() => ({ sessionId: "s-1", interactionId: turn.interactionId }));
    sessionLog.info("outside a turn", { tool: "bash" });
    turn.interactionId = "i-1";
    sessionLog.info("in a turn");
    const [outside, inside] = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(outside).toMatchObject({ level: "info", message: "outside a turn", sessionId: "s-1", tool: "bash" });
    expect(outside).not.toHaveProperty("interactionId");
    expect(inside).toMatchObject({ message: "in a turn", sessionId: "s-1", interactionId: "i-1" });
  });

  it("shows its fields as [key=value …] before the message in text lines; a grandchild adds to its parent's", () => {
    const { logger, lines } = collecting("info", "text");
    logger.child(() => ({ sessionId: "s-1" })).child(() => ({ agent: "explore" })).info("hello", { n: 1 });
    expect(lines[0]).toMatch(/\[INFO\] \[sessionId=s-1 agent=explore\] hello \{"n":1\}\n$/);
  });

  it("shares its root's level and the redaction set on the root later", () => {
    const { logger, lines } = collecting("warning", "text");
    let reads = 0;
    const child = logger.child(() => {
      reads++;
      return { sessionId: "s-1" };
    });
    child.info("not written");
    expect(lines).toEqual([]);
    expect(reads).toBe(0);
    logger.redactWith((line) => line.replace("hunter2", "******"));
    child.warn("token hunter2");
    expect(lines[0]).toContain("token ******");
  });
});
