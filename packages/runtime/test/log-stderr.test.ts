/**
 * The stderr sink: a reader of stderr that goes away (EPIPE) must not crash the runtime, although
 * the sink only touches `process.stderr` on its first line (creating the stream costs start-up time).
 */
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const indexUrl = new URL("../bundle/index.js", import.meta.url).href;

describe("stderrSink", () => {
  it("keeps the process alive when the stderr reader has gone away", async () => {
    const script = `
      const { Logger, stderrSink } = await import(${JSON.stringify(indexUrl)});
      const logger = new Logger("info", stderrSink);
      await new Promise((resolve) => setTimeout(resolve, 300));
      for (let index = 0; index < 50; index++) {
        logger.info("line " + index + " " + "x".repeat(4096));
        await new Promise((resolve) => setTimeout(resolve, 2));
      }
      process.stdout.write("survived\\n");
    `;
    const child = spawn(process.execPath, ["--input-type=module", "-e", script], { stdio: ["ignore", "pipe", "pipe"], cwd: fileURLToPath(new URL("..", import.meta.url)) });
    child.stderr.destroy();
    let stdout = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
    const code = await new Promise<number | null>((resolve) => child.on("exit", resolve));
    expect(stdout).toBe("survived\n");
    expect(code).toBe(0);
  });
});
