import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { runCli, type CliIo } from "../src/cli-main.js";
import { request } from "./helpers.js";

const plainReply = fileURLToPath(new URL("../scripts/plain-reply.yaml", import.meta.url));
/** A file of several `---`-separated scripts, each chosen by its `match`. */
const multiDocument = fileURLToPath(new URL("../../../test/scripts/console-browser.yaml", import.meta.url));

function fakeIo(): CliIo & { out: string[]; err: string[]; shutdown: () => void } {
  let shutdown: () => void = () => undefined;
  const stopped = new Promise<void>((resolve) => (shutdown = resolve));
  const io = {
    out: [] as string[],
    err: [] as string[],
    stdout: (line: string) => io.out.push(line),
    stderr: (line: string) => io.err.push(line),
    untilShutdown: () => stopped,
    shutdown: () => shutdown(),
  };
  return io;
}

describe("cli", () => {
  it("serves scripts until shutdown", async () => {
    const io = fakeIo();
    const exit = runCli(["serve", plainReply, "--port", "0"], io);
    while (io.out.length === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    const url = io.out[0]!.replace("model server listening on ", "");
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const response = await request(`${url}/chat/completions`, { method: "POST", body: JSON.stringify({ messages: [{ role: "user", content: "hi" }] }) });
    expect((await response.json()).choices[0].message.content).toContain("Hello");
    io.shutdown();
    expect(await exit).toBe(0);
  });

  it("serves every script of a multi-document file", async () => {
    const io = fakeIo();
    const exit = runCli(["serve", multiDocument, "--port", "0"], io);
    while (io.out.length === 0 && io.err.length === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    expect(io.err).toEqual([]);
    const url = io.out[0]!.replace("model server listening on ", "");
    const ask = async (prompt: string) => {
      const response = await request(`${url}/chat/completions`, { method: "POST", body: JSON.stringify({ messages: [{ role: "user", content: prompt }] }) });
      return (await response.json()).choices[0].message;
    };
    expect((await ask("stream please")).content).toContain("Streamed answer");
    expect((await ask("approve the shell")).tool_calls[0].function.name).toBe("bash");
    io.shutdown();
    expect(await exit).toBe(0);
  });

  it("fails with usage on bad arguments", async () => {
    const io = fakeIo();
    expect(await runCli(["serve"], io)).toBe(2);
    expect(io.err.join("\n")).toMatch(/at least one script/);
    expect(await runCli(["serve", "/missing.yaml"], io)).toBe(2);
    expect(io.err.join("\n")).toMatch(/missing\.yaml: cannot read/);
    expect(await runCli(["serve", plainReply, "--port", "x"], io)).toBe(2);
  });
});
