/** grep through the real runtime finds a needle near the end of a 20 MB file (it used to say "No matches found."). */
import { mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CopilotClient, approveAll } from "@github/copilot-sdk";
import { afterEach, expect, it } from "vitest";
import { startWorld, tandemBin, type TestWorld } from "../helpers/harness.js";

let world: TestWorld | undefined;
let copilot: CopilotClient | undefined;
let workdir: string | undefined;

afterEach(async () => {
  await copilot?.stop();
  await world?.dispose();
  if (workdir) rmSync(workdir, { recursive: true, force: true });
});

it("finds a needle near the end of a 20 MB file", async () => {
  workdir = realpathSync(mkdtempSync(join(tmpdir(), "tandem-grep-")));
  const line = "2026-01-01T00:00:00Z INFO request served in 12 ms from the cache, nothing to see\n";
  const lines = Math.ceil((20 * 1024 * 1024) / line.length);
  writeFileSync(join(workdir, "big.log"), `${line.repeat(lines)}found NEEDLE-42 here\n${line.repeat(3)}`);
  world = await startWorld(["grep-large-file"]);
  copilot = new CopilotClient({ cliPath: tandemBin, env: world.env, logLevel: "error" });
  const session = await copilot.createSession({ onPermissionRequest: approveAll, workingDirectory: workdir });
  const reply = await session.sendAndWait({ prompt: "Please find the needle" });
  expect(reply?.data.content).toBe("Found it near the end of big.log.");
  const messages = (world.model.requests[1]?.body as { messages: Array<{ role: string; content: string }> }).messages;
  expect(messages.at(-1)).toMatchObject({ role: "tool", content: `./big.log:${lines + 1}:found NEEDLE-42 here` });
});
