/** An async bash command's completion notice reaches the model as a system notification. */
import { CopilotClient, approveAll } from "@github/copilot-sdk";
import { afterEach, expect, it } from "vitest";
import { startWorld, tandemBin, waitFor, type TestWorld } from "../helpers/harness.js";

let world: TestWorld | undefined;
let copilot: CopilotClient | undefined;

afterEach(async () => {
  await copilot?.stop();
  await world?.dispose();
});

it("tells the model when a background shell command finishes, on its next call", async () => {
  world = await startWorld(["background-shell"]);
  copilot = new CopilotClient({ cliPath: tandemBin, env: world.env, logLevel: "error" });
  const session = await copilot.createSession({ onPermissionRequest: approveAll, workingDirectory: world.home });
  // The session's task list changes when the command starts and again when it ends.
  let taskChanges = 0;
  session.on("session.background_tasks_changed", () => taskChanges++);
  await session.sendAndWait({ prompt: "Start the slow job" });
  const started = (world.model.requests[1]?.body as { messages: Array<{ role: string; content: string }> }).messages.at(-1);
  expect(started?.content).toContain("<command started in background with shellId: bg1>");
  await waitFor(() => taskChanges >= 2, "the background command to end");
  await session.sendAndWait({ prompt: "What happened?" });
  const messages = (world.model.requests[2]?.body as { messages: Array<{ role: string; content: string }> }).messages;
  const notice = messages.at(-2);
  expect(notice?.role).toBe("user");
  expect(notice?.content).toContain('Shell command "Wait in the background" (shellId: bg1) has completed');
  expect(notice?.content).toContain("read_bash");
  expect(messages.at(-1)?.content).toContain("What happened?");
});
